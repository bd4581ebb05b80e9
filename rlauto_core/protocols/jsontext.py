"""A JSON text read for what it holds: an object or an array, or None for anything else (no JSON,
broken JSON, too long, nested past the parser). One reader for the protocols' bodies and answers."""

from __future__ import annotations

import json
from typing import Any


def json_value(text: str | None, limit: int | None = None) -> Any:
    """The object or array `text` holds; None when it holds none or is longer than `limit`."""
    if text is None or (limit is not None and len(text) > limit) or text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
