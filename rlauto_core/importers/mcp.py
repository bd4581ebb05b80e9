"""MCP captures: what `mcp_calls.json` (or a bare capture file) may hold, recognised by shape.

- echo calls: `{"version": 1, "calls": [...]}` or a bare array of calls;
- a JSON-RPC 2.0 message log (array or JSON Lines), bare or in {direction, timestamp, message}
  envelopes; the MCP Inspector's history export is such a list with `response` in place;
- recorder cassettes: an `interactions` list (mcp-recorder, agent-vcr);
- SDK interceptor logs: request/response records (JSON Lines) or sessions holding their calls;
- client log lines: `<timestamp> [server] [level] Message from client|server: {...}`.
Anything else is refused with what was found and what is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
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
from rlauto_core.importers.mcp_cassette import import_cassette, is_cassette
from rlauto_core.importers.mcp_clientlog import import_client_log, is_client_log
from rlauto_core.importers.mcp_jsonrpc import import_jsonrpc_log, looks_like_jsonrpc_log
from rlauto_core.importers.mcp_sdk import import_records, import_sessions, is_record, is_session
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ImportNote, ToolCall

ACCEPTED = (
    'accepted: echo list, JSON-RPC log, cassette with "interactions", SDK call log, client log lines, Inspector history'
)
_ECHO_KNOWN = {"id", "server", "tool", "name", "arguments", "result", "isError", "startedAt", "durationMs"}
_BOM = b"\xef\xbb\xbf"


class UnknownCapture(RecordingError):
    """The bytes are readable but hold no capture format we know (the message lists them)."""

    def __init__(self, file: str, found: str) -> None:
        self.found = found
        super().__init__(file, f"{found} is no MCP capture format we know; {ACCEPTED}")


@dataclass
class McpCapture:
    calls: list[ToolCall]
    notes: list[ImportNote] = field(default_factory=list)


def parse_mcp_file(data: bytes | bytearray, file: str) -> McpCapture:
    """Read the bytes as JSON, JSON Lines or client log text, then import by shape."""
    body = bytes(data).lstrip(b" \t\r\n")
    if body.startswith(_BOM):
        body = body[3:].lstrip(b" \t\r\n")
    if not body:
        raise RecordingError(file, "file is empty")
    if body[:1] not in (b"{", b"["):
        return _from_text(body, file)
    try:
        document: Any = load_json(data, file)
    except RecordingError as whole_error:
        # JSON Lines fails as one document with "Extra data" after its first line
        if b"\n" not in body.rstrip() or "Extra data" not in whole_error.problem:
            raise
        return import_mcp(load_json_lines(data, file), file)
    return import_mcp(document, file)


def import_mcp(document: Any, file: str) -> McpCapture:
    if isinstance(document, dict):
        return _from_object(document, file)
    if not isinstance(document, list):
        raise UnknownCapture(file, _found(document))
    if not document:
        return McpCapture([])
    if looks_like_jsonrpc_log(document):
        return McpCapture(*import_jsonrpc_log(document, file))
    first = document[0]
    if is_record(first):
        return McpCapture(*import_records(document, file))
    if is_session(first):
        return McpCapture(import_sessions(document, file))
    if isinstance(first, dict) and "interactions" in first:
        return _concatenated_cassettes(document, file)
    if isinstance(first, dict) and not ({"tool", "name"} & first.keys()):
        raise UnknownCapture(file, _found(document))
    return McpCapture(_echo_calls(document, file))


def _from_object(document: dict[str, Any], file: str) -> McpCapture:
    if is_cassette(document):
        return McpCapture(*import_cassette(document, file))
    if is_session(document):
        return McpCapture(import_sessions([document], file))
    if is_record(document):
        return McpCapture(*import_records([document], file))  # a log of one record
    if "calls" in document:
        calls = document["calls"]
        if not isinstance(calls, list):
            raise RecordingError(file, f"calls must be an array, got {type_name(calls)}")
        return McpCapture(_echo_calls(calls, file))
    if "messages" in document:
        messages = document["messages"]
        if not isinstance(messages, list):
            raise RecordingError(file, f"messages must be an array, got {type_name(messages)}")
        return McpCapture(*import_jsonrpc_log(messages, file))
    if "jsonrpc" in document or isinstance(document.get("message"), dict):
        return McpCapture(*import_jsonrpc_log([document], file))  # a log of one message
    if isinstance(document.get("log"), dict):
        raise RecordingError(file, 'is a HAR file (a "log" object): HTTP traffic belongs in network.json or *.har')
    raise UnknownCapture(file, _found(document))


def _from_text(body: bytes, file: str) -> McpCapture:
    if body[:1] in b'"-0123456789tfn':
        try:
            scalar = load_json(body, file)
        except RecordingError:
            pass  # not one JSON value: a client log starts with a timestamp
        else:
            raise UnknownCapture(file, _found(scalar))
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnknownCapture(file, f"binary data (not valid UTF-8 at byte {exc.start})") from None
    if not is_client_log(text):
        first = text.split("\n", 1)[0].strip()
        raise UnknownCapture(file, f"text whose first line is {first[:60]!r}")
    return McpCapture(*import_client_log(text, file))


def _concatenated_cassettes(documents: list[Any], file: str) -> McpCapture:
    """Cassettes one per line (JSON Lines): each is its own session, ids kept apart by `~n`."""
    merged = McpCapture([])
    seen: set[str] = set()
    for number, document in enumerate(documents):
        calls, notes = import_cassette(expect_dict(document, file, f"cassette {number}"), file)
        for call in calls:
            base, suffix = call.id, 2
            while call.id in seen:
                call.id = f"{base}~{suffix}"
                suffix += 1
            seen.add(call.id)
        merged.calls += calls
        merged.notes += notes
    return merged


def _found(value: Any) -> str:
    """What the document is, for an error that says what was found."""
    if isinstance(value, dict):
        return f"a JSON object with keys [{_keys(value)}]"
    if isinstance(value, list):
        first = value[0] if value else None
        if isinstance(first, dict):
            return f"an array of objects with keys [{_keys(first)}]"
        return f"an array of {type_name(first)} values"
    return f"a JSON {type_name(value).removeprefix('a ').removeprefix('an ')}"


def _keys(value: dict[str, Any]) -> str:
    names = [str(k)[:30] for k in list(value)[:8]]
    return ", ".join(names) + (", …" if len(value) > 8 else "")


def _echo_calls(items: list[Any], file: str) -> list[ToolCall]:
    calls = [_echo_call(item, number, file) for number, item in enumerate(items)]
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
