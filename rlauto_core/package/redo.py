"""A redo of the golden trajectory: the same task done again, where the server hands out other ids.

Every value the server invented (dataflow.invented_values) becomes another one, in the answers
that created it, in later calls that use it and in the database diff. A package whose checkers
pin such a value would fail this redo: the self-check reports it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlauto_core.evidence.build import build_evidence
from rlauto_core.package.calls import attempt_from_calls
from rlauto_core.package.dataflow import invented_values
from rlauto_core.recording import Call, DbDiff, HttpCall, Recording


def _new_id(value: Any) -> Any:
    """Another id of the same shape; digits stay digits so `128` and `"128"` move together."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 104_729
    if isinstance(value, str) and value.isdigit():
        return str(int(value) + 104_729)
    return f"{value}r9"


def _swap(node: Any, mapping: dict[str, str], depth: int = 0) -> Any:
    """Mapped ids replaced in a JSON value, also inside JSON held in strings (tool text content)."""
    if depth > 32:
        return node
    if isinstance(node, dict):
        return {k: _swap(v, mapping, depth + 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_swap(v, mapping, depth + 1) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int | float) and str(node) in mapping:
        return _new_id(node)
    if isinstance(node, str):
        if node in mapping:
            return mapping[node]
        if node.lstrip()[:1] in ("{", "["):
            try:
                return json.dumps(_swap(json.loads(node), mapping, depth + 1), ensure_ascii=False)
            except (ValueError, RecursionError):
                return node
    return node


def _swap_text(text: str | None, encoding: str, mapping: dict[str, str]) -> str | None:
    if text is None or encoding != "text":
        return text
    try:
        return json.dumps(_swap(json.loads(text), mapping), ensure_ascii=False)
    except (ValueError, RecursionError):
        for old, new in mapping.items():
            text = re.sub(rf"(?<==){re.escape(old)}(?=&|$)", new, text)
        return text


def _swap_call(call: Call, mapping: dict[str, str]) -> Call:
    data = call.model_dump()
    if isinstance(call, HttpCall):
        url = call.url
        for old, new in mapping.items():
            url = re.sub(rf"(?<=[/=]){re.escape(old)}(?=[/?&#]|$)", new, url)
        data["url"] = url
        data["request_body"] = _swap_text(call.request_body, call.request_body_encoding, mapping)
        data["response_body"] = _swap_text(call.response_body, call.response_body_encoding, mapping)
    else:
        data["arguments"] = _swap(call.arguments, mapping)
        data["result"] = _swap(call.result, mapping)
    return type(call).model_validate(data)


def redo_attempt(golden: Recording) -> Recording | None:
    """The golden attempt with every server-invented id replaced; None when the server invented none."""
    invented = invented_values(golden, build_evidence(golden))
    if not invented:
        return None
    mapping = {value: str(_new_id(value)) for value in invented}
    calls = [_swap_call(call, mapping) for call in golden.calls]
    redo = attempt_from_calls(golden, calls, "redo", golden.mode)
    if golden.dbdiff is not None:
        redo.dbdiff = DbDiff.model_validate(_swap(golden.dbdiff.model_dump(mode="json"), mapping))
    return redo
