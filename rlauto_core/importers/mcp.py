"""`mcp_calls.json`: echo calls (object or bare array) or a JSON-RPC 2.0 message log (array or
JSON Lines, bare messages or {direction, timestamp, message} envelopes)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import (
    check_shape,
    expect_dict,
    load_json,
    load_json_lines,
    optional_number,
    optional_str,
    type_name,
)
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ToolCall

_ECHO_KNOWN = {"id", "server", "tool", "name", "arguments", "result", "isError", "startedAt", "durationMs"}


def parse_mcp_file(data: bytes | bytearray, file: str) -> list[ToolCall]:
    try:
        document: Any = load_json(data, file)
    except RecordingError as whole_error:
        # JSON Lines fails as one document with "Extra data" after its first line
        if b"\n" not in data.strip() or "Extra data" not in whole_error.problem:
            raise
        document = load_json_lines(data, file)
    return import_mcp(document, file)


def import_mcp(document: Any, file: str) -> list[ToolCall]:
    if isinstance(document, dict):
        if "calls" in document:
            document = document["calls"]
        elif "messages" in document:
            document = document["messages"]
        else:
            raise RecordingError(file, 'expected {"calls": [...]}, a list of calls, or a JSON-RPC message log')
    if not isinstance(document, list):
        raise RecordingError(file, f"calls must be an array, got {type_name(document)}")
    if any(isinstance(item, dict) and ("jsonrpc" in item or "message" in item) for item in document[:50]):
        return _jsonrpc(document, file)
    calls = [_echo_call(item, number, file) for number, item in enumerate(document)]
    seen: set[str] = set()
    for call in calls:
        if call.id in seen:
            raise RecordingError(file, f"call id {call.id!r} appears twice; ids must point at one call")
        seen.add(call.id)
    return calls


def _echo_call(item: Any, number: int, file: str) -> ToolCall:
    where = f"call {number}"
    item = expect_dict(item, file, where)
    call_id = optional_str(item.get("id"), file, f"{where}.id") or str(number)
    where = f"call {call_id}"
    tool = item.get("tool", item.get("name"))
    if not isinstance(tool, str) or not tool:
        raise RecordingError(file, f'{where} has no "tool"')
    arguments = item.get("arguments") or {}
    arguments = expect_dict(arguments, file, f"{where}.arguments")
    result = item.get("result")
    check_shape(arguments, file, f"{where}.arguments")
    check_shape(result, file, f"{where}.result")
    extra = {k: v for k, v in item.items() if k not in _ECHO_KNOWN}
    check_shape(extra, file, where)
    is_error = item.get("isError")
    if is_error is None and isinstance(result, dict):
        is_error = result.get("isError")
    return ToolCall(
        id=call_id,
        server=optional_str(item.get("server"), file, f"{where}.server"),
        tool=tool,
        arguments=arguments,
        result=result,
        is_error=bool(is_error),
        answered=result is not None or "result" in item,
        started_at=parse_timestamp(item.get("startedAt"), file, f"{where}.startedAt"),
        duration_ms=optional_number(item.get("durationMs"), file, f"{where}.durationMs"),
        extra=extra,
    )


def _jsonrpc(items: list[Any], file: str) -> list[ToolCall]:
    """Pair each `tools/call` request with its response by id; requests without one are kept."""
    pending: dict[str, tuple[ToolCall, datetime | None]] = {}
    other_requests: set[str] = set()
    calls: list[ToolCall] = []
    used_ids: set[str] = set()
    for number, item in enumerate(items):
        where = f"message {number}"
        item = expect_dict(item, file, where)
        timestamp = None
        server = None
        message = item
        if "message" in item and "jsonrpc" not in item:
            message = expect_dict(item["message"], file, f"{where}.message")
            timestamp = parse_timestamp(item.get("timestamp"), file, f"{where}.timestamp")
            server = optional_str(item.get("server"), file, f"{where}.server")
        raw_id = message.get("id")
        if raw_id is not None and (isinstance(raw_id, (bool, dict, list, float))):
            raise RecordingError(file, f"{where}: id must be a string or an integer, got {type_name(raw_id)}")
        key = None if raw_id is None else str(raw_id)
        method = message.get("method")
        if method is not None:
            if not isinstance(method, str):
                raise RecordingError(file, f"{where}: method must be a string")
            if key is None:
                continue  # a notification: nothing answers it
            if method != "tools/call":
                other_requests.add(key)
                continue
            params = expect_dict(message.get("params") or {}, file, f"{where}.params")
            tool = params.get("name")
            if not isinstance(tool, str) or not tool:
                raise RecordingError(file, f'{where}: tools/call request {key} has no "name"')
            arguments = expect_dict(params.get("arguments") or {}, file, f"{where}.params.arguments")
            check_shape(arguments, file, f"{where}.params.arguments")
            call_id = key
            suffix = 2
            while call_id in used_ids:  # ids reused across reconnects stay distinct
                call_id = f"{key}~{suffix}"
                suffix += 1
            used_ids.add(call_id)
            call = ToolCall(
                id=call_id, server=server, tool=tool, arguments=arguments, answered=False, started_at=timestamp
            )
            calls.append(call)
            pending[key] = (call, timestamp)
        elif "result" in message or "error" in message:
            if key is None:
                raise RecordingError(file, f"{where}: a response without an id")
            if key in other_requests:
                other_requests.discard(key)
                continue
            if key not in pending:
                raise RecordingError(file, f"{where}: response id {key} answers no request")
            call, started = pending.pop(key)
            result = message.get("result") if "result" in message else message.get("error")
            check_shape(result, file, f"{where}.result")
            call.result = result
            call.answered = True
            call.is_error = "error" in message or (isinstance(result, dict) and bool(result.get("isError")))
            if started is not None and timestamp is not None:
                call.duration_ms = (timestamp - started).total_seconds() * 1000
        else:
            raise RecordingError(file, f"{where}: neither a request nor a response: {json.dumps(message)[:80]}")
    return calls
