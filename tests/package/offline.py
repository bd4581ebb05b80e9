"""One recording packaged through the core loop offline, as the item flow does it minus storage:
the package tests, the target corpora and bench/bench_package_targets.py share it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rlauto_core.config import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.importers import import_path
from rlauto_core.package import JudgeResult, TaskPackage, export_package
from rlauto_core.pipeline import ItemOutcome, analysis_for, run_item


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
    judge = done.best.judge_result if done.snapshots else None
    return Packaged(str(path), done.outcome, done.package, judge, written)
