"""A session's values against the recording's: ids it made, content it wrote, volatile values.

`SessionValues` maps each recorded value the session has its own for (a fresh id its create got,
a title its write sent instead of the recorded one, a version moved on) and back: answers are the
recorded ones with these applied (`render`), calls are read back into the recording's terms to
find their exchange (`recorded`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.package.volatile import volatile_kind
from rlauto_core.redact import REDACTED, is_secret_field

_SEGMENT = re.compile(r"(?<=/)([^/?#\"'<\s]+)(?=[/?#\"'<\s]|$)")
MAX_DEPTH = 40


def _key(value: Any) -> str:
    return str(value)


@dataclass
class SessionValues:
    """Recorded value -> the session's (ids, content by field name, volatile) and session -> recorded."""

    ids: dict[str, Any] = field(default_factory=dict)  # recorded id -> the session's newest one
    back: dict[str, Any] = field(default_factory=dict)  # any session id -> the recorded one
    content: dict[tuple[str, str], Any] = field(default_factory=dict)  # (field name, recorded) -> session's
    volatile: dict[str, Any] = field(default_factory=dict)  # recorded volatile value -> session's

    def give(self, recorded: Any, fresh: Any) -> None:
        self.ids[_key(recorded)] = fresh
        self.back[_key(fresh)] = recorded

    def recorded(self, value: Any) -> Any:
        """A value the session sent, in the recording's terms (its own ids and versions mapped back)."""
        if isinstance(value, list):
            return [self.recorded(v) for v in value]
        if isinstance(value, dict | bool) or value is None:
            return value
        text = _key(value)
        if text in self.back:
            return self.back[text]
        for old, new in self.volatile.items():
            if _key(new) == text:
                return _typed(old, value)
        return value

    def session_value(self, value: Any, name: str) -> Any:
        """A recorded scalar as this session shows it (`name`: its field's own name)."""
        text = _key(value)
        if text in self.ids:
            return _typed(self.ids[text], value)
        if (name, text) in self.content:
            return self.content[(name, text)]
        return value

    def path(self, path: str) -> str:
        """Ids renamed where they are path segments (a URL, a Location, links of a page)."""
        if not self.ids:
            return path
        return _SEGMENT.sub(lambda m: str(self.ids.get(m.group(1), m.group(1))), path)


def _typed(new: Any, like: Any) -> Any:
    """`new` in the type of `like`: an id that was a number stays a number when it can."""
    if isinstance(like, int) and not isinstance(like, bool):
        try:
            return int(new)
        except (TypeError, ValueError):
            return new
    if isinstance(like, str):
        return str(new)
    return new


Leaf = Callable[[str, Any], Any]  # (dotted path, scalar) -> what the session shows


def walk(node: Any, leaf: Leaf, drop: Callable[[Any], bool], path: str = "", depth: int = 0) -> Any:
    """A JSON value with `leaf` applied to every scalar (also inside JSON held in strings) and list
    items `drop` refuses (an entity the session never made, or deleted) left out."""
    if depth > MAX_DEPTH:
        return node
    if isinstance(node, dict):
        return {k: walk(v, leaf, drop, f"{path}.{k}" if path else str(k), depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [walk(v, leaf, drop, path, depth + 1) for v in node if not (isinstance(v, dict) and drop(v))]
    if isinstance(node, str) and node.lstrip()[:1] in ("{", "["):
        try:
            inner = json.loads(node)
        except (ValueError, RecursionError):
            return leaf(path, node)
        return json.dumps(walk(inner, leaf, drop, path, depth + 1), ensure_ascii=False, separators=(",", ":"))
    return leaf(path, node)


def scalars_of(node: Any, depth: int = 0) -> list[Any]:
    """Every scalar of a JSON value (for the ghost test of a list item)."""
    if depth > MAX_DEPTH:
        return []
    if isinstance(node, dict):
        return [s for v in node.values() for s in scalars_of(v, depth + 1)]
    if isinstance(node, list):
        return [s for v in node for s in scalars_of(v, depth + 1)]
    return [node]


def is_volatile(path: str, value: Any) -> bool:
    return volatile_kind(path, value) is not None


def quotable(field: str, value: Any) -> Any:
    """`value`, sent under the dotted name `field`, as an error message may repeat it: a secret by
    its name (a CSRF token, a password) is not echoed back."""
    return REDACTED if is_secret_field(field.rsplit(".", 1)[-1], value) else value
