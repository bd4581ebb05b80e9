"""SDK-level interceptor logs: records of client SDK calls (`call_tool`, `list_tools`...) with
their typed results, as an SDK wrapper around `ClientSession` writes them.

Two layouts:
- records, one per line (or an array): `{"type": "request", "timestamp", "count", "method",
  "args", "kwargs"}` then `{"type": "response", "timestamp", "count", "method", "result",
  "error"}`, paired by `count`. The call id is the recorded `count` (its position among the
  records when there is none);
- sessions holding their calls: `{"session_id", "server_info", "calls": [{"request": {"method",
  "args", "kwargs", "timestamp"}, "response": {"success", "result", "error", "timestamp"},
  "duration_ms"}]}`, one object, an array of them or one per line. The call id is the pair's
  0-based position in `calls`, prefixed by the session's position (`1:3`) when there are several.

Typed results carry the SDK's class names (`"_type": "CallToolResult"`); they are dropped so a
result reads as the MCP wire result. Only tool calls become calls; the other methods are skipped.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import (
    check_shape,
    expect_dict,
    expect_list,
    optional_number,
    optional_str,
    type_name,
)
from rlauto_core.importers.mcp_jsonrpc import orphan_note, unique_id
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ImportNote, ToolCall

TOOL_CALL_METHODS = frozenset({"call_tool", "callTool", "tools/call"})
_RECORD_TYPES = ("request", "response")


def is_record(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and item.get("type") in _RECORD_TYPES
        and "method" in item
        and not ({"jsonrpc", "message"} & item.keys())
    )


def is_session(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("calls"), list)
        and ("session_id" in item or "server_info" in item or _is_sdk_pair(item["calls"][0] if item["calls"] else None))
    )


def _is_sdk_pair(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("request"), dict)
        and "method" in item["request"]
        and "jsonrpc" not in item["request"]
    )


def import_records(items: list[Any], file: str) -> tuple[list[ToolCall], list[ImportNote]]:
    calls: list[ToolCall] = []
    used: set[str] = set()
    by_count: dict[str, tuple[ToolCall | None, datetime | None]] = {}
    # records without a count are answered in order, per method
    waiting: dict[str, deque[tuple[ToolCall | None, datetime | None]]] = {}
    orphans: list[str] = []
    for number, item in enumerate(items):
        where = f"record {number}"
        item = expect_dict(item, file, where)
        method = item.get("method")
        if not isinstance(method, str):
            raise RecordingError(file, f"{where}: method must be a string, got {type_name(method)}")
        count = optional_str(item.get("count"), file, f"{where}.count")
        stamp = parse_timestamp(item.get("timestamp"), file, f"{where}.timestamp")
        kind = item.get("type")
        if kind == "request":
            call = None
            if method in TOOL_CALL_METHODS:
                tool, arguments = _tool_and_arguments(item.get("args"), item.get("kwargs"), file, where)
                call = ToolCall(
                    id=unique_id(count or str(number), used), tool=tool, arguments=arguments,
                    answered=False, started_at=stamp,
                )  # fmt: skip
                calls.append(call)
            if count is None:
                waiting.setdefault(method, deque()).append((call, stamp))
            else:
                by_count[count] = (call, stamp)
            continue
        if kind != "response":
            raise RecordingError(file, f'{where}: type must be "request" or "response", got {kind!r}')
        if count is not None:
            opened = by_count.pop(count, None)
        else:
            queue = waiting.get(method)
            opened = queue.popleft() if queue else None
        if opened is None:
            orphans.append(count or f"record {number}")
            continue
        call, started = opened
        if call is not None:
            _answer(call, item.get("result"), item.get("error"), None, file, where)
            if started is not None and stamp is not None:
                call.duration_ms = (stamp - started).total_seconds() * 1000
    return calls, [orphan_note(file, orphans)] if orphans else []


def import_sessions(sessions: list[Any], file: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    used: set[str] = set()
    several = len(sessions) > 1
    for number, session in enumerate(sessions):
        where = f"session {number}" if several else "session"
        session = expect_dict(session, file, where)
        server = _server(session.get("server_info"), file, f"{where}.server_info")
        for position, pair in enumerate(expect_list(session.get("calls"), file, f"{where}.calls")):
            place = f"{where} call {position}"
            pair = expect_dict(pair, file, place)
            request = expect_dict(pair.get("request"), file, f"{place}.request")
            method = request.get("method")
            if not isinstance(method, str):
                raise RecordingError(file, f"{place}.request.method must be a string, got {type_name(method)}")
            if method not in TOOL_CALL_METHODS:
                continue
            tool, arguments = _tool_and_arguments(request.get("args"), request.get("kwargs"), file, place)
            call = ToolCall(
                id=unique_id(f"{number}:{position}" if several else str(position), used),
                server=server, tool=tool, arguments=arguments, answered=False,
                started_at=parse_timestamp(request.get("timestamp"), file, f"{place}.request.timestamp"),
            )  # fmt: skip
            response = pair.get("response")
            if response is not None:
                response = expect_dict(response, file, f"{place}.response")
                _answer(call, response.get("result"), response.get("error"), response.get("success"), file, place)
                call.duration_ms = optional_number(pair.get("duration_ms"), file, f"{place}.duration_ms")
            calls.append(call)
    return calls


def _tool_and_arguments(args: Any, kwargs: Any, file: str, where: str) -> tuple[str, dict[str, Any]]:
    """`call_tool(name, arguments)` (Python SDK) or `callTool({name, arguments})` (TypeScript)."""
    args = [] if args is None else expect_list(args, file, f"{where}.args")
    kwargs = {} if kwargs is None else expect_dict(kwargs, file, f"{where}.kwargs")
    first = args[0] if args else kwargs.get("name")
    if isinstance(first, dict) and "name" in first:
        tool, arguments = first.get("name"), first.get("arguments")
    else:
        tool = first
        arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
    if not isinstance(tool, str) or not tool:
        raise RecordingError(file, f"{where}: a tool call without a tool name (args {str(args)[:60]})")
    arguments = expect_dict(arguments or {}, file, f"{where}.arguments")
    check_shape(arguments, file, f"{where}.arguments")
    return tool, arguments


def _answer(call: ToolCall, result: Any, error: Any, success: Any, file: str, where: str) -> None:
    check_shape(result, file, f"{where}.result")
    check_shape(error, file, f"{where}.error")
    call.answered = True
    if error is not None:
        call.result = error
        call.is_error = True
        return
    call.result = untyped(result)
    call.is_error = success is False or (isinstance(call.result, dict) and bool(call.result.get("isError")))


def untyped(value: Any) -> Any:
    """The value without the SDK's `_type` class tags (depth is bounded by check_shape)."""
    if isinstance(value, dict):
        return {k: untyped(v) for k, v in value.items() if k != "_type"}
    if isinstance(value, list):
        return [untyped(v) for v in value]
    return value


def _server(info: Any, file: str, where: str) -> str | None:
    if not isinstance(info, dict):
        return None
    for key in ("name", "description", "url"):
        name = optional_str(info.get(key), file, f"{where}.{key}")
        if name:
            return name
    return None
