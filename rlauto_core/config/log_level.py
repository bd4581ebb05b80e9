"""`LOG_LEVEL` for our loggers (`rlauto.*`): the level from the environment or `.env`, and one
stderr handler that prints only while nothing else (Prefect) gives the root logger a console.

Called where a process of ours starts: the CLI and the dashboard (through flows/log_level.py,
which also hands the level to Prefect's loggers), and the flow packages themselves (`flows`,
`device_flows`), since a worker's flow-run process only imports the flow's file."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError

from rlauto_core.config.settings import Settings

OURS = "rlauto"
_HANDLER_NAME = "rlauto-console"
_FORMAT = "%(asctime)s | %(levelname)-7s | %(name)s - %(message)s"


def configured_level() -> str:
    """LOG_LEVEL from the environment or `.env` (through Settings); `info` when it is broken."""
    try:
        return Settings().log_level
    except ValidationError:
        return "info"  # the command that reads the settings reports the broken value itself


def _only_while_root_is_silent(record: logging.LogRecord) -> bool:
    # once Prefect (or anyone) gives the root logger a console, our lines propagate there:
    # printing them here too would show each twice
    return not logging.getLogger().handlers


def follow_log_level(level: str | None = None) -> str:
    """Set our loggers' level (`level`, else LOG_LEVEL) with one stderr handler; returns the level
    name applied (INFO for one Python does not know)."""
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
    return name
