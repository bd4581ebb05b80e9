"""An answer as the session shows it: the recorded answer with the session's ids, the content its
calls wrote, volatile values moved on, entities it never made (or deleted) left out of lists, and
no secret of the recording (tokens, cookies: redacted as a package is)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.package.volatile import volatile_kind
from rlauto_core.recording import Header
from rlauto_core.redact import redact_body, redact_headers, redact_json
from rlauto_core.replay.fresh import FreshValues
from rlauto_core.replay.values import MAX_DEPTH, SessionValues, scalars_of, walk

# response headers an agent may act on; everything else (cookies, tracing, servers) stays behind
KEPT_HEADERS = frozenset(
    {"content-type", "location", "content-location", "etag", "last-modified", "link", "allow", "retry-after"}
)
# what a later session shows anew; a total the server computed stays what the recording showed
MOVING = frozenset({"lock", "csrf", "nonce", "clock", "page_state"})
# a recorded secret after redaction: the session hands out its own instead
REDACTED = "[REDACTED]"


@dataclass
class Renderer:
    """Renders recorded answers for one call of a session."""

    values: SessionValues
    fresh: FreshValues
    ghost: Callable[[str], bool]  # a recorded value the session has no entity for
    made: set[str]  # values the server made: never treated as volatile
    call_subs: dict[str, Any] = field(default_factory=dict)  # recorded -> sent, this call only

    def leaf(self, path: str, value: Any) -> Any:
        if isinstance(value, _Handed):  # a token the app hands out: the session's own, never the recorded one
            shown = self.leaf(path, value.recorded)
            if str(shown) != value.recorded:
                return shown
            return self.values.volatile.setdefault(value.recorded, self.fresh.moved_on(value.recorded))
        if value is None or isinstance(value, bool):
            return value
        name = path.rsplit(".", 1)[-1]
        text = str(value)
        if text in self.call_subs:
            return self.call_subs[text]
        if text not in self.made and text not in self.values.ids and volatile_kind(path, value) in MOVING:
            return self.values.volatile.setdefault(text, self.fresh.moved_on(value))
        if isinstance(value, str) and "/" in value and value.startswith(("http://", "https://", "/")):
            return self.values.path(value)
        if value == REDACTED:
            return self.values.volatile.setdefault(f"{path}:{REDACTED}", self.fresh.token("s" * 24))
        return self.values.session_value(value, name)

    def drop(self, item: Any) -> bool:
        return any(self.ghost(str(s)) for s in scalars_of(item) if s is not None and not isinstance(s, bool))

    def json_value(self, value: Any) -> Any:
        return walk(_handed_out(value, redact_json(value)), self.leaf, self.drop)

    def body(self, text: str | None, encoding: str) -> str | None:
        if text is None or encoding != "text":
            return text
        stripped = text.lstrip()
        if stripped[:1] in ("{", "["):
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                return self.values.path(redact_body(text) or "")
            return json.dumps(self.json_value(parsed), ensure_ascii=False, separators=(",", ":"))
        return self.values.path(redact_body(text) or "")

    def headers(self, headers: list[Header]) -> list[Header]:
        kept: list[Header] = []
        for name, value in redact_headers(headers):
            lowered = name.lower()
            if lowered not in KEPT_HEADERS:
                continue
            if lowered in ("location", "content-location", "link"):
                value = self.values.path(value)
            elif lowered == "etag":
                value = str(self.values.volatile.setdefault(value, self.fresh.token(value)))
            kept.append((name, value))
        return kept


@dataclass(frozen=True)
class _Handed:
    """A recorded token that redaction removed (a CSRF token, a nonce): the session hands out its
    own in its place, moved on from this one, so the next write can send it back."""

    recorded: str


def _handed_out(original: Any, redacted: Any, path: str = "", depth: int = 0) -> Any:
    """`redacted`, with each moving token it removed marked for the session's own: a redacted
    token that moves on was answered as one "[REDACTED]" for every token, which no write could send
    back, and as text of another length than the app's."""
    if depth > MAX_DEPTH:
        return redacted
    if redacted == REDACTED and isinstance(original, str) and original != REDACTED:
        return _Handed(original) if volatile_kind(path, original) in MOVING else redacted
    if isinstance(original, dict) and isinstance(redacted, dict):
        return {
            k: _handed_out(original.get(k), v, f"{path}.{k}" if path else str(k), depth + 1)
            for k, v in redacted.items()
        }
    if isinstance(original, list) and isinstance(redacted, list) and len(original) == len(redacted):
        return [_handed_out(o, r, path, depth + 1) for o, r in zip(original, redacted, strict=True)]
    return redacted
