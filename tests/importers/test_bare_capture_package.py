"""A bare MCP capture enters as an MCP recording and leaves as one: its package holds the
capture, byte for byte, as `mcp_calls.json` next to the new task.json, and reads back with the
same calls. A bare HAR keeps its name."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from rlauto_core.importers import import_path
from rlauto_core.package import export_package
from rlauto_core.package.models import TaskPackage
from tests.importers.mcp_samples import claude_log

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("kind", ["cassette", "client log"])
def test_bare_capture_package_reads_back_as_the_same_mcp_recording(kind: str, tmp_path: Path) -> None:
    if kind == "cassette":
        source = DATA / "mcp" / "cassette" / "mcp-recorder_mock_session.json"
    else:
        source = tmp_path / "mcp-server-filesystem.log"
        source.write_text(claude_log())
    before = import_path(source)
    out = export_package(source, TaskPackage(), tmp_path / "out")
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["mcp_calls.json", "task.json"]
        assert archive.read("mcp_calls.json") == source.read_bytes()
    after = import_path(out)
    assert after.detected_mode.value == "mcp"
    assert [(c.id, c.name) for c in after.calls] == [(c.id, c.name) for c in before.calls]


def test_bare_har_keeps_its_name(tmp_path: Path) -> None:
    out = export_package(DATA / "har" / "insomnia.har", TaskPackage(), tmp_path / "out")
    with zipfile.ZipFile(out) as archive:
        assert sorted(archive.namelist()) == ["insomnia.har", "task.json"]
