"""What a call's answer offers, as (root, path, value): the response body's leaves and the values
an HTTP answer carries outside it, or an MCP result's structured content. The checkers read it
(`carried.py`) and so does the package (`package.dataflow` names it too); it lives here, below
`package`, so that no checker imports the package."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rlauto_core.checkers.views import parse_body, result_view, split_path
from rlauto_core.forms import answer_outputs
from rlauto_core.protocols import get_request
from rlauto_core.recording import Call, HttpCall

MAX_LEAVES = 400
MAX_DEPTH = 8


def leaves(
    value: Any, prefix: str = "", depth: int = 0, out: list[tuple[str, Any]] | None = None
) -> list[tuple[str, Any]]:
    """(dotted path, scalar) pairs of a JSON value; lists of scalars stay whole (order-free checks)."""
    found: list[tuple[str, Any]] = [] if out is None else out
    if len(found) >= MAX_LEAVES or depth > MAX_DEPTH:
        return found
    if isinstance(value, dict):
        for key, item in value.items():
            leaves(item, f"{prefix}.{key}" if prefix else str(key), depth + 1, found)
    elif isinstance(value, list) and value and not all(_is_scalar(v) for v in value):
        for index, item in enumerate(value):
            leaves(item, f"{prefix}.{index}" if prefix else str(index), depth + 1, found)
    elif prefix:
        found.append((prefix, value))
    return found


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def output_locations(call: Call) -> list[tuple[str, str, Any]]:
    """(root, path, value) of what the server answered; structured content before parsed text.
    HTTP answers also carry values outside the body: see rlauto_core.forms.outputs."""
    if isinstance(call, HttpCall):
        body = parse_body(call.response_body, call.response_body_encoding, call.header("content-type", response=True))
        found = [("response", p, v) for p, v in leaves(body)] if isinstance(body, dict | list) else []
        return found + answer_outputs(call)  # the Location, and what a read's HTML page offers
    view = result_view(call.result)
    if not isinstance(view, dict):
        return []
    ordered = {k: view[k] for k in ("structuredContent", "json") if k in view}
    return [("result", p, v) for p, v in leaves(ordered)]


def scalars(value: Any) -> list[Any]:
    """What a value holds: a list's items (a repeated form field, a listing), else the value itself."""
    return list(value) if isinstance(value, list) else [value]


@dataclass(frozen=True)
class Location:
    """One input value of a call: `root` is segment/query/request/arguments, `path` inside it."""

    root: str
    path: str
    value: Any


def input_locations(call: Call) -> list[Location]:
    """Every value the agent put into a call: path segments, query parameters, body/arguments."""
    if isinstance(call, HttpCall):
        found = [Location("segment", str(i), s) for i, s in enumerate(split_path(call.path))]
        graphql_get = get_request(call)
        if graphql_get is not None:  # a persisted query's GET sends what a POST sends in its body
            return found + [Location("request", p, v) for p, v in leaves(graphql_get)]
        found.extend(Location("query", k, v) for k, v in call.query)
        body = parse_body(call.request_body, call.request_body_encoding, call.header("content-type"))
        if isinstance(body, dict | list):
            found.extend(Location("request", p, v) for p, v in leaves(body))
        return found
    return [Location("arguments", p, v) for p, v in leaves(call.arguments)]
