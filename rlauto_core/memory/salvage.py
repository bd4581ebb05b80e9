"""A model's JSON answer, salvaged object by object when it was cut off.

A distillation answer is one object such as `{"recipe": {...}, "actions": [{...}, {...}]}`. When
the model ran out of tokens in the middle, everything that was complete is kept: each member
of the top-level object whose value closed, and, in a list, each element that closed; the cut
one (and anything after it) is dropped and counted. A cut value is never "repaired" into
something the model did not say (a half recipe is not a recipe). A value that closed but has
small syntax slips (a trailing comma, single quotes) goes through json-repair.
"""

from __future__ import annotations

import json
import re
from typing import Any

import json_repair
from pydantic import BaseModel, Field

_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
MAX_ANSWER_CHARS = 200_000


class Salvaged(BaseModel):
    value: dict[str, Any] = Field(default_factory=dict)
    complete: bool = False
    dropped: int = 0  # values cut off by the end of the answer


def _skip(text: str, pos: int, chars: str = " \t\r\n") -> int:
    while pos < len(text) and text[pos] in chars:
        pos += 1
    return pos


def _string_end(text: str, pos: int) -> int | None:
    """`text[pos]` opens a string: the index after its closing quote, or None if cut."""
    i = pos + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return None


def _value_end(text: str, pos: int) -> int | None:
    """The index just after the JSON value starting at `pos`, or None when the text ends first."""
    if pos >= len(text):
        return None
    opening = text[pos]
    if opening == '"':
        return _string_end(text, pos)
    if opening not in "{[":
        match = _SCALAR.match(text, pos)
        if match is None or match.end() >= len(text):
            return None  # `12` at the very end may have been `125`
        return match.end()
    depth, i = 0, pos
    while i < len(text):
        ch = text[i]
        if ch == '"':
            end = _string_end(text, i)
            if end is None:
                return None
            i = end
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _load(span: str) -> Any:
    try:
        return json.loads(span)
    except (ValueError, RecursionError):
        pass
    try:
        return json_repair.loads(span)
    except (ValueError, RecursionError, TypeError, IndexError):
        return None


def _members(text: str, pos: int, out: Salvaged) -> None:
    """The members of the top-level object from `pos` (just after its `{`), while they close."""
    while True:
        pos = _skip(text, pos, " \t\r\n,")
        if pos >= len(text) or text[pos] == "}":
            return
        if text[pos] != '"':
            out.dropped += 1
            return
        key_end = _string_end(text, pos)
        if key_end is None:
            out.dropped += 1
            return
        key = json.loads(text[pos:key_end])
        pos = _skip(text, key_end)
        if pos >= len(text) or text[pos] != ":":
            out.dropped += 1
            return
        pos = _skip(text, pos + 1)
        if pos < len(text) and text[pos] == "[":
            items, pos, cut = _elements(text, pos + 1, out)
            out.value[key] = items
            if cut:
                return
            continue
        end = _value_end(text, pos)
        if end is None:
            out.dropped += 1
            return
        out.value[key] = _load(text[pos:end])
        pos = end


def _elements(text: str, pos: int, out: Salvaged) -> tuple[list[Any], int, bool]:
    """The elements of a list from `pos` (after `[`) that closed; True when the list was cut."""
    items: list[Any] = []
    while True:
        pos = _skip(text, pos, " \t\r\n,")
        if pos >= len(text):
            return items, pos, True
        if text[pos] == "]":
            return items, pos + 1, False
        end = _value_end(text, pos)
        if end is None:
            out.dropped += 1
            return items, pos, True
        value = _load(text[pos:end])
        if value is not None:
            items.append(value)
        pos = end


def salvage(text: str) -> Salvaged:
    """Everything complete in a JSON object answer (plain, fenced or inside chatter)."""
    out = Salvaged()
    cleaned = _THINK.sub("", text[:MAX_ANSWER_CHARS])
    start = cleaned.find("{")
    if start < 0:
        return out
    end = _value_end(cleaned, start)
    if end is not None:
        whole = _load(cleaned[start:end])
        if isinstance(whole, dict):
            return Salvaged(value=whole, complete=True)
    try:
        _members(cleaned, start + 1, out)
    except RecursionError:
        out.dropped += 1
    return out
