"""Every example recording packaged once per session (offline path), shared by the package tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.config.options import RunOptions
from rlauto_core.package.pipeline import PackageOutcome, package_paths
from tests.conftest import EXAMPLES

ATTEMPTS = Path(__file__).resolve().parent / "attempts"


@pytest.fixture(scope="session")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PackageOutcome]:
    out = tmp_path_factory.mktemp("packages")
    outcomes = package_paths([EXAMPLES], RunOptions(), out)
    return {Path(o.source).name: o for o in outcomes}
