"""`rlauto inspect` on bad input: exit code 2, one line `error: <file>: <problem>` on stderr, no
traceback, nothing written. The first command runs as a real process, the others in this process through the CLI's app."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.importers.corpus import CASES, write_case
from tests.in_process_cli import invoke

REPO = Path(__file__).resolve().parents[2]
CLI_CASES = [
    "not_a_zip",
    "truncated_zip",
    "empty_file",
    "dotdot_entry",
    "symlink_entry",
    "encrypted_entry",
    "task_missing",
    "task_10k_deep_array",
    "network_nan",
    "har_entry_without_request",
    "mcp_call_without_tool",
    "over_max_upload",
]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    cwd: Path


def _env(extra: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MAX_UPLOAD_MB"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Start every command in parallel, then wait for all of them."""
    inputs = tmp_path_factory.mktemp("cli-inputs")
    by_id = {c.id: c for c in CASES}
    commands: dict[str, tuple[list[str], dict[str, str]]] = {}
    for case_id in CLI_CASES:
        case = by_id[case_id]
        folder = inputs / case_id
        folder.mkdir()
        path = write_case(case, folder)
        extra = {"MAX_UPLOAD_MB": str(int(case.max_upload_mb))} if case.max_upload_mb != 100 else {}
        commands[case_id] = (["inspect", str(path)], extra)
    commands["missing_path"] = (["inspect", str(inputs / "nowhere.zip")], {})
    commands["bad_mode"] = (["inspect", str(REPO / "examples" / "recordings" / "issue_tracker.zip"), "--mode", "x"], {})
    # one command as a real process (what a user's terminal gets), the rest in this process
    # through the CLI's own app (a process each cost 3-6 CPU seconds, fourteen times)
    first, *others = commands
    results = {}
    args, extra = commands[first]
    cwd = tmp_path_factory.mktemp(f"cwd-{first}")
    done = subprocess.run([sys.executable, "-c", "from flows.cli import main; main()", *args], cwd=cwd,
                          env=_env(extra), capture_output=True, text=True, timeout=120)  # fmt: skip
    results[first] = Run(done.returncode, done.stdout, done.stderr, cwd)
    here = Path.cwd()
    for name in others:
        args, extra = commands[name]
        cwd = tmp_path_factory.mktemp(f"cwd-{name}")
        os.chdir(cwd)  # whatever the command might write lands where the test looks
        try:
            result = invoke(*args, env={"MAX_UPLOAD_MB": None, **extra})
        finally:
            os.chdir(here)
        results[name] = Run(result.returncode, result.stdout, result.stderr, cwd)
    return results


def check_one_line_error(run: Run, file: str, phrases: tuple[str, ...]) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    line = lines[0]
    assert line.startswith("error: "), line
    assert file in line, line
    assert any(p.lower() in line.lower() for p in phrases), line
    assert list(run.cwd.iterdir()) == [], "nothing may be written to the working directory"


@pytest.mark.parametrize("case_id", CLI_CASES)
def test_inspect_bad_recording(case_id: str, runs: dict[str, Run]) -> None:
    case = next(c for c in CASES if c.id == case_id)
    check_one_line_error(runs[case_id], case.file, case.phrases())


def test_inspect_missing_path(runs: dict[str, Run]) -> None:
    check_one_line_error(runs["missing_path"], "nowhere.zip", ("cannot be read", "not found", "no such file"))


def test_inspect_bad_mode(runs: dict[str, Run]) -> None:
    check_one_line_error(runs["bad_mode"], "mode", ("'api' or 'mcp'",))
