"""Task options shared by the storage-writing tasks.

One retry layer per concern: storage calls are retried inside `rlauto_core.store` (transient
errors only, about 20 s of backoff) and model calls inside the HTTP client, so no task retries
them again on top (that multiplied the attempts: 9 x 3 storage writes, 3 x 3 model calls).
"""

from __future__ import annotations

from typing import Any

from prefect.cache_policies import NONE as NO_CACHE

# The storage is the record: nothing cached or persisted by Prefect.
STORAGE_WRITE: dict[str, Any] = {"cache_policy": NO_CACHE, "persist_result": False}
