"""Did a call succeed? Decided in one place, as its protocol says.

The status first (no answer, or 4xx/5xx, fails), then the protocol's own error signal, which many
APIs send inside a 200:
- GraphQL: an `errors` array with the operation's payload null or missing, or a payload whose
  `userErrors`/`errors` list is not empty (Shopify, Saleor);
- JSON-RPC 2.0: an `error` object;
- `{"ok": false}` / `{"success": false}` APIs (Slack and many others), JSend's `status: fail|error`;
- a bulk answer with `errors: true` (Elasticsearch `_bulk`), each failed item saying why;
- a server-rendered form re-rendered with its errors where the create's redirect was expected
  (rlauto_core.forms.failure_reasons);
- MCP: `isError`, no answer, or a structured result saying `ok: false`.
The rules (a failed write is never golden), the checkers (a call "succeeds" only if this says
so) and the evidence the model sees all ask here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rlauto_core.forms import failure_reasons
from rlauto_core.protocols.graphql import Operation, operation_of
from rlauto_core.recording import HttpCall, ToolCall

MAX_ANSWER = 2_000_000
_BULK_OPS = ("index", "create", "update", "delete")
_JSEND_KEYS = frozenset({"status", "message", "data", "code"})


def _json(body: str | None, encoding: str = "text") -> Any:
    if not body or encoding != "text" or len(body) > MAX_ANSWER or body[:64].lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _message(error: Any) -> str:
    if isinstance(error, dict):
        text = error.get("message") or error.get("reason") or error.get("type") or error.get("code")
        extensions = error.get("extensions")
        code = extensions.get("code") if isinstance(extensions, dict) else None
        shown = str(text) if text is not None else json.dumps(error, ensure_ascii=False)[:120]
        return f"{shown} ({code})" if code and str(code) not in shown else shown
    return str(error)[:200]


def graphql_failure(answer: Any, operation: Operation) -> str | None:
    """Why a GraphQL answer says its operation failed, or None."""
    if not isinstance(answer, dict):
        return None
    errors = answer.get("errors")
    data = answer.get("data")
    payload = data.get(operation.field) if isinstance(data, dict) and operation.field else None
    if isinstance(errors, list) and errors:
        if not isinstance(data, dict) or (operation.field and payload is None):
            return f"GraphQL errors: {_message(errors[0])}"
        if not operation.field and all(v is None for v in data.values()):
            return f"GraphQL errors: {_message(errors[0])}"
        for error in errors:  # partial data: another root field of the operation failed (`addReply: null`)
            path = error.get("path") if isinstance(error, dict) else None
            if isinstance(path, list) and path and isinstance(path[0], str) and data.get(path[0], 0) is None:
                return f"GraphQL errors: {path[0]}: {_message(error)}"
    if isinstance(payload, dict):
        for key in ("userErrors", "errors"):
            problems = payload.get(key)
            if isinstance(problems, list) and problems:
                return f"{operation.label} {key}: {_message(problems[0])}"
    return None


def _bulk_failure(answer: dict[str, Any]) -> str | None:
    items = answer.get("items")
    failed: list[str] = []
    total = 0
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        for op in _BULK_OPS:
            result = item.get(op)
            if isinstance(result, dict):
                total += 1
                if result.get("error") is not None or (
                    isinstance(result.get("status"), int) and result["status"] >= 400
                ):
                    failed.append(_message(result.get("error") or result.get("status")))
    first = f" ({failed[0]})" if failed else ""
    return f"the bulk answer reports errors: {len(failed)} of {total} items failed{first}"


def body_failure(answer: Any) -> str | None:
    """The error signals any JSON API sends in a 2xx: JSON-RPC, ok/success false, JSend, bulk."""
    if isinstance(answer, list):
        reasons = [r for item in answer if (r := body_failure(item)) is not None]
        return f"{len(reasons)} of {len(answer)} answers failed: {reasons[0]}" if reasons else None
    if not isinstance(answer, dict):
        return None
    if "jsonrpc" in answer and answer.get("error") is not None:
        error = answer["error"]
        code = error.get("code") if isinstance(error, dict) else None
        return f"JSON-RPC error{f' {code}' if code is not None else ''}: {_message(error)}"
    for key in ("ok", "success"):
        if answer.get(key) is False:
            why = answer.get("error") or answer.get("message") or answer.get("errors")
            return f"{key}: false" + (f" ({_message(why)})" if why else "")
    status = answer.get("status")
    if status in ("fail", "error") and set(answer) <= _JSEND_KEYS and len(answer) > 1:
        why = answer.get("message") or answer.get("data")
        return f"status: {status}" + (f" ({_message(why)})" if why else "")
    if answer.get("errors") is True:
        return _bulk_failure(answer)
    for key in ("errcode", "err_code", "error_code"):  # WeCom, WeChat, DingTalk: 0 is success
        code = answer.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            why = answer.get("errmsg") or answer.get("error_msg") or answer.get("msg")
            return f"{key} {code}" + (f" ({str(why)[:120]})" if why else "")
    code = answer.get("code")  # Feishu / Lark: `{"code": 99991400, "msg": "..."}`, 0 is success
    if isinstance(code, int) and not isinstance(code, bool) and code != 0 and isinstance(answer.get("msg"), str):
        return f"code {code} ({answer['msg'][:120]})"
    return None


_SIGNAL = re.compile(r'"(?:error|ok"|success"|status"|errcode|err_code|msg")')
_SMALL = 4096


def _may_say_failure(call: HttpCall, body: str) -> bool:
    """Could this answer hold a protocol's error signal? Only then is it parsed: a write's answer or
    an RPC's, or a small answer naming a signal (a big listing a read answered is never one). The
    signals sit at an answer's top level, so its head and tail are enough to look at."""
    writes = call.method.upper() in ("POST", "PUT", "PATCH", "DELETE")
    if not writes and len(body) > _SMALL:
        return False
    if len(body) <= 2 * _SMALL:
        return _SIGNAL.search(body) is not None
    return _SIGNAL.search(body, 0, _SMALL) is not None or _SIGNAL.search(body, len(body) - _SMALL) is not None


