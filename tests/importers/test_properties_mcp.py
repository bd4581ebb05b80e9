"""Property tests for the MCP capture layouts.

Any value in the shape of a cassette, SDK log, client log or Inspector export either imports
(ids unique) or is refused with a RecordingError; and well-formed captures of arbitrary tool
calls round-trip: the recording holds exactly those tools, arguments and ids, in order, whatever
the names and texts hold (brackets, quotes, "Message from server:", newlines, non-ASCII)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rlauto_core.recording import ToolCall
from tests.importers.mcp_samples import claude_line, jsonl
from tests.importers.test_properties import PROPERTY, RPC_MESSAGE, import_or_refuse, json_values, shaped, with_file

rpc = st.builds(
    lambda m, p: {**m, "params": p} if "params" in m else m,
    shaped(RPC_MESSAGE),
    st.fixed_dictionaries({}, optional={"name": json_values | st.text(max_size=5), "arguments": json_values}),
)
interactions = st.lists(
    st.builds(lambda i, q, r: {**i, "request": q, "response": r}, shaped(["type", "latency_ms", "timestamp"]),
              rpc | json_values, rpc | json_values),
    max_size=4,
)  # fmt: skip
cassettes = st.one_of(
    st.builds(
        lambda i, m: {"version": "1.0", "metadata": m, "interactions": i}, interactions | json_values, json_values
    ),
    st.builds(lambda i: {"format_version": "1.0.0", "session": {"interactions": i}}, interactions),
)
sdk_fields = ["timestamp", "count", "args", "kwargs", "result", "error"]
records = st.lists(
    st.builds(lambda r, t, m: {**r, "type": t, "method": m}, shaped(sdk_fields), st.sampled_from(["request", "response"]),
              st.sampled_from(["call_tool", "callTool", "list_tools"]) | json_values),
    min_size=1, max_size=6,
)  # fmt: skip
sessions = st.builds(
    lambda s: {"session_id": "s", "server_info": {"name": "x"}, "calls": s},
    st.lists(shaped(["request", "response", "duration_ms"]) | st.builds(
        lambda q, r: {"request": q, "response": r},
        shaped(["method", "args", "kwargs", "timestamp"]), shaped(["success", "result", "error", "timestamp"])),
        max_size=4) | json_values,
)  # fmt: skip
inspector = st.lists(
    st.builds(lambda e, m: {**e, "message": m}, shaped(["id", "timestamp", "direction", "origin", "response", "duration",
                                                        "clientError"]), rpc),
    max_size=5,
)  # fmt: skip


@PROPERTY
@given(st.one_of(cassettes, records, sessions, inspector), st.booleans())
def test_any_capture_shaped_value_imports_or_is_refused(value: Any, as_lines: bool) -> None:
    lines = as_lines and isinstance(value, list)
    content = jsonl(value) if lines else json.dumps(value).encode()
    import_or_refuse(with_file("mcp_calls.json", content), "rec.zip")
    import_or_refuse(content, "capture.json")


log_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=40)
log_lines = st.lists(
    st.builds(
        lambda ts, server, side, body: f"{ts} [{server}] [info] Message from {side}: {body}",
        st.sampled_from(["2025-01-01T10:00:00.000Z", "2025-13-01T10:00:00Z", "2025-01-01 10:00:00,5"]),
        st.text(st.characters(blacklist_characters="]\n\r", blacklist_categories=["Cs"]), min_size=1, max_size=8),
        st.sampled_from(["client", "server"]),
        rpc.map(json.dumps) | log_text,
    )
    | log_text,
    max_size=8,
)


@PROPERTY
@given(log_lines)
def test_any_client_log_imports_or_is_refused(lines: list[str]) -> None:
    content = "\n".join(lines).encode()
    import_or_refuse(with_file("mcp_calls.json", content), "rec.zip")
    import_or_refuse(content, "mcp-server-x.log")


tool_names = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=20)
arguments = st.dictionaries(st.text(max_size=6), st.text(max_size=30) | st.integers() | st.booleans(), max_size=3)
tool_calls = st.lists(st.tuples(tool_names, arguments), min_size=1, max_size=5)


def _request(n: int, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": tool, "arguments": args}}


def _answer(n: int, tool: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": f"done {tool}"}]}}


def _expected(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, dict[str, Any], Any]]:
    return [(str(n), tool, args, _answer(n, tool)["result"]) for n, (tool, args) in enumerate(calls, start=1)]


def _got(data: bytes, name: str) -> list[tuple[str, str, dict[str, Any], Any]]:
    recording = import_or_refuse(data, name)
    assert recording is not None
    return [(c.id, c.tool, c.arguments, c.result) for c in recording.calls if isinstance(c, ToolCall)]


@PROPERTY
@given(tool_calls)
def test_cassette_round_trip(calls: list[tuple[str, dict[str, Any]]]) -> None:
    pairs = [{"type": "jsonrpc_request", "request": _request(n, t, a), "response": _answer(n, t), "latency_ms": n}
             for n, (t, a) in enumerate(calls, start=1)]  # fmt: skip
    assert _got(json.dumps({"version": "1.0", "interactions": pairs}).encode(), "c.json") == _expected(calls)


@PROPERTY
@given(tool_calls, st.booleans())
def test_client_log_round_trip(calls: list[tuple[str, dict[str, Any]]], tail: bool) -> None:
    lines = []
    for n, (tool, args) in enumerate(calls, start=1):
        lines.append(claude_line("2025-01-01T10:00:00.000Z", "srv", "client", _request(n, tool, args), tail))
        lines.append("stderr noise [x] [y] Message from nobody")
        lines.append(claude_line("2025-01-01T10:00:00.010Z", "srv", "server", _answer(n, tool), tail))
    assert _got("\n".join(lines).encode(), "mcp-server-srv.log") == _expected(calls)


@PROPERTY
@given(tool_calls)
def test_inspector_round_trip(calls: list[tuple[str, dict[str, Any]]]) -> None:
    entries = [{"id": f"e{n}", "timestamp": "2026-08-19T15:02:03.100Z", "direction": "request", "origin": "client",
                "message": _request(n, t, a), "response": _answer(n, t), "duration": 3}
               for n, (t, a) in enumerate(calls, start=1)]  # fmt: skip
    assert _got(json.dumps(entries).encode(), "inspector.json") == _expected(calls)
