"""Fixtures of the replay tests: every example packaged once per worker (offline, milliseconds),
as the ZIP an environment is opened from."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.config import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.package import export_package
from tests.conftest import CAPTURES, EXAMPLES
from tests.package.offline import package_offline
from tests.replay.helpers import BATCH_CORPUS


@pytest.fixture(scope="session")
def example_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Example name -> its package ZIP (the bare HAR's too: exported though its instruction was
    written offline, as the package tests do)."""
    out = tmp_path_factory.mktemp("replay-packages")
    found: dict[str, Path] = {}
    for source in sorted([*EXAMPLES.glob("*.zip"), *CAPTURES.glob("*.har")]):
        done = package_offline(source, RunOptions(), out)
        assert done.package is not None, done.error
        if done.package_path is not None:
            found[source.name] = Path(done.package_path)
        else:
            recording = import_path(source)
            found[source.name] = export_package(source, done.package, out, root_prefix=recording.root_prefix)
    return found


@pytest.fixture(scope="session")
def batch_packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The rewards corpus's apps whose recordings send several calls in one request (a batched
    GraphQL POST, a `_bulk`), packaged offline: app name -> package ZIP."""
    out = tmp_path_factory.mktemp("replay-batch-packages")
    found: dict[str, Path] = {}
    for app in BATCH_CORPUS:
        done = package_offline(BATCH_CORPUS[app], RunOptions(), out)
        assert done.package_path is not None, done.error
        found[app] = Path(done.package_path)
    return found