_UNKNOWN: Any = object()


def http_failure(call: HttpCall, form_reason: str | None = None, operation: Any = _UNKNOWN) -> str | None:
    """Why an HTTP call failed, or None: its status, a form's errors, then its protocol's signal
    (`operation`: the call's GraphQL operation when the caller has it already)."""
    if call.status is None:
        return "no answer"
    if form_reason is not None:
        return form_reason
    if call.status >= 400:
        return f"HTTP {call.status}"
    if call.status >= 300:
        return None
    if operation is _UNKNOWN:
        operation = operation_of(call)
    body = call.response_body
    if not body or (operation is None and not _may_say_failure(call, body)):
        return None
    answer = _json(body, call.response_body_encoding)
    if answer is None:
        return None
    return graphql_failure(answer, operation) if operation is not None else body_failure(answer)


def tool_failure(call: ToolCall) -> str | None:
    if not call.answered:
        return "no answer"
    if call.is_error:
        return "the tool answered an error (isError)"
    result = call.result if isinstance(call.result, dict) else {}
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        return body_failure(structured)
    for item in result.get("content") or []:
        if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
            return body_failure(_json(item["text"]))
    return None


def http_failures(calls: Sequence[HttpCall], operations: dict[str, Operation | None] | None = None) -> dict[str, str]:
    """Call id -> why it failed, for every failed call of a recording's (or an attempt's) HTTP calls
    (`operations`: each call's GraphQL operation, when the caller has them already)."""
    forms = failure_reasons(list(calls))  # a form re-rendered with its errors, a redirect back to it
    found: dict[str, str] = {}
    for call in calls:
        known = operations.get(call.id, _UNKNOWN) if operations is not None else _UNKNOWN
        reason = http_failure(call, forms.get(call.id), known)
        if reason is not None:
            found[call.id] = reason
    return found
