"""Every MCP capture layout imports to the right calls: SDK interceptor records and sessions,
client log lines, Inspector exports, cassettes, JSON-RPC logs with a missing request; unknown
shapes get an error saying what was found and what is accepted."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from rlauto_core.errors import RecordingError
from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.recording import Mode, Recording, ToolCall
from rlauto_core.rules import run_rules
from tests.importers.corpus import TASK, jsonrpc_lines
from tests.importers.mcp_samples import claude_line, claude_log, inspector_export, jsonl, sdk_records, sdk_session
from tests.importers.zipcraft import jbytes, zip_bytes


def in_zip(capture: bytes) -> Recording:
    return import_bytes(zip_bytes({"task.json": jbytes(TASK), "mcp_calls.json": capture}), "rec.zip")


def calls_of(recording: Recording) -> list[ToolCall]:
    assert recording.mode is Mode.MCP
    return [c for c in recording.calls if isinstance(c, ToolCall)]


# --- SDK interceptor logs


def test_sdk_records_pair_by_count_and_drop_type_tags() -> None:
    records = sdk_records(("read_file", {"path": "README.md"}, "# Title"), ("write_file", {"path": "/tmp/a"}, "ok"))
    calls = calls_of(in_zip(jsonl(records)))
    assert [(c.id, c.tool, c.arguments) for c in calls] == [
        ("3", "read_file", {"path": "README.md"}),
        ("4", "write_file", {"path": "/tmp/a"}),
    ]
    assert calls[0].result == {
        "meta": None,
        "structuredContent": None,
        "isError": False,
        "content": [{"type": "text", "text": "# Title", "annotations": None, "meta": None}],
    }
    assert calls[0].duration_ms == pytest.approx(250.0)
    assert calls[0].started_at == datetime(2025, 10, 23, 23, 0, 13, tzinfo=UTC)


def test_sdk_records_as_a_json_array_and_an_error() -> None:
    records = sdk_records(("search", {"q": "x"}, "[]"), error_at=3)
    call = calls_of(in_zip(jbytes(records)))[0]
    assert call.is_error and call.answered and call.result == "McpError: boom"


def test_sdk_records_typescript_call_tool_and_no_count() -> None:
    records = [
        {"type": "request", "method": "callTool", "args": [{"name": "send_message", "arguments": {"to": "C01"}}]},
        {"type": "request", "method": "callTool", "kwargs": {"name": "list_channels"}},
        {"type": "response", "method": "callTool", "result": {"content": [{"type": "text", "text": "M9"}]}},
        {"type": "response", "method": "callTool", "result": {"content": [], "isError": True}},
    ]
    calls = calls_of(in_zip(jsonl(records)))
    # without a count the id is the request's position among the records; answers come in order
    assert [(c.id, c.tool, c.arguments, c.is_error) for c in calls] == [
        ("0", "send_message", {"to": "C01"}, False),
        ("1", "list_channels", {}, True),
    ]


def test_sdk_response_without_its_request_is_flagged_not_refused() -> None:
    records = sdk_records(("read_file", {"path": "a"}, "x"))[2:]  # the log lost initialize
    records.insert(0, {"type": "response", "count": 1, "method": "initialize", "result": {}, "error": None})
    recording = in_zip(jsonl(records))
    assert [c.id for c in calls_of(recording)] == ["3"]
    assert [(n.code, n.ids) for n in recording.import_notes] == [("orphan_responses", ["1"])]


def test_sdk_sessions_one_object_and_several_as_json_lines() -> None:
    one = sdk_session(("microsoft_docs_search", {"query": "blob"}, "found"))
    calls = calls_of(in_zip(jbytes(one)))
    assert [(c.id, c.tool, c.server) for c in calls] == [("1", "microsoft_docs_search", "Microsoft Learn MCP Server")]
    assert calls[0].result == {
        "meta": None,
        "structuredContent": None,
        "isError": False,
        "content": [{"type": "text", "text": "found"}],
    }
    assert calls[0].duration_ms == pytest.approx(203.549, abs=0.01)
    two = jsonl([one, sdk_session(("a", {}, "1"), ("b", {"k": 1}, "2"))])
    assert [(c.id, c.tool) for c in calls_of(in_zip(two))] == [
        ("0:1", "microsoft_docs_search"),
        ("1:1", "a"),
        ("1:2", "b"),
    ]


# --- client log lines


def test_claude_desktop_log_lines() -> None:
    recording = in_zip(claude_log().encode())
    calls = calls_of(recording)
    assert [(c.id, c.tool, c.server) for c in calls] == [
        ("2", "list_allowed_directories", "filesystem"),
        ("3", "write_file", "filesystem"),
        ("2~2", "read_text_file", "filesystem"),  # the reconnect numbered ids from 0 again
    ]
    assert calls[1].arguments == {"path": "C:\\Users\\me\\notes.txt", "content": "héllo\nworld"}
    assert calls[1].result == {"content": [{"type": "text", "text": "Successfully wrote"}]}
    assert calls[1].duration_ms == pytest.approx(7.0)
    assert calls[2].is_error and calls[2].arguments == {"path": "C:\\Users\\me\\notes.txt", "head": 50}
    assert recording.import_notes == []


def test_client_log_of_several_servers_keeps_their_ids_apart() -> None:
    def call(server: str, stamp: str, tool: str) -> list[str]:
        request = {"method": "tools/call", "params": {"name": tool, "arguments": {}}, "jsonrpc": "2.0", "id": 5}
        answer = {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": server}]}}
        return [claude_line(stamp, server, "client", request), claude_line(stamp, server, "server", answer, tail=False)]

    lines = call("github", "2025-07-20T14:12:07.571Z", "get_issue")[:1]
    lines += call("slack", "2025-07-20T14:12:08.000Z", "post_message")
    lines += call("github", "2025-07-20T14:12:07.571Z", "get_issue")[1:]
    calls = calls_of(in_zip("\n".join(lines).encode()))
    assert [(c.id, c.tool, c.server, c.result["content"][0]["text"]) for c in calls] == [
        ("5", "get_issue", "github", "github"),
        ("5~2", "post_message", "slack", "slack"),
    ]


def test_server_requests_answered_by_the_client_are_no_orphans() -> None:
    lines = [
        claude_line("2025-01-01T10:00:00.000Z", "fs", "client", {"jsonrpc": "2.0", "id": 0, "method": "initialize"}),
        claude_line("2025-01-01T10:00:00.100Z", "fs", "server", {"jsonrpc": "2.0", "id": 0, "method": "roots/list"}),
        claude_line("2025-01-01T10:00:00.200Z", "fs", "client", {"jsonrpc": "2.0", "id": 0, "result": {"roots": []}}),
        claude_line("2025-01-01T10:00:00.300Z", "fs", "server", {"jsonrpc": "2.0", "id": 0, "result": {}}),
    ]
    recording = in_zip("\n".join(lines).encode())
    assert recording.tool_calls == [] and recording.import_notes == []


def test_a_cut_response_keeps_its_call_and_is_flagged() -> None:
    request = {"method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "big.txt"}}, "id": 6}
    cut = '{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"AAAA...[17280 chars truncated]...Z"}]}}'
    log = "\n".join(
        [
            claude_line("2026-03-01T09:49:03.586Z", "filesystem", "client", request),
            claude_line("2026-03-01T09:49:03.590Z", "filesystem", "server", cut[:60] + "...[17280 chars truncated]..."),
        ]
    )
    recording = in_zip(log.encode())
    call = calls_of(recording)[0]
    assert call.answered and call.result is None and call.extra == {"result_cut": True}
    assert [(n.code, n.ids) for n in recording.import_notes] == [("results_cut", ["6"])]
    flags = run_rules(recording, build_evidence(recording))
    assert any(f.code == "results_cut" and f.call_ids == ["6"] for f in flags)


def test_a_cut_tools_call_request_refuses_the_log() -> None:
    cut = '{"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a","content":"AB...[8499 chars truncated]...'
    log = claude_line("2026-03-01T09:47:44.588Z", "filesystem", "client", cut) + "\n"
    with pytest.raises(RecordingError) as caught:
        in_zip(log.encode())
    assert "mcp_calls.json" in caught.value.file
    assert "line 1" in caught.value.problem and "arguments are lost" in caught.value.problem


# --- Inspector history export


def test_inspector_export() -> None:
    calls = calls_of(in_zip(jbytes(inspector_export())))
    assert [(c.id, c.tool, c.arguments) for c in calls] == [
        ("1", "create_issue", {"repo": "acme/app", "title": "Crash on save"}),
        ("2", "list_issues", {"repo": "acme/app"}),
    ]
    assert calls[0].result == {"content": [{"type": "text", "text": "#42"}], "structuredContent": {"number": 42}}
    assert calls[0].duration_ms == 87 and not calls[0].is_error
    # the server's own roots/list (id 1 too) is neither a call nor an orphan; a client-refused answer is an error
    assert calls[1].is_error and calls[1].extra["clientError"].startswith("result does not match")


# --- cassettes and JSON-RPC logs


def test_cassette_pair_without_response_is_unanswered_and_ids_reused_stay_apart() -> None:
    cassette = {
        "version": "1.0",
        "metadata": {"server_info": {"name": "notes"}},
        "interactions": [
            {"type": "jsonrpc_request", "latency_ms": 3,
             "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes_create"}},
             "response": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}},
            {"type": "jsonrpc_request", "latency_ms": 3,
             "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes_list"}},
             "response": None},
            {"type": "lifecycle", "request": None, "response": None, "http_method": "DELETE", "http_path": "/mcp"},
        ],
    }  # fmt: skip
    calls = calls_of(in_zip(jbytes(cassette)))
    assert [(c.id, c.tool, c.answered, c.server) for c in calls] == [
        ("1", "notes_create", True, "notes"),
        ("1~2", "notes_list", False, "notes"),
    ]


def test_response_whose_request_is_missing_keeps_the_rest_and_is_flagged() -> None:
    log = jsonrpc_lines(
        {"jsonrpc": "2.0", "id": 98, "result": {"content": [{"type": "text", "text": "late"}]}},
        {"jsonrpc": "2.0", "id": 99, "error": {"code": -32000, "message": "late"}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes_create", "arguments": {"t": 1}}},
        {"jsonrpc": "2.0", "id": 1, "result": {"content": []}},
    )
    recording = in_zip(log)
    assert [(c.id, c.tool, c.answered) for c in calls_of(recording)] == [("1", "notes_create", True)]
    assert [(n.code, n.ids) for n in recording.import_notes] == [("orphan_responses", ["98", "99"])]
    flags = run_rules(recording, build_evidence(recording))
    orphan = next(f for f in flags if f.code == "orphan_responses")
    assert orphan.call_ids == ["98", "99"] and "98, 99" in orphan.message and "mid-session" in orphan.message


def test_error_response_with_null_id_is_flagged() -> None:
    log = jsonrpc_lines({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
    assert [(n.code, n.ids) for n in in_zip(log).import_notes] == [("orphan_responses", ["null"])]


# --- unknown shapes


@pytest.mark.parametrize(
    ("capture", "found"),
    [
        (jbytes({"session": "s1", "events": []}), "a JSON object with keys [session, events]"),
        (jbytes([{"when": 1, "what": "x"}]), "an array of objects with keys [when, what]"),
        (jbytes("calls"), "a JSON string"),
        (b"tool call log\nnothing else\n", "text whose first line is 'tool call log'"),
    ],
)
def test_unknown_shape_says_what_was_found_and_what_is_accepted(capture: bytes, found: str) -> None:
    with pytest.raises(RecordingError) as caught:
        in_zip(capture)
    assert caught.value.file == "rec.zip: mcp_calls.json"
    assert caught.value.problem == (
        f"{found} is no MCP capture format we know; accepted: echo list, JSON-RPC log, "
        'cassette with "interactions", SDK call log, client log lines, Inspector history'
    )


def test_a_har_in_mcp_calls_is_named() -> None:
    with pytest.raises(RecordingError, match="is a HAR file"):
        in_zip(jbytes({"log": {"entries": []}}))


# --- bare capture files


@pytest.mark.parametrize(
    ("name", "data", "ids"),
    [
        ("mcp-server-filesystem.log", claude_log().encode(), ["2", "3", "2~2"]),
        ("session.jsonl", jsonl(sdk_records(("read_file", {}, "x"))), ["3"]),
        ("inspector-protocol-2026-08-19T15-02-08.json", json.dumps(inspector_export(), indent=2).encode(), ["1", "2"]),
    ],
)
def test_bare_capture_files_are_mcp_recordings_with_an_empty_task(name: str, data: bytes, ids: list[str]) -> None:
    recording = import_bytes(data, name)
    assert recording.mode is Mode.MCP and recording.detected_mode is Mode.MCP
    assert [c.id for c in recording.calls] == ids
    assert recording.task.instruction == "" and [(f.name, f.role) for f in recording.files] == [(name, "mcp_calls")]


def test_bare_json_that_is_no_recording_lists_every_accepted_input() -> None:
    with pytest.raises(RecordingError) as caught:
        import_bytes(jbytes({"hello": "world"}), "notes.json")
    assert caught.value.file == "notes.json"
    assert caught.value.problem.startswith("not a ZIP archive or a HAR file, nor an MCP capture: a JSON object")
    assert "cassette with" in caught.value.problem


def test_bare_json_holding_a_har_is_an_api_recording() -> None:
    har = {"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/x"}}]}}
    recording = import_bytes(jbytes(har), "export.json")
    assert recording.mode is Mode.API and [c.id for c in recording.calls] == ["0"]


def test_line_separators_inside_a_message_do_not_split_the_line() -> None:
    text = "a\u2028b\x85c\u2029d"  # JSON.stringify writes these raw; str.splitlines would cut at each
    request = {
        "method": "tools/call",
        "params": {"name": "note", "arguments": {"text": text}},
        "jsonrpc": "2.0",
        "id": 1,
    }
    log = claude_line("2025-01-01T10:00:00.000Z", "n", "client", request) + "\r\n"
    call = calls_of(in_zip(log.encode()))[0]
    assert call.arguments == {"text": text}
