"""Entities the instruction reaches: never strays, whatever the main entity is.

An instruction may act on two entities of one kind ("create the new deploy key, then revoke the
old 'CI runner' key"). The main entity is the new one, and a write on the other (same kind of id,
another value) looked like collateral damage. It is not when the instruction names it: by its id,
or by what the app calls it (its name, title, label, key or tag as an answer showed it, in a
listing, in the read of it, or in the write's own answer).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from rlauto_core.checkers.views import result_view
from rlauto_core.evidence.classify import name_tokens
from rlauto_core.evidence.entities import canonical_key
from rlauto_core.package.volatile import told_values
from rlauto_core.recording import Call, HttpCall, Recording

# the words of a field that says what an entity is called
_NAMING = frozenset(
    ["name", "title", "label", "summary", "subject", "key", "slug", "handle", "login", "username", "email", "filename",
     "tag", "display", "nickname", "alias", "code", "number", "version", "release", "identifier", "ref"]
)  # fmt: skip
_MAX_NODES = 20_000
_MAX_DEPTH = 10
_SPACE = re.compile(r"\s+")


def _answer(call: Call) -> Any:
    """The parsed JSON of a call's answer (an MCP result's structured content or JSON text)."""
    if isinstance(call, HttpCall):
        body = call.response_body
        if not body or call.response_body_encoding != "text" or body.lstrip()[:1] not in ("{", "["):
            return None
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None
    view = result_view(call.result)
    return [view[k] for k in ("structuredContent", "json") if isinstance(view, dict) and k in view] or None


def _objects(node: Any, depth: int = 0, budget: list[int] | None = None) -> Iterable[dict[str, Any]]:
    budget = budget if budget is not None else [_MAX_NODES]
    if depth > _MAX_DEPTH or budget[0] <= 0:
        return
    budget[0] -= 1
    if isinstance(node, dict):
        yield node
        for value in node.values():
            if isinstance(value, dict | list):
                yield from _objects(value, depth + 1, budget)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict | list):
                yield from _objects(item, depth + 1, budget)


def _ids(obj: dict[str, Any]) -> list[str]:
    return [
        str(v)
        for k, v in obj.items()
        if isinstance(k, str)
        and (k.lower() in ("id", "_id", "uuid", "gid") or canonical_key(k) is not None)
        and isinstance(v, str | int)
        and not isinstance(v, bool)
    ]


def _names(obj: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for key, value in obj.items():
        if not isinstance(key, str) or not isinstance(value, str) or not 2 <= len(value.strip()) <= 200:
            continue
        if set(name_tokens(key)) & _NAMING:
            found.append(value.strip())
    return found


def listed_with(value: str, recording: Recording) -> list[str]:
    """Other ids listed beside this one in an answer (the keys of the same listing): its siblings."""
    found: list[str] = []
    for call in recording.calls:
        for obj in _objects(_answer(call)):
            for items in obj.values():
                if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
                    continue
                keys = [k for i in items for k, v in i.items() if str(v) == value and k in _ids_keys(i)]
                if keys:
                    found += [str(i[keys[0]]) for i in items if keys[0] in i and str(i[keys[0]]) != value]
    return list(dict.fromkeys(found))


def _ids_keys(obj: dict[str, Any]) -> set[str]:
    return {k for k in obj if isinstance(k, str) and (k.lower() in ("id", "_id", "uuid", "gid") or canonical_key(k))}


def descriptions(recording: Recording) -> dict[str, set[str]]:
    """Entity id -> what the recording's answers call it (names, titles, keys, tags)."""
    found: dict[str, set[str]] = {}
    for call in recording.calls:
        for obj in _objects(_answer(call)):
            names = _names(obj)
            if not names:
                continue
            for value in _ids(obj):
                found.setdefault(value, set()).update(n for n in names if n != value)
    return found


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text.lower()).strip()


_QUOTED = re.compile(r"'[^']{1,200}'|\"[^\"]{1,200}\"|‘[^’]{1,200}’|“[^”]{1,200}”|「[^」]{1,200}」")


def _mentions(instruction: str, told: set[str], name: str) -> bool:
    """Does the instruction say this name: a quoted string or a word of it, or the phrase in its text
    outside quotes (a quoted 'CI runner 2026' names the new key, not the old 'CI runner')?"""
    if name in told:
        return True
    wanted = _normal(name)
    if len(wanted) < 3 or not any(ch.isalpha() for ch in wanted):
        return wanted in {_normal(t) for t in told}
    unquoted = _normal(_QUOTED.sub(" | ", instruction))
    return re.search(rf"(?<![\w-]){re.escape(wanted)}(?![\w-])", unquoted) is not None


def reached(value: str, recording: Recording, names: dict[str, set[str]] | None = None) -> bool:
    """Does the instruction name this entity: its id, or what an answer calls it?"""
    instruction = recording.task.instruction or ""
    if not instruction.strip():
        return False
    told = told_values(instruction)
    if _mentions(instruction, told, value):
        return True
    known = names if names is not None else descriptions(recording)
    return any(_mentions(instruction, told, name) for name in known.get(value, ()))
