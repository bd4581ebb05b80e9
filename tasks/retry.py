"""The one rule for task retries: only transient errors (model 429/5xx/timeouts, storage down)."""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NONE as NO_CACHE

from rlauto_core.store.storage import is_transient_storage_error

# Literal delays (seconds) shared by every retried task.
RETRY_DELAYS = [2, 5, 15]


def _is_transient(exc: BaseException) -> bool:
    if getattr(exc, "transient", False) is True:  # rlauto_core.llm.errors.TransientModelError
        return True
    return is_transient_storage_error(exc)


def retry_on_transient_error(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect retry condition: retry when the failure is transient; a bad ZIP, a permanent
    model error (401, context too long) or a verdict below the bar fail at once."""
    try:
        state.result()
    except Exception as exc:
        return _is_transient(exc)
    return False


# The options of every task that writes to storage: nothing cached or persisted (the storage
# is the record), retried on transient errors only.
STORAGE_WRITE: dict[str, Any] = {
    "cache_policy": NO_CACHE,
    "persist_result": False,
    "retries": 2,
    "retry_delay_seconds": [2, 5],
    "retry_condition_fn": retry_on_transient_error,
}
