"""Accepted variants of the input contract (formats.md section 1) and the call ids they give."""

from __future__ import annotations

import json

import pytest

from rlauto_core.importers import import_bytes
from rlauto_core.recording import Mode
from tests.recording_builders import http, task_json, tool, zip_bytes

URL = "https://chat.example.com/api/v1/channels/C01/messages"


def test_echo_object_and_bare_array_network_json_give_the_recorded_ids() -> None:
    requests = [http("r12", "POST", URL, status=201), http("r15", "GET", URL)]
    as_object = import_bytes(zip_bytes({"task.json": task_json(), "network.json": {"requests": requests}}), "a.zip")
    as_array = import_bytes(zip_bytes({"task.json": task_json(), "network.json": requests}), "b.zip")
    assert [c.id for c in as_object.http_calls] == ["r12", "r15"] == [c.id for c in as_array.http_calls]
    assert as_object.mode is Mode.API
    assert as_object.http_calls[0].name == "POST /api/v1/channels/C01/messages"


def test_files_under_one_top_level_folder_are_found() -> None:
    data = zip_bytes(
        {"task.json": task_json("hello"), "network.json": [http("r1", "GET", URL)], "shot.png": b"\x89PNG"},
        folder="rec_8f2/",
    )
    recording = import_bytes(data, "rec.zip")
    assert recording.root_prefix == "rec_8f2/"
    assert recording.task.instruction == "hello"
    assert {f.name: f.role for f in recording.files} == {
        "rec_8f2/task.json": "task",
        "rec_8f2/network.json": "network",
        "rec_8f2/shot.png": "other",
    }


