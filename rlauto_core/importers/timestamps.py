"""Timestamps as recorders write them: ISO 8601 strings or epoch numbers (s, ms, µs or ns),
as JSON numbers or numeric strings."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rlauto_core.errors import RecordingError

# Epoch values are read by magnitude: 1e11 s is the year 5138, so anything larger is a finer
# unit. Chrome and tracing tools write microseconds, Go and OpenTelemetry nanoseconds.
_MS_THRESHOLD = 1e11
_US_THRESHOLD = 1e14
_NS_THRESHOLD = 1e17


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


def epoch_to_iso(value: Any, file: str, where: str) -> Any:
    """An epoch number (or numeric string) as an ISO 8601 UTC string; anything else unchanged.

    Metadata fields such as `recordedAt` are typed as strings: a recorder that writes epoch
    seconds or milliseconds there gets the same instant in the form the rest of the project reads.
    """
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not is_number and not (isinstance(value, str) and _numeric(value)):
        return value
    parsed = parse_timestamp(value, file, where)
    return None if parsed is None else parsed.isoformat().replace("+00:00", "Z")


def _numeric(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def _from_epoch(number: float, file: str, where: str) -> datetime:
    magnitude = abs(number)
    if magnitude >= _NS_THRESHOLD:
        seconds = number / 1e9
    elif magnitude >= _US_THRESHOLD:
        seconds = number / 1e6
    elif magnitude >= _MS_THRESHOLD:
        seconds = number / 1e3
    else:
        seconds = number
    try:
        return datetime.fromtimestamp(seconds, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise RecordingError(file, f"{where}: timestamp {number} is out of range") from None
