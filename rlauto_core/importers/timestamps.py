"""Timestamps as recorders write them: ISO 8601 strings or epoch numbers (s or ms)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rlauto_core.errors import RecordingError

# Epoch values above this are milliseconds (1e11 s is the year 5138).
_MS_THRESHOLD = 1e11


def parse_timestamp(value: Any, file: str, where: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise RecordingError(file, f"{where}: timestamp must be a string or a number, got a boolean")
    if isinstance(value, (int, float)):
        return _from_epoch(float(value), file, where)
    if isinstance(value, str):
        text = value.strip()
        try:
            return _from_epoch(float(text), file, where)
        except ValueError:
            pass
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise RecordingError(file, f"{where}: unreadable timestamp {text[:40]!r}") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise RecordingError(file, f"{where}: timestamp must be a string or a number")


def _from_epoch(number: float, file: str, where: str) -> datetime:
    seconds = number / 1000 if abs(number) >= _MS_THRESHOLD else number
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise RecordingError(file, f"{where}: timestamp {number} is out of range") from None
