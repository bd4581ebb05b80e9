"""Configuration: deployment settings (the environment and `.env`), per-run options, the run
context each entry point resolves once, and `LOG_LEVEL` applied to our loggers."""

from rlauto_core.config.context import PACKAGE_BATCH_DEPLOYMENT, PACKAGE_RECORDING_DEPLOYMENT, RunContext
from rlauto_core.config.log_level import follow_log_level
from rlauto_core.config.options import (
    MAX_CONCURRENCY,
    MAX_ITEMS_IN_FLIGHT,
    MAX_ITERATIONS,
    JudgeOptions,
    RubricGenerationOptions,
    RunOptions,
    default_items_in_flight,
)
from rlauto_core.config.settings import ApiMode, LogLevel, Settings, default_storage_url

__all__ = [
    "MAX_CONCURRENCY",
    "MAX_ITEMS_IN_FLIGHT",
    "MAX_ITERATIONS",
    "PACKAGE_BATCH_DEPLOYMENT",
    "PACKAGE_RECORDING_DEPLOYMENT",
    "ApiMode",
    "JudgeOptions",
    "LogLevel",
    "RubricGenerationOptions",
    "RunContext",
    "RunOptions",
    "Settings",
    "default_items_in_flight",
    "default_storage_url",
    "follow_log_level",
]
