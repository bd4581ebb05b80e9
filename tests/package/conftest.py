"""Every example recording packaged once per session (offline path), shared by the package tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.config.options import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.package.export import export_package
from rlauto_core.package.pipeline import PackageOutcome, package_paths
from tests.conftest import EXAMPLES

ATTEMPTS = Path(__file__).resolve().parent / "attempts"
# The one example with no recorded instruction: offline, it ends NEEDS_REVISION (issue 13, item 6).
UNINSTRUCTED = "project_board.har"


@pytest.fixture(scope="session")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PackageOutcome]:
    out = tmp_path_factory.mktemp("packages")
    outcomes = package_paths([EXAMPLES], RunOptions(), out)
    return {Path(o.source).name: o for o in outcomes}


@pytest.fixture(scope="session")
def exported(packaged: dict[str, PackageOutcome], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every example's package ZIP: the pipeline's export, and (for the one it does not export) the
    same export_package call made directly, so the bare-HAR export path stays tested."""
    out = tmp_path_factory.mktemp("exported")
    paths: dict[str, Path] = {}
    for name, outcome in packaged.items():
        if outcome.package_path:
            paths[name] = Path(outcome.package_path)
        else:
            assert outcome.package is not None, outcome.error
            recording = import_path(EXAMPLES / name)
            paths[name] = export_package(EXAMPLES / name, outcome.package, out, root_prefix=recording.root_prefix)
    return paths
