"""Odd but valid recordings import: BOMs, ZIP64, epoch timestamps, both call files, one top-level
folder (with macOS `__MACOSX` droppings), header lists, every network.json and mcp_calls.json shape."""

from __future__ import annotations

import zipfile
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

import pytest

from rlauto_core.importers import import_bytes, import_path
from rlauto_core.recording import Mode, Recording
from tests.importers.corpus import CALL, NETWORK, TASK, request
from tests.importers.zipcraft import RawEntry, jbytes, raw_zip, zip_bytes

BOM = b"\xef\xbb\xbf"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recordings"
CAPTURES = EXAMPLES.parent / "captures"


def load(files: dict[str, bytes], **kw: object) -> Recording:
    return import_bytes(zip_bytes(files), "rec.zip", **kw)  # type: ignore[arg-type]


def test_bom_on_every_json_file() -> None:
    recording = load(
        {
            "task.json": BOM + jbytes(TASK),
            "network.json": BOM + jbytes(NETWORK),
            "dbdiff.json": BOM + jbytes({"tables": {"issues": {"inserted": [{"id": 7}]}}}),
        }
    )
    assert recording.task.instruction == "create an issue"
    assert [c.id for c in recording.http_calls] == ["r1"]
    assert recording.dbdiff is not None and recording.dbdiff.row_count() == 1


def test_bom_on_json_lines_mcp_log() -> None:
    lines = BOM + b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes_list"}}\n'
    lines += b'{"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'
    recording = load({"task.json": jbytes(TASK), "mcp_calls.json": lines})
    assert [(c.id, c.tool, c.answered) for c in recording.tool_calls] == [("1", "notes_list", True)]


def test_zip64_forced_on_small_entries() -> None:
    data = zip_bytes({"task.json": jbytes(TASK), "network.json": jbytes(NETWORK)}, force_zip64=True)
    assert b"\x01\x00\x10\x00" in data, "the local headers carry a ZIP64 extra field"
    recording = import_bytes(data, "rec.zip")
    assert [c.id for c in recording.http_calls] == ["r1"]


def test_zip64_end_record_and_extra_fields() -> None:
    data = raw_zip(
        [RawEntry("task.json", jbytes(TASK), zip64=True), RawEntry("network.json", jbytes(NETWORK), zip64=True)],
        zip64_end=True,
    )
    assert b"PK\x06\x06" in data and b"PK\x06\x07" in data
    recording = import_bytes(data, "rec.zip")
    assert recording.http_calls[0].url == "https://tracker.example.com/api/issues"


@pytest.mark.parametrize(
    "stamp",
    [1778075240114, 1778075240.114, "1778075240114", "2026-05-06T13:47:20.114Z", "2026-05-06T15:47:20.114+02:00"],
)
def test_timestamps_iso_or_epoch(stamp: object) -> None:
    recording = load({"task.json": jbytes(TASK), "network.json": jbytes([request(startedAt=stamp)])})
    expected = datetime(2026, 5, 6, 13, 47, 20, 114000, tzinfo=UTC)
    started = recording.http_calls[0].started_at
    assert started is not None and abs((started - expected).total_seconds()) < 0.001


def test_both_network_and_mcp_calls_is_mcp_with_both_kept() -> None:
    recording = load({"task.json": jbytes(TASK), "network.json": jbytes(NETWORK), "mcp_calls.json": jbytes([CALL])})
    assert recording.mode is Mode.MCP and recording.detected_mode is Mode.MCP
    assert [c.id for c in recording.calls] == ["c1"]
    assert [c.id for c in recording.http_calls] == ["r1"]


def test_session_alone_makes_mcp_and_override_wins() -> None:
    files = {"task.json": jbytes(TASK), "network.json": jbytes(NETWORK), "session.json": jbytes({"servers": []})}
    assert load(files).mode is Mode.MCP
    overridden = load(files, requested_mode="api")
    assert overridden.mode is Mode.API and overridden.detected_mode is Mode.MCP
    assert [c.id for c in overridden.calls] == ["r1"]


def test_one_top_level_folder_with_macos_droppings() -> None:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("My Recording/", b"")
        zf.writestr("My Recording/task.json", jbytes(TASK))
        zf.writestr("My Recording/network.json", jbytes(NETWORK))
        zf.writestr("My Recording/screens/final.png", b"\x89PNG")
        zf.writestr("__MACOSX/My Recording/._task.json", b"\x00\x05\x16\x07")
    recording = import_bytes(buffer.getvalue(), "My Recording.zip")
    assert recording.root_prefix == "My Recording/"
    assert recording.task.network_requests == ["r1"]
    assert "My Recording/screens/final.png" in {f.name for f in recording.files}


