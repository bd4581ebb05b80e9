"""`LOG_LEVEL` applied: our loggers (`rlauto.*`, `rlauto_core.config.follow_log_level`) and
Prefect's (`PREFECT_LOGGING_LEVEL`, which the processes we start inherit: the server, the
workers, the dashboard, their flow runs). `flows/__init__.py` applies it in every process that
loads our flows, a worker's flow-run process included."""

from __future__ import annotations

import logging
import os
import sys

from rlauto_core.config import follow_log_level


def apply_log_level(level: str | None = None) -> str:
    """Set our loggers' level (with one stderr handler) and Prefect's, before or after Prefect
    configured its logging; an explicit PREFECT_LOGGING_LEVEL still wins for Prefect's."""
    name = follow_log_level(level)
    prefect_level = os.environ.setdefault("PREFECT_LOGGING_LEVEL", name)
    if "prefect.logging.configuration" in sys.modules:  # already set up: change it in place
        for logger in ("prefect", "prefect.extra", "prefect.client", "prefect.infrastructure"):
            logging.getLogger(logger).setLevel(prefect_level)
    return name