def test_network_json_may_hold_a_har_object_with_positional_ids() -> None:
    har = {"log": {"version": "1.2", "entries": [
        {"startedDateTime": "2026-05-06T13:47:20.114+08:00", "time": 12.5,
         "request": {"method": "POST", "url": URL, "headers": [{"name": "Content-Type", "value": "application/x-www-form-urlencoded"}],
                     "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "text", "value": "got it"}]}},
         "response": {"status": 201, "headers": [], "content": {"mimeType": "application/json", "encoding": "base64", "text": "eyJpZCI6Ik05In0="}}},
    ]}}  # fmt: skip
    recording = import_bytes(zip_bytes({"task.json": task_json(), "network.json": har}), "h.zip")
    call = recording.http_calls[0]
    assert call.id == "0"
    assert call.request_body == "text=got+it"
    assert call.response_body == '{"id":"M9"}'
    assert call.started_at is not None and call.started_at.utcoffset() is not None


def test_base64_echo_bodies_and_epoch_timestamps() -> None:
    request = {**http("r1", "POST", URL, status=201), "requestBody": "eyJ0ZXh0IjoiaGkifQ==", "requestBodyEncoding": "base64",
               "startedAt": 1778075240114}  # fmt: skip
    call = import_bytes(zip_bytes({"task.json": task_json(), "network.json": [request]}), "e.zip").http_calls[0]
    assert call.request_body == '{"text":"hi"}'
    assert call.started_at is not None and call.started_at.year == 2026


def test_mcp_echo_calls_keep_tool_names_exactly() -> None:
    calls = [tool("c7", "discord_send_message", {"channelId": "C01"})]
    recording = import_bytes(
        zip_bytes({"task.json": task_json(), "mcp_calls.json": {"version": 1, "calls": calls}}), "m.zip"
    )
    assert recording.mode is Mode.MCP
    assert [(c.id, c.tool) for c in recording.tool_calls] == [("c7", "discord_send_message")]


def jsonrpc_log() -> list[dict[str, object]]:
    def msg(direction: str, ts: int, body: dict[str, object]) -> dict[str, object]:
        return {"direction": direction, "timestamp": ts, "message": {"jsonrpc": "2.0", **body}}

    return [
        msg("send", 1778075240000, {"id": 0, "method": "initialize", "params": {}}),
        msg("recv", 1778075240010, {"id": 0, "result": {"serverInfo": {"name": "notes"}}}),
        msg("send", 1778075240020, {"method": "notifications/initialized"}),
        msg(
            "send",
            1778075240100,
            {"id": 7, "method": "tools/call", "params": {"name": "notes_create", "arguments": {"folderId": "F1"}}},
        ),
        msg(
            "send",
            1778075240150,
            {"id": "a-8", "method": "tools/call", "params": {"name": "notes_share", "arguments": {"noteId": "n1"}}},
        ),
        msg("recv", 1778075240300, {"id": 7, "result": {"content": [], "structuredContent": {"id": "n1"}}}),
        msg("recv", 1778075240400, {"id": "a-8", "error": {"code": -32000, "message": "forbidden"}}),
        msg(
            "send", 1778075240500, {"id": 9, "method": "tools/call", "params": {"name": "notes_sync", "arguments": {}}}
        ),
    ]


@pytest.mark.parametrize("as_lines", [False, True])
def test_jsonrpc_log_pairs_requests_and_responses_by_id(as_lines: bool) -> None:
    log = jsonrpc_log()
    content = "\n".join(json.dumps(m) for m in log) if as_lines else log
    recording = import_bytes(zip_bytes({"task.json": task_json(), "mcp_calls.json": content}), "j.zip")
    calls = {c.id: c for c in recording.tool_calls}
    assert list(calls) == ["7", "a-8", "9"]
    assert calls["7"].answered and calls["7"].result["structuredContent"] == {"id": "n1"}
    assert calls["7"].duration_ms == pytest.approx(200)
    assert calls["a-8"].is_error
    assert not calls["9"].answered


def test_bare_jsonrpc_messages_without_envelopes() -> None:
    log = [m["message"] for m in jsonrpc_log()]  # type: ignore[index]
    recording = import_bytes(zip_bytes({"task.json": task_json(), "mcp_calls.json": log}), "j.zip")
    assert [c.tool for c in recording.tool_calls] == ["notes_create", "notes_share", "notes_sync"]


def test_both_network_and_mcp_files_import_as_mcp_and_the_mode_can_be_overridden() -> None:
    files = {
        "task.json": task_json(),
        "network.json": [http("r1", "POST", URL, status=201)],
        "mcp_calls.json": [tool("c1", "x_send_message", {"channelId": "C01"})],
    }
    data = zip_bytes(files)
    detected = import_bytes(data, "both.zip")
    assert detected.mode is Mode.MCP and len(detected.http_calls) == 1 and [c.id for c in detected.calls] == ["c1"]
    forced = import_bytes(data, "both.zip", requested_mode="api")
    assert forced.mode is Mode.API and forced.detected_mode is Mode.MCP and [c.id for c in forced.calls] == ["r1"]


def test_session_and_dbdiff_and_unknown_task_keys_are_kept() -> None:
    task = task_json()
    task["task"]["difficulty"] = "hard"
    dbdiff = {"tables": {"messages": {"inserted": [{"id": "M9", "text": "got it"}],
                                      "updated": [{"before": {"unread": 3}, "after": {"unread": 0}}]}}}  # fmt: skip
    session = {"sessionId": "s_41", "servers": [{"name": "discord", "tools": [{"name": "discord_send_message"}]}]}
    recording = import_bytes(
        zip_bytes({"task.json": task, "mcp_calls.json": [], "session.json": session, "dbdiff.json": dbdiff}), "s.zip"
    )
    assert recording.task.model_extra == {"difficulty": "hard"}
    assert recording.task_json["task"]["difficulty"] == "hard"
    assert recording.session is not None and recording.session.servers[0].tools[0].name == "discord_send_message"
    assert recording.dbdiff is not None and recording.dbdiff.row_count() == 2


def test_bare_har_is_an_api_recording_with_an_empty_task() -> None:
    har = {"log": {"entries": [{"request": {"method": "GET", "url": URL}, "response": {"status": 200}}]}}
    recording = import_bytes(("\ufeff" + json.dumps(har)).encode(), "capture.har")
    assert (
        recording.mode is Mode.API
        and recording.task.instruction == ""
        and [c.id for c in recording.http_calls] == ["0"]
    )
