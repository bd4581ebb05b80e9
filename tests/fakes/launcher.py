"""A launcher for the review app that starts nothing: it keeps what it was asked to start."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rlauto_core.config import RunOptions
from rlauto_core.pipeline import LaunchedRun


@dataclass
class Launch:
    names: list[str]
    options: RunOptions
    concurrency: int


@dataclass
class Rerun:
    job_id: str
    item_id: str
    comment: str | None  # None: a retry


@dataclass
class FakeLauncher:
    launches: list[Launch] = field(default_factory=list)
    reruns: list[Rerun] = field(default_factory=list)
    refuse: Exception | None = None  # raised instead of launching
    running: dict[str, list[str]] = field(default_factory=dict)  # job -> its unfinished runs
    stopped: list[str] = field(default_factory=list)  # the jobs whose runs were stopped

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        if self.refuse is not None:
            raise self.refuse
        self.launches.append(Launch([name for name, _ in files], options, concurrency))
        return LaunchedRun(job_id=f"job-fake-{len(self.launches)}", flow_run_id="run-fake", via="in-process")

    def retry_item(self, job_id: str, item_id: str) -> LaunchedRun:
        return self._rerun(Rerun(job_id, item_id, None))

    def regenerate_item(self, job_id: str, item_id: str, comment: str) -> LaunchedRun:
        return self._rerun(Rerun(job_id, item_id, comment))

    def stop_job(self, job_id: str) -> list[str]:
        if self.refuse is not None:
            raise self.refuse
        self.stopped.append(job_id)
        return self.running.pop(job_id, [])

    def _rerun(self, rerun: Rerun) -> LaunchedRun:
        if self.refuse is not None:
            raise self.refuse
        self.reruns.append(rerun)
        return LaunchedRun(job_id=rerun.job_id, flow_run_id=f"run-fake-{len(self.reruns)}", via="in-process",
                           item_id=rerun.item_id if rerun.comment is None else "it-fedcba9876543210")  # fmt: skip
