"""What changed between two task packages, value by value (no Streamlit).

A package is flattened into dotted paths. List members that carry an identity (`id`, else
`call_id`, else `step`) are addressed by it (`task.rubrics[rb2].title`), so a rubric inserted
in front of the others reads as one rubric added, not as every rubric after it changed."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel

IDENTITIES = ("id", "call_id", "step")
ChangeKind = Literal["added", "removed", "changed"]


class Change(BaseModel):
    path: str
    kind: ChangeKind
    before: str | None  # the value as JSON text; None where the path is absent
    after: str | None


def _member_name(index: int, member: Any, seen: set[str]) -> str:
    if isinstance(member, dict):
        for key in IDENTITIES:
            value = member.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and f"{key}={value}" not in seen:
                return f"{key}={value}"
    return str(index)


def _members(value: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, member in enumerate(value):
        out[_member_name(index, member, set(out))] = member
    return out


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _walk(before: Any, after: Any, path: str, found: list[Change]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        pairs: dict[str, tuple[Any, Any]] = {}
        missing = object()
        for key in sorted(before.keys() | after.keys(), key=str):
            pairs[f"{path}.{key}" if path else str(key)] = (before.get(key, missing), after.get(key, missing))
    elif isinstance(before, list) and isinstance(after, list):
        left, right = _members(before), _members(after)
        missing = object()
        pairs = {
            f"{path}[{name}]": (left.get(name, missing), right.get(name, missing))
            for name in [*left, *(n for n in right if n not in left)]
        }
    else:
        if before != after or type(before) is not type(after):
            found.append(Change(path=path or "$", kind="changed", before=_text(before), after=_text(after)))
        return
    for child, (old, new) in pairs.items():
        if old is missing:
            found.append(Change(path=child, kind="added", before=None, after=_text(new)))
        elif new is missing:
            found.append(Change(path=child, kind="removed", before=_text(old), after=None))
        else:
            _walk(old, new, child, found)


def changes(before: Any, after: Any) -> list[Change]:
    """Every difference, at the highest level it starts: a rubric added is one change, not five."""
    found: list[Change] = []
    _walk(before, after, "", found)
    return found
