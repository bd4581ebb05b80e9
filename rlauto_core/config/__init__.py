"""Configuration: deployment settings (the environment and `.env`), per-run options, and
`LOG_LEVEL` applied to our loggers."""

from rlauto_core.config.log_level import follow_log_level
from rlauto_core.config.options import (
    MAX_CONCURRENCY,
    MAX_ITERATIONS,
    JudgeOptions,
    RubricGenerationOptions,
    RunOptions,
)
from rlauto_core.config.settings import ApiMode, LogLevel, Settings, default_storage_url

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_ITERATIONS",
    "ApiMode",
    "JudgeOptions",
    "LogLevel",
    "RubricGenerationOptions",
    "RunOptions",
    "Settings",
    "default_storage_url",
    "follow_log_level",
]
