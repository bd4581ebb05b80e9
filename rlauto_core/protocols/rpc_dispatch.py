"""RPC dispatchers: one JSON-RPC method that calls another by name, with positional arguments.

Odoo's external API sends every call as `{"jsonrpc": "2.0", "method": "call", "params":
{"service": "object", "method": "execute_kw", "args": [db, uid, password, model, method,
positional, keywords]}}`: `execute_kw(..., "product.pricelist", "search_read", ...)` reads and
`execute_kw(..., "product.pricelist", "write", [[4], {"active": false}])` writes pricelist 4. What
such a call does is the inner method's name, on the model it names, and the records it acts on
are the ids its first positional argument lists.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.protocols.jsontext import json_value
from rlauto_core.recording import HttpCall

DISPATCHERS = frozenset({"execute_kw", "execute"})
MAX_BODY = 5_000_000


def rpc_payload(body: str | None, marker: str = '"jsonrpc"') -> dict[str, Any] | None:
    """A JSON-RPC request body as an object (`marker` must show in its head), else None."""
    if not body or marker not in body[:2000]:
        return None
    payload = json_value(body, MAX_BODY)
    return payload if isinstance(payload, dict) else None


def _arguments(payload: dict[str, Any] | None) -> tuple[str, list[Any]] | None:
    """(the dispatcher's name, its positional arguments) of a dispatching JSON-RPC request body."""
    params = payload.get("params") if payload is not None else None
    inner = params.get("method") if isinstance(params, dict) else None
    args = params.get("args") if isinstance(params, dict) else None
    if inner not in DISPATCHERS or not isinstance(args, list) or len(args) < 5:
        return None
    if not isinstance(args[3], str) or not isinstance(args[4], str):
        return None
    return str(inner), args


def dispatched_method(payload: dict[str, Any] | None) -> str | None:
    """The model's method a dispatching request body runs (`search_read`, `write`), else None."""
    found = _arguments(payload)
    return str(found[1][4]) if found is not None else None


def dispatch_fields(call: HttpCall) -> dict[str, str]:
    """The request fields that say which call this is: dispatcher, model, method (for matchers
    that must tell a pricelist's `write` from a currency's `search_read` on the same route)."""
    found = _arguments(rpc_payload(call.request_body) if call.request_body_encoding == "text" else None)
    if found is None:
        return {}
    inner, args = found
    return {"params.method": inner, "params.args.3": str(args[3]), "params.args.4": str(args[4])}


def dispatched_records(payload: dict[str, Any] | None) -> tuple[str, list[int]] | None:
    """(model, ids) a dispatching request body acts on: its first positional argument's ids."""
    found = _arguments(payload)
    if found is None or len(found[1]) < 6 or not isinstance(found[1][5], list) or not found[1][5]:
        return None
    first = found[1][5][0]
    ids = first if isinstance(first, list) else [first]
    if not ids or not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return None
    return str(found[1][3]), ids
