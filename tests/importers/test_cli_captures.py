"""`rlauto inspect` on the new capture formats, as real subprocesses started together: a capture
that began mid-session shows the orphan flag with its ids; a bare public cassette is an MCP
recording; captures that cannot be recordings end with one line `error: <file>: <problem>`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.importers.corpus import TASK, jsonrpc_lines
from tests.importers.mcp_samples import claude_line
from tests.importers.zipcraft import jbytes, zip_bytes

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"

# four `rlauto inspect` processes, each importing the CLI: 2-4 s of the module fixture
pytestmark = pytest.mark.slow


def _inputs(folder: Path) -> dict[str, list[str]]:
    orphan = folder / "mid-session.zip"
    orphan.write_bytes(
        zip_bytes(
            {
                "task.json": jbytes(TASK),
                "mcp_calls.json": jsonrpc_lines(
                    {"jsonrpc": "2.0", "id": 41, "result": {"content": []}},
                    {"jsonrpc": "2.0", "id": 42, "method": "tools/call", "params": {"name": "notes_create"}},
                    {"jsonrpc": "2.0", "id": 42, "result": {"content": [{"type": "text", "text": "ok"}]}},
                ),
            }
        )
    )
    cut = folder / "mcp-server-filesystem.log"
    cut.write_text(
        claude_line("2026-03-01T09:47:44.588Z", "filesystem", "client", '{"method":"tools/call","params":{"name":"w')
        + "...[8499 chars truncated]...\n"
    )
    unknown = folder / "trace.json"
    unknown.write_bytes(jbytes({"spans": [], "resource": {}}))
    return {
        "orphan": ["inspect", "--json", str(orphan)],
        "orphan_table": ["inspect", str(orphan)],
        "cassette": ["inspect", "--json", str(DATA / "mcp" / "cassette" / "mcp-recorder_mock_session.json")],
        "cut": ["inspect", str(cut)],
        "unknown": ["inspect", str(unknown)],
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, subprocess.CompletedProcess[str]]:
    commands = _inputs(tmp_path_factory.mktemp("inputs"))
    env = {k: v for k, v in os.environ.items() if k != "MAX_UPLOAD_MB"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["COLUMNS"] = "200"
    started = {
        name: subprocess.Popen(
            [sys.executable, "-c", "from flows.cli import main; main()", *args],
            cwd=tmp_path_factory.mktemp(f"cwd-{name}"),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, args in commands.items()
    }
    done = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=120)
        done[name] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return done


def test_orphan_response_is_a_flag_with_its_ids(runs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    run = runs["orphan"]
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["calls_total"] == 1
    flag = next(f for f in report["flags"] if f["code"] == "orphan_responses")
    assert flag["call_ids"] == ["41"] and flag["severity"] == "warning" and "mid-session" in flag["message"]
    table = runs["orphan_table"]
    assert table.returncode == 0 and "orphan_responses" in table.stdout and "41" in table.stdout


def test_bare_public_cassette(runs: dict[str, subprocess.CompletedProcess[str]]) -> None:
    run = runs["cassette"]
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert (report["mode"], report["calls_total"]) == ("mcp", 4)
    assert report["files"] == ["mcp-recorder_mock_session.json"]


@pytest.mark.parametrize(
    ("name", "file", "phrase"),
    [
        ("cut", "mcp-server-filesystem.log", "arguments are lost"),
        ("unknown", "trace.json", "a JSON object with keys [spans, resource]"),
    ],
)
def test_one_line_errors(runs: dict[str, subprocess.CompletedProcess[str]], name: str, file: str, phrase: str) -> None:
    run = runs[name]
    assert run.returncode == 2 and "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {file}: ") and phrase in lines[0], run.stderr
