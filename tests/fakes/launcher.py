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
class FakeLauncher:
    launches: list[Launch] = field(default_factory=list)
    refuse: Exception | None = None  # raised instead of launching

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        if self.refuse is not None:
            raise self.refuse
        self.launches.append(Launch([name for name, _ in files], options, concurrency))
        return LaunchedRun(job_id=f"job-fake-{len(self.launches)}", flow_run_id="run-fake", via="in-process")
