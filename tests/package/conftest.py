"""Every example recording packaged once per session through the core loop (offline analyzer and
validator), its ZIP written as the pipeline's export writes it; shared by the package tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.config import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.package import export_package
from tests.conftest import CAPTURES, EXAMPLES
from tests.package.offline import Packaged, package_offline

ATTEMPTS = Path(__file__).resolve().parent / "attempts"
# The one example with no recorded instruction: offline, it ends NEEDS_REVISION (issue 13, item 6).
UNINSTRUCTED = "project_board.har"

__all__ = ["ATTEMPTS", "UNINSTRUCTED", "Packaged", "example_files", "package_offline"]


def example_files() -> list[Path]:
    """The example recordings and the bare capture beside them (`examples/captures`)."""
    return sorted(p for folder in (EXAMPLES, CAPTURES) for p in folder.iterdir() if p.suffix in (".zip", ".har"))


@pytest.fixture(scope="session")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Packaged]:
    out = tmp_path_factory.mktemp("packages")
    return {p.name: package_offline(p, RunOptions(), out) for p in example_files()}


@pytest.fixture(scope="session")
def exported(packaged: dict[str, Packaged], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every example's package ZIP: the pipeline's export, and (for the one it does not export) the
    same export_package call made directly, so the bare-HAR export path stays tested."""
    out = tmp_path_factory.mktemp("exported")
    paths: dict[str, Path] = {}
    for name, outcome in packaged.items():
        if outcome.package_path:
            paths[name] = Path(outcome.package_path)
        else:
            assert outcome.package is not None, outcome.error
            source = Path(outcome.source)
            recording = import_path(source)
            paths[name] = export_package(source, outcome.package, out, root_prefix=recording.root_prefix)
    return paths
