"""How the review app starts work: a small interface the app is handed, never `flows` itself.

A batch of uploads; one item again (a retry of a failed one: the same item afresh); one item
regenerated with the reviewer's comment as feedback (a new item of the job, continuing from
the old one's iteration memory). Each returns at once with where to follow the run. And the
other way: a job's unfinished runs stopped (and waited for) before the job is deleted.

`rlauto dashboard` hands the app `flows.launch.PrefectLauncher`; tests hand it a fake.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rlauto_core.config import RunOptions
from rlauto_core.errors import ConfigError
from rlauto_core.pipeline import LaunchedRun


class Launcher(Protocol):
    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        """Store the uploaded recordings and start a batch of them; returns at once."""
        ...

    def retry_item(self, job_id: str, item_id: str) -> LaunchedRun:
        """Run a failed or stopped item again with the options it was made with."""
        ...

    def regenerate_item(self, job_id: str, item_id: str, comment: str) -> LaunchedRun:
        """Run the item's recording again with `comment` added to the feedback, from its memory."""
        ...

    def stop_job(self, job_id: str) -> list[str]:
        """Cancel the job's unfinished runs and wait until they have ended; the runs it stopped.
        Raises a domain error (and stops nothing more) when they do not end in time."""
        ...


class NoLauncher:
    """The app run without a launcher (`streamlit run dashboards/review.py`): reviewing only."""

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        raise ConfigError("this dashboard cannot start batches: start it with `rlauto dashboard`")

    def retry_item(self, job_id: str, item_id: str) -> LaunchedRun:
        raise ConfigError("this dashboard cannot start runs: start it with `rlauto dashboard`")

    def regenerate_item(self, job_id: str, item_id: str, comment: str) -> LaunchedRun:
        raise ConfigError("this dashboard cannot start runs: start it with `rlauto dashboard`")

    def stop_job(self, job_id: str) -> list[str]:
        return []  # it started none and cannot see Prefect: `rlauto dashboard` stops a job's runs
