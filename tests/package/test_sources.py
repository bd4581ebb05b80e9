"""What a batch's sources name: a folder of MCP captures as recorders wrote them is a batch of
recordings, beside any .zip and .har in it; an unpacked recording's parts (task.json,
network.json...) are not taken for captures; a glob takes the same kinds; nothing else is taken."""

from __future__ import annotations

import shutil
from pathlib import Path

from rlauto_core.store import expand_sources
from tests.conftest import DATA

CASSETTES = DATA / "mcp" / "cassette"


def test_a_folder_of_public_captures_yields_each_capture(tmp_path: Path) -> None:
    shutil.copytree(CASSETTES, tmp_path / "captures")
    (tmp_path / "captures" / "notes.txt").write_text("not a recording")
    found = expand_sources([str(tmp_path / "captures")])
    assert [Path(f).name for f in found.files] == sorted(p.name for p in CASSETTES.iterdir())
    assert found.missing == []


def test_a_folder_takes_recordings_and_captures_but_not_an_unpacked_recordings_parts(tmp_path: Path) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    for name in ("b.zip", "a.har", "c.jsonl", "task.json", "network.json", "MCP_CALLS.json", "dbdiff.json"):
        (folder / name).write_bytes(b"x")
    assert [Path(f).name for f in expand_sources([str(folder)]).files] == ["a.har", "b.zip", "c.jsonl"]


def test_a_glob_takes_captures_and_recordings_but_nothing_else(tmp_path: Path) -> None:
    for name in ("one.jsonl", "two.log", "three.zip", "four.txt", "five.ndjson", "session.json"):
        (tmp_path / name).write_bytes(b"x")
    found = expand_sources([str(tmp_path / "*")])
    assert [Path(f).name for f in found.files] == ["five.ndjson", "one.jsonl", "three.zip", "two.log"]


def test_a_folder_with_no_recording_says_what_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    found = expand_sources([str(tmp_path)])
    assert found.files == []
    [why] = found.missing
    assert why.startswith(f"{tmp_path}: matches no recording (.zip, .har, or an MCP capture (.json, .jsonl")
