"""Every example recording packaged once per session through the core loop (offline analyzer and
validator), its ZIP written as the pipeline's export writes it; shared by the package tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from rlauto_core.config import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.importers import import_path
from rlauto_core.package import JudgeResult, TaskPackage, export_package
from rlauto_core.pipeline import ItemOutcome, analysis_for, run_item
from tests.conftest import EXAMPLES

ATTEMPTS = Path(__file__).resolve().parent / "attempts"


@dataclass
class Packaged:
    """One recording packaged offline: the core outcome, the best package and where its ZIP is."""

    source: str
    outcome: ItemOutcome
    package: TaskPackage | None = None
    judge: JudgeResult | None = None
    package_path: Path | None = None  # written only when it passed

    @property
    def passed(self) -> bool:
        return self.outcome.passed

    @property
    def error(self) -> str | None:
        return self.outcome.error


def package_offline(path: Path, options: RunOptions, out_dir: Path) -> Packaged:
    """Import, run the one loop offline, export the ZIP on a pass (what the item flow does, minus storage)."""
    outcome = ItemOutcome(job_id="test", item_id=path.name, source=str(path), source_name=path.name)
    try:
        recording = import_path(path, options.requested_mode)
        done = run_item(recording, options, *analysis_for(None, options), outcome=outcome)
    except RlautoError as exc:
        return Packaged(str(path), outcome.model_copy(update={"status": "failed", "error": str(exc)}))
    written = None
    if done.outcome.passed:
        written = export_package(path, done.package, out_dir, root_prefix=recording.root_prefix,
                                 redact_secrets=options.redact_secrets)  # fmt: skip
    judge = done.snapshots[-1].judge_result if done.snapshots else None
    return Packaged(str(path), done.outcome, done.package, judge, written)


@pytest.fixture(scope="session")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Packaged]:
    out = tmp_path_factory.mktemp("packages")
    files = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".zip", ".har"))
    return {p.name: package_offline(p, RunOptions(), out) for p in files}
