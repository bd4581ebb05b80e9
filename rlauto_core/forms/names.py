"""Form field names as paths, the way server frameworks read them.

Rack/Rails and PHP nest by brackets (`ticket[subject]`, `items[0][qty]`, `tags[]` appends,
`items[][qty]` starts a new row when a key repeats); Spring and ASP.NET model binding nest by
dots (`address.city`, `Items[0].Qty`). Repeated plain names (`tag=a&tag=b`) become lists, as
Django's `getlist` reads them. Index-only levels (`0`, `1`, ...) become lists, so a form reads
like the JSON body an API would have taken. Rails' nested attributes (`fields_for`:
`ticket[tasks_attributes][1718123456789][title]`) are rows whatever their keys: a row a script
added is keyed by the browser's clock (`Date.now()`), another day's attempt by another, so the
keys say nothing and the rows are a list in the order sent. Other numeric keys stay keys
(`qty[4411]=2`: a product's id is data).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# Deeper names are refused, as Rack (100) and PHP (`max_input_nesting_level` 64) refuse them.
MAX_DEPTH = 32
_PART = re.compile(r"\[([^\[\]]*)\]|\.([^.\[\]]+)")
_POSITION = re.compile(r"0|[1-9][0-9]{0,8}")  # ASCII digits only: `²` is no position
_ROW_KEY = re.compile(r"[0-9]{1,20}")  # a nested-attributes row's key: an index or a clock's reading
_NESTED_ATTRIBUTES = "_attributes"


class ShapeConflict(ValueError):
    """Two names disagree on what one level is (`a=1&a[b]=2`): the form is kept flat."""


def name_path(name: str) -> list[str] | None:
    """`items[0][qty]` -> [items, 0, qty]; `tags[]` -> [tags, ""]; `a.b` -> [a, b]. A name that
    does not parse (an unclosed bracket, an empty head) is one key; None when it nests too deep."""
    head_end = min((i for i in (name.find("["), name.find(".")) if i > 0), default=len(name))
    path = [name[:head_end]]
    position = head_end
    while position < len(name):
        match = _PART.match(name, position)
        if match is None:
            return [name]
        path.append(match.group(1) if match.group(1) is not None else match.group(2))
        position = match.end()
        if len(path) > MAX_DEPTH:
            return None
    return path


def field_path(name: str) -> str:
    """A form field's name as the dotted path checkers use: `ticket[subject]` -> `ticket.subject`."""
    return ".".join(name_path(name) or [name])


def nest(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any] | None:
    """Fields as nested values (leaves are anything but dicts and lists); None when a name nests
    past MAX_DEPTH. Names whose shapes conflict keep the whole form flat, so nothing is lost."""
    pairs = list(pairs)
    root: dict[str, Any] = {}
    try:
        for name, value in pairs:
            path = name_path(name)
            if path is None:
                return None
            _place(root, path, value)
    except ShapeConflict:
        return flat(pairs)
    return {key: _listed(value, key) for key, value in root.items()}  # the top level stays named fields


def flat(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Each name its own key; a repeated name a list of its values."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        _add(out, name, value)
    return out


def _add(node: dict[str, Any], key: str, value: Any) -> None:
    """A leaf at `key`; a repeated name turns into a list of its values."""
    if key not in node:
        node[key] = value
        return
    existing = node[key]
    rows = existing if isinstance(existing, list) else [existing]
    if any(isinstance(v, dict) for v in rows):
        raise ShapeConflict(key)
    if isinstance(existing, list):
        existing.append(value)
    else:
        node[key] = [existing, value]


def _place(node: dict[str, Any], path: list[str], value: Any) -> None:
    key, rest = path[0], path[1:]
    if not rest:
        _add(node, key, value)
        return
    if rest[0] == "":  # `key[]` appends; `key[][field]` fills the last row or starts a new one
        rows = node.setdefault(key, [])
        if not isinstance(rows, list):
            raise ShapeConflict(key)
        if len(rest) == 1:
            rows.append(value)
            return
        last = rows[-1] if rows else None
        if not isinstance(last, dict) or _holds(last, rest[1:]):
            last = {}
            rows.append(last)
        _place(last, rest[1:], value)
        return
    child = node.setdefault(key, {})
    if not isinstance(child, dict):
        raise ShapeConflict(key)
    _place(child, rest, value)


def _holds(node: dict[str, Any], path: list[str]) -> bool:
    """Does `node` already hold a value at `path` (then a repeated `items[][qty]` is a new row)?"""
    for key in path:
        if key == "" or not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return True


def _listed(value: Any, name: str = "") -> Any:
    """Levels keyed `0..n-1` become lists, in index order; so do the rows of Rails' nested
    attributes (`<name>_attributes`, numeric keys of any size), in the order sent; other keys stay."""
    if isinstance(value, list):
        return [_listed(v) for v in value]
    if not isinstance(value, dict):
        return value
    items = {k: _listed(v, k) for k, v in value.items()}
    if items and all(_POSITION.fullmatch(k) or _ROW_KEY.fullmatch(k) for k in items):
        if name.endswith(_NESTED_ATTRIBUTES) and all(isinstance(v, dict) for v in items.values()):
            return list(items.values())
        if all(_POSITION.fullmatch(k) for k in items):
            indexes = sorted(int(k) for k in items)
            if indexes == list(range(len(indexes))):
                return [items[str(i)] for i in indexes]
    return items
