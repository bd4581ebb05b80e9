"""Changing one call of an attempt: aimed at another entity, or rebuilt with other fields (the
self-check's mutants, of the golden and of the recording)."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode

from rlauto_core.recording import Call, HttpCall


def _other(value: Any) -> Any:
    """A different id of the same shape: another entity."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 7919
    return f"{value}7"


def _swap_value(node: Any, old: str, new: Any) -> tuple[Any, bool]:
    if isinstance(node, dict):
        changed = False
        out: dict[str, Any] = {}
        for key, item in node.items():
            out[key], hit = _swap_value(item, old, new)
            changed |= hit
        return out, changed
    if isinstance(node, list):
        pairs = [_swap_value(item, old, new) for item in node]
        return [p[0] for p in pairs], any(p[1] for p in pairs)
    if not isinstance(node, bool) and isinstance(node, str | int | float) and str(node) == old:
        if isinstance(node, str):
            return new, True
        return (int(new) if isinstance(node, int) and str(new).isdigit() else _other(node)), True
    return node, False


def retarget(call: Call, value: str, to: str | None = None) -> Call | None:
    """The call aimed at another entity (`to`, else a fresh id of the same shape): every input naming
    `value` names the other one; None if none does."""
    new: Any = to if to is not None else _other(value)
    if isinstance(call, HttpCall):
        changed = False
        url = call.url
        pattern = re.compile(rf"(?<=[/=]){re.escape(value)}(?=[/?&#]|$)")
        if pattern.search(url):
            url, changed = pattern.sub(str(new), url), True
        body = call.request_body
        if body and call.request_body_encoding == "text":
            try:
                parsed, hit = _swap_value(json.loads(body), value, str(new))
                if hit:
                    body, changed = json.dumps(parsed), True
            except ValueError:
                swapped = _swap_form(body, value, str(new))
                if swapped is not None:
                    body, changed = swapped, True
        return rebuilt(call, url=url, request_body=body) if changed else None
    arguments, hit = _swap_value(call.arguments, value, str(new))
    return rebuilt(call, arguments=arguments) if hit else None


def _swap_form(body: str, value: str, new: str) -> str | None:
    """A form body with every field holding `value` given `new`: url-encoded (decoded to compare, so
    `Renew+the+status-page+domain` is found), or a multipart text part holding exactly it."""
    marker = f"\r\n\r\n{value}\r\n"
    if marker in body:
        return body.replace(marker, f"\r\n\r\n{new}\r\n")
    if "=" not in body or "\n" in body:
        return None
    pairs = parse_qsl(body, keep_blank_values=True)
    if not any(v == value for _, v in pairs):
        return None
    return urlencode([(k, new if v == value else v) for k, v in pairs])


def rebuilt(call: Call, **changes: Any) -> Call:
    """A changed copy built afresh: `model_copy` would keep values a call caches from its url."""
    return type(call).model_validate({**call.model_dump(), **changes})
