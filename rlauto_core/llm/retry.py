"""Backoff with jitter that honours `Retry-After` (seconds or an HTTP date)."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from pydantic import BaseModel, Field


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class RetryPolicy(BaseModel):
    """`max_attempts` counts every try (ITEM_MAX_ATTEMPTS); delays grow 2x from `base_seconds`."""

    max_attempts: int = Field(default=3, ge=1)
    base_seconds: float = Field(default=1.0, ge=0)
    cap_seconds: float = Field(default=30.0, ge=0)
    # a server asking for a longer pause than this is better retried later by the orchestrator
    max_retry_after_seconds: float = Field(default=120.0, ge=0)

    def delay(self, failures: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait after the `failures`-th failed try (1-based); never below Retry-After."""
        backoff = min(self.cap_seconds, self.base_seconds * 2.0 ** (failures - 1))
        jittered = backoff / 2 + rng.uniform(0, backoff / 2)
        if retry_after is not None:
            return retry_after + rng.uniform(0, min(1.0, self.base_seconds))
        return jittered