def test_headers_as_name_value_lists() -> None:
    listed = request(requestHeaders=[{"name": "Cookie", "value": "sid=1"}, {"name": "Accept", "value": "*/*"}])
    recording = load({"task.json": jbytes(TASK), "network.json": jbytes({"requests": [listed]})})
    assert recording.http_calls[0].header("cookie") == "sid=1"


def test_network_json_as_bare_array_and_base64_bodies() -> None:
    item = request(responseBody="eyJpZCI6N30=", responseBodyEncoding="base64")
    recording = load({"task.json": jbytes(TASK), "network.json": jbytes([item])})
    call = recording.http_calls[0]
    assert (call.response_body, call.response_body_encoding) == ('{"id":7}', "text"), "JSON base64 reads as text"


def test_mcp_calls_as_bare_array_and_jsonrpc_array() -> None:
    assert [c.id for c in load({"task.json": jbytes(TASK), "mcp_calls.json": jbytes([CALL])}).tool_calls] == ["c1"]
    log = [
        {"jsonrpc": "2.0", "id": "a", "method": "tools/call", "params": {"name": "t1", "arguments": {"x": 1}}},
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "a"}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "t2"}},
        {"jsonrpc": "2.0", "id": "a", "result": {"content": [], "isError": False}},
    ]
    calls = load({"task.json": jbytes(TASK), "mcp_calls.json": jbytes(log)}).tool_calls
    assert [(c.id, c.tool, c.answered) for c in calls] == [("a", "t1", True), ("2", "t2", False)]
    assert calls[0].arguments == {"x": 1}


def test_unknown_task_keys_are_kept() -> None:
    task = {**TASK, "extra": {"k": 1}, "task": {**TASK["task"], "difficulty": "hard"}}
    recording = load({"task.json": jbytes(task), "network.json": jbytes(NETWORK)})
    assert recording.task_json["extra"] == {"k": 1}
    assert recording.task.model_extra == {"difficulty": "hard"}


# --- the committed examples


def test_examples_issue_tracker() -> None:
    recording = import_path(EXAMPLES / "issue_tracker.zip")
    assert recording.mode is Mode.API and len(recording.http_calls) == 24
    assert recording.task.network_requests == ["r12", "r17", "r21"]
    assert {f.role for f in recording.files} >= {"task", "network", "dbdiff", "other"}


def test_examples_shop_in_a_folder_with_epoch_times() -> None:
    recording = import_path(EXAMPLES / "shop_checkout.zip")
    assert recording.root_prefix == "shop-checkout-0507/"
    failed = recording.call_by_id("r9")
    assert failed is not None and getattr(failed, "status", None) == 500
    assert recording.http_calls[0].started_at == datetime(2026, 5, 7, 9, 12, 3, 620000, tzinfo=UTC)


def test_examples_discord_and_slack() -> None:
    discord = import_path(EXAMPLES / "discord_reply.zip")
    assert discord.mode is Mode.MCP and [c.id for c in discord.calls][:3] == ["c1", "c2", "c3"]
    assert discord.session is not None and len(discord.session.servers[0].tools) == 10
    slack = import_path(EXAMPLES / "slack_incident_channel.zip")
    assert [c.tool for c in slack.calls if c.id in slack.task.network_requests] == [
        "slack_create_channel",
        "slack_invite_to_channel",
        "slack_post_message",
    ]


def test_examples_har_recordings() -> None:
    bare = import_path(CAPTURES / "project_board.har")
    assert bare.mode is Mode.API and [c.method for c in bare.http_calls][5:7] == ["POST", "PATCH"]
    firefox = import_path(EXAMPLES / "project_board_firefox.zip")
    create = firefox.call_by_id("2")
    assert create is not None and "Renew+the+status-page+domain" in str(getattr(create, "request_body", ""))


def test_examples_jsonrpc_log() -> None:
    recording = import_path(EXAMPLES / "notes_jsonrpc.zip")
    calls = {c.id: c for c in recording.tool_calls}
    assert list(calls) == ["2", "call-3", "4", "5", "call-7", "8"]
    assert calls["4"].is_error and not calls["5"].is_error
    assert not calls["8"].answered
    assert calls["call-3"].duration_ms == pytest.approx(60.0)
