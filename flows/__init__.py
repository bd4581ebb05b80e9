"""Prefect flows: one recording, a batch, the inbox scan, polish.

Imported lazily so that `rlauto inspect` and friends do not pay Prefect's import cost.
"""

from __future__ import annotations

from typing import Any

from flows.log_level import apply_log_level

# every process that loads a flow of ours follows LOG_LEVEL: a worker's flow-run process imports
# only the flow's file (prefect.yaml's entrypoint), and that file imports this package first
apply_log_level()

__all__ = ["package_batch", "package_recording", "polish", "scan_inbox"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        # before Prefect reads its settings: the local stack if one is up, else ephemeral
        # mode with a start-up timeout that a small machine meets
        from flows import runtime

        runtime.configure()
        from flows import pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)
