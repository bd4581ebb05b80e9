"""Inputs the Foundation issue asked for: epoch timestamps in task.json metadata, session.json
and call timestamps are read; names no file system can hold are refused with a domain error."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.errors import RecordingError
from rlauto_core.importers import import_bytes, import_path
from tests.importers.corpus import CALL, NETWORK, TASK
from tests.importers.zipcraft import RawEntry, jbytes, raw_zip, zip_bytes

INSTANT = "2026-05-06T13:47:12Z"


def task_with(recorded_at: Any) -> bytes:
    task = copy.deepcopy(TASK)
    task["metadata"]["recordedAt"] = recorded_at
    return jbytes(task)


@pytest.mark.parametrize(
    "stamp", [1778075232, 1778075232.0, 1778075232000, 1778075232000.0, "1778075232", "1778075232000", " 1778075232 "]
)
def test_recorded_at_in_epoch_seconds_or_milliseconds(stamp: Any) -> None:
    recording = import_bytes(zip_bytes({"task.json": task_with(stamp), "network.json": jbytes(NETWORK)}), "rec.zip")
    assert recording.metadata.recorded_at == INSTANT
    assert recording.task_json["metadata"]["recordedAt"] == stamp  # the document stays as recorded


def test_recorded_at_iso_string_is_kept_as_written() -> None:
    recording = import_bytes(zip_bytes({"task.json": task_with("2026-05-06T15:47:12+02:00")}), "rec.zip")
    assert recording.metadata.recorded_at == "2026-05-06T15:47:12+02:00"


@pytest.mark.parametrize("stamp", [1e300, "-1e300", True])
def test_recorded_at_out_of_range_or_wrong_type(stamp: Any) -> None:
    with pytest.raises(RecordingError) as caught:
        import_bytes(zip_bytes({"task.json": task_with(stamp)}), "rec.zip")
    assert "task.json" in caught.value.file and "recordedAt" in caught.value.problem


def test_session_times_and_call_times_in_epochs() -> None:
    session = {"sessionId": "s_41", "startedAt": 1778075232000, "endedAt": "1778075299", "servers": []}
    call = {**CALL, "startedAt": "1778075240114"}
    recording = import_bytes(
        zip_bytes({"task.json": jbytes(TASK), "session.json": jbytes(session), "mcp_calls.json": jbytes([call])}),
        "rec.zip",
    )
    assert recording.session is not None
    assert (recording.session.started_at, recording.session.ended_at) == (INSTANT, "2026-05-06T13:48:19Z")
    assert recording.tool_calls[0].started_at == datetime(2026, 5, 6, 13, 47, 20, 114000, tzinfo=UTC)


@pytest.mark.parametrize("stamp", [1778075240114000, 1778075240114000000])
def test_call_times_in_micro_and_nanoseconds(stamp: int) -> None:
    recording = import_bytes(
        zip_bytes({"task.json": jbytes(TASK), "mcp_calls.json": jbytes([{**CALL, "startedAt": stamp}])}), "rec.zip"
    )
    assert recording.tool_calls[0].started_at == datetime(2026, 5, 6, 13, 47, 20, 114000, tzinfo=UTC)


LONG = "a" * 256
CJK_300_BYTES = "录" * 100  # 100 characters, 300 UTF-8 bytes


@pytest.mark.parametrize(
    "member",
    [f"screens/{LONG}.png", f"{LONG}/task.json", f"rec/{CJK_300_BYTES}.txt", "x/" * 2100 + "y"],
    ids=["file", "folder", "utf8-bytes", "whole-path"],
)
def test_zip_member_names_no_file_system_holds(member: str) -> None:
    data = raw_zip([RawEntry("task.json", jbytes(TASK)), RawEntry(member, b"payload")])
    with pytest.raises(RecordingError) as caught:
        import_bytes(data, "rec.zip")
    assert caught.value.file == "rec.zip"
    assert "bytes" in caught.value.problem and ("255" in caught.value.problem or "4096" in caught.value.problem)
    assert len(str(caught.value)) < 300, "the name is shortened so the error stays one readable line"


def test_names_of_255_bytes_are_fine() -> None:
    member = "b" * 251 + ".png"
    data = zip_bytes({"task.json": jbytes(TASK), member: b"\x89PNG"})
    assert member in {f.name for f in import_bytes(data, "rec.zip").files}


def test_uploaded_file_name_too_long() -> None:
    with pytest.raises(RecordingError) as caught:
        import_bytes(zip_bytes({"task.json": jbytes(TASK)}), LONG + ".zip")
    assert "255" in caught.value.problem and "…" in caught.value.file


def test_import_path_with_a_name_too_long_is_a_domain_error(tmp_path: Path) -> None:
    with pytest.raises(RecordingError) as caught:
        import_path(tmp_path / (LONG + ".zip"))
    assert "255" in caught.value.problem
    with pytest.raises(RecordingError) as folder:
        import_path(tmp_path / LONG / "rec.zip")  # the folder's name is too long for the OS
    assert "cannot be read" in folder.value.problem
