"""How the review app starts a batch: a small interface the app is handed, never `flows` itself.

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


class NoLauncher:
    """The app run without a launcher (`streamlit run dashboards/review.py`): reviewing only."""

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        raise ConfigError("this dashboard cannot start batches: start it with `rlauto dashboard`")
