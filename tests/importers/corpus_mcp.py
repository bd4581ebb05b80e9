"""Broken and hostile versions of each MCP capture layout (cassettes, SDK logs, client logs,
Inspector exports, bare capture files), in the BadCase form of corpus.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.importers.corpus import BadCase, deep_array, deep_object, recording
from tests.importers.mcp_samples import claude_line, claude_log, inspector_export, jsonl, sdk_records, sdk_session
from tests.importers.zipcraft import jbytes

R = "rec.zip"
M = "mcp_calls.json"
TOOLS_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes_create", "arguments": {}}}


def _in_zip(capture: bytes | Any | Callable[[], bytes]) -> Callable[[], bytes]:
    """A recording holding `capture` as its MCP calls; a builder is called when the case is built,
    not when this module is imported (every test process imports it to collect the cases)."""
    return lambda: recording(network__json=None, mcp_calls__json=capture() if callable(capture) else capture)


def _cassette(*interactions: Any, **top: Any) -> dict[str, Any]:
    return {"version": "1.0", "metadata": {}, "interactions": list(interactions), **top}


def _records_cut() -> bytes:
    data = jsonl(sdk_records(("read_file", {"path": "a"}, "x"), ("write_file", {"path": "b"}, "y")))
    return data[: len(data) - 40]  # the recorder was killed mid-write


def _records_100k_bad_at_end() -> bytes:
    lines = jsonl(sdk_records(*[("read_file", {"path": f"f{n}"}, "x") for n in range(50_000)]))
    return lines + b'{"type": "response", "count": 7, "method": "call_tool", "result": {\n'


def _claude_log_with(line: str) -> bytes:
    return (claude_log() + line + "\n").encode()


def _deep_line() -> bytes:
    message = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":' + '{"a":' * 5000 + "1" + "}" * 5001
    return _claude_log_with(claude_line("2026-03-01T19:02:00.000Z", "filesystem", "client", message))


MCP_CASES: list[BadCase] = [
    # --- cassettes
    BadCase("cassette_interactions_object", R, _in_zip({"interactions": {"0": TOOLS_CALL}}), M, "must be an array"),
    BadCase("cassette_request_string", R, _in_zip(_cassette({"request": "tools/call"})), M, "must be an object"),
    BadCase(
        "cassette_response_is_a_request",
        R,
        _in_zip(_cassette({"request": TOOLS_CALL, "response": TOOLS_CALL})),
        M,
        "is a request, not a response",
    ),
    BadCase(
        "cassette_latency_string",
        R,
        _in_zip(_cassette({"request": TOOLS_CALL, "response": {"id": 1, "result": {}}, "latency_ms": "fast"})),
        M,
        "latency_ms must be a number",
    ),
    BadCase(
        "cassette_300_deep_arguments",
        R,
        _in_zip(
            b'{"interactions":[{"request":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",'
            b'"arguments":' + deep_object(300) + b"}}}]}"
        ),
        M,
        ("too deep", "nest"),
    ),
    BadCase("cassette_truncated", R, _in_zip(jbytes(_cassette({"request": TOOLS_CALL}))[:-7]), M, "invalid json"),
    BadCase(
        "cassette_session_not_object",
        "run.vcr",
        lambda: jbytes({"format_version": "1.0.0", "session": {"interactions": "none"}}),
        "run.vcr",
        "must be an array",
    ),
    # --- SDK interceptor logs
    BadCase("sdk_records_truncated_jsonl", R, _in_zip(_records_cut), M, ("line 12", "invalid json")),
    BadCase(
        "sdk_records_args_string",
        R,
        _in_zip(jsonl([{"type": "request", "count": 1, "method": "call_tool", "args": "read_file a"}])),
        M,
        "args must be an array",
    ),
    BadCase(
        "sdk_record_unknown_type",
        R,
        _in_zip(jsonl([{"type": "request", "method": "call_tool", "args": ["a"]}, {"type": "reply", "method": "x"}])),
        M,
        'type must be "request" or "response"',
    ),
    BadCase(
        "sdk_call_tool_without_name",
        R,
        _in_zip(jsonl([{"type": "request", "count": 1, "method": "call_tool", "args": [], "kwargs": {}}])),
        M,
        "without a tool name",
    ),
    BadCase(
        "sdk_record_method_number",
        R,
        _in_zip(jsonl([{"type": "request", "method": 7, "args": []}, {"type": "response", "method": 7}])),
        M,
        "method must be a string",
    ),
    BadCase(
        "sdk_session_request_string",
        R,
        _in_zip({"session_id": "s", "server_info": {}, "calls": [{"request": "call_tool", "response": None}]}),
        M,
        "request must be an object",
    ),
    BadCase(
        "sdk_session_arguments_list",
        R,
        _in_zip({"session_id": "s", "calls": [{"request": {"method": "call_tool", "args": ["read_file", ["a"]]}}]}),
        M,
        "arguments must be an object",
    ),
    BadCase(
        "sdk_session_deep_result",
        R,
        _in_zip(
            b'{"session_id":"s","calls":[{"request":{"method":"call_tool","args":["a",{}]},"response":{"result":'
            + deep_array(400)
            + b"}}]}"
        ),
        M,
        ("too deep", "nest"),
    ),
    BadCase("sdk_100k_lines_bad_last_line", R, _in_zip(_records_100k_bad_at_end), M, "line 100005", heavy=True),
    # --- client log lines
    BadCase(
        "clientlog_cut_tools_call",
        "mcp-server-filesystem.log",
        lambda: _claude_log_with(
            claude_line("2026-03-01T19:02:00.000Z", "filesystem", "client", '{"method":"tools/call","params":{"na')
        ),
        "mcp-server-filesystem.log",
        "arguments are lost",
    ),
    BadCase(
        "clientlog_bad_timestamp",
        R,
        _in_zip(claude_line("2026-13-45T99:99:99.000Z", "fs", "client", TOOLS_CALL).encode()),
        M,
        "unreadable timestamp",
    ),
    BadCase("clientlog_5000_deep_message", R, _in_zip(_deep_line), M, ("too deep", "nest")),
    BadCase(
        "clientlog_nan",
        R,
        _in_zip(
            claude_line("2026-03-01T19:02:00.000Z", "fs", "server", '{"jsonrpc":"2.0","id":1,"result":NaN}').encode()
        ),
        M,
        "nan",
    ),
    BadCase(
        "clientlog_float_id",
        R,
        _in_zip(claude_line("2026-03-01T19:02:00.000Z", "fs", "client", {**TOOLS_CALL, "id": 1.5}).encode()),
        M,
        "id must be",
    ),
    BadCase("clientlog_binary", R, _in_zip(b"\x00\x01\xff\xfe" * 64), M, "binary data"),
    BadCase(
        "clientlog_no_message_lines",
        "mcp.log",
        lambda: b"2026-03-01T09:39:03.047Z [filesystem] [info] Initializing server...\n" * 3,
        "mcp.log",
        "nor an MCP capture: text whose first line",
    ),
    # --- Inspector exports
    BadCase(
        "inspector_response_string",
        R,
        _in_zip([{**inspector_export()[2], "response": "ok"}]),
        M,
        "response must be an object",
    ),
    BadCase(
        "inspector_duration_string",
        R,
        _in_zip([{**inspector_export()[2], "duration": "87ms"}]),
        M,
        "duration must be a number",
    ),
    BadCase(
        "inspector_timestamp_object",
        R,
        _in_zip([{**inspector_export()[2], "timestamp": {"date": "today"}}]),
        M,
        "timestamp must be",
    ),
    # --- bare capture files and the file itself
    BadCase("mcp_calls_empty", R, _in_zip(b" \n\t\n"), M, "empty"),
    BadCase("bare_unknown_json", "trace.json", lambda: jbytes({"spans": []}), "trace.json", "nor an MCP capture"),
    BadCase(
        "bare_jsonl_cut",
        "calls.jsonl",
        lambda: jsonl([sdk_session()]) + b'{"session_id": "s2", "ca',
        "calls.jsonl",
        "line 2",
    ),
]
