"""`LOG_LEVEL` applied: our loggers (`rlauto.*`) and Prefect's (`PREFECT_LOGGING_LEVEL`, which
the processes we start inherit: the server, the workers, the dashboard, their flow runs)."""

from __future__ import annotations

import logging
import os
import sys

OURS = "rlauto"
_HANDLER_NAME = "rlauto-console"
_FORMAT = "%(asctime)s | %(levelname)-7s | %(name)s - %(message)s"


def configured_level() -> str:
    """LOG_LEVEL from the environment or `.env` (through Settings); `info` when it is broken."""
    from pydantic import ValidationError

    from rlauto_core.config import Settings

    try:
        return Settings().log_level
    except ValidationError:
        return "info"  # the command that reads the settings reports the broken value itself


def _only_while_root_is_silent(record: logging.LogRecord) -> bool:
    # once Prefect (or anyone) gives the root logger a console, our lines propagate there:
    # printing them here too would show each twice
    return not logging.getLogger().handlers


def apply_log_level(level: str | None = None) -> str:
    """Set our loggers' level (with one stderr handler) and Prefect's, before or after Prefect
    configured its logging; an explicit PREFECT_LOGGING_LEVEL still wins for Prefect's."""
    name = (level or configured_level()).upper()
    numeric = logging.getLevelName(name)
    if not isinstance(numeric, int):
        name, numeric = "INFO", logging.INFO
    ours = logging.getLogger(OURS)
    ours.setLevel(numeric)
    if not any(h.get_name() == _HANDLER_NAME for h in ours.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.set_name(_HANDLER_NAME)
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler.addFilter(_only_while_root_is_silent)
        ours.addHandler(handler)
    prefect_level = os.environ.setdefault("PREFECT_LOGGING_LEVEL", name)
    if "prefect.logging.configuration" in sys.modules:  # already set up: change it in place
        for logger in ("prefect", "prefect.extra", "prefect.client", "prefect.infrastructure"):
            logging.getLogger(logger).setLevel(prefect_level)
    return name
