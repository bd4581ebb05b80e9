"""`rlauto gesture parse` as a user runs it: JSON out, one-line errors. The command runs in this
process through the CLI's own app (a process per case cost 3-6 CPU seconds); one case runs as a
real process to show what a user's terminal gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.getevent_writer import CAPS_LP, line_stroke, write_trace
from tests.in_process_cli import Done, invoke

CLI = [sys.executable, "-c", "from flows.cli import main; main()", "gesture", "parse"]


def _run(*args: str) -> Done:
    return invoke("gesture", "parse", *args)


def test_json_output_in_pixels_with_caps_and_screen_and_raw_without(tmp_path: Path) -> None:
    trace = tmp_path / "swipe.txt"
    trace.write_text(write_trace([line_stroke((400, 8000), (400, 2000), 50.0, 0.3)], "B"))
    caps = tmp_path / "caps.txt"
    caps.write_text(CAPS_LP)
    done = _run(str(trace), "--caps", str(caps), "--screen", "1080x2340", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["device"] == {"path": "/dev/input/event2", "name": "fts_ts"}
    assert out["protocol"] == "B"
    [gesture] = out["gestures"]
    assert gesture["points"][0] == [100, 2000, 0] and gesture["points"][-1] == [100, 500, 308]
    assert gesture["duration_ms"] == 308
    raw = json.loads(_run(str(trace), "--json").stdout)
    assert raw["gestures"][0]["points"][0] == [400, 8000, 0] and raw["in_pixels"] is False


def test_bad_input_exits_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x00\xff" * 5000 + b"\n[ 1.0] nothing\n")
    good = tmp_path / "t.txt"
    good.write_text(write_trace([line_stroke((1, 1), (9, 9), 1.0, 0.1)], "A"))
    cases = {
        (str(garbage),): f"error: {garbage}: no input events in 2 lines",
        (str(tmp_path / "missing.txt"),): f"error: {tmp_path / 'missing.txt'}: cannot read: No such file",
        (str(good), "--screen", "wide"): "error: --screen: expected WIDTHxHEIGHT",
        (str(good), "--caps", str(garbage)): f"error: {garbage}: no `add device` block",
    }
    for args, message in cases.items():
        done = _run(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith(message), done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert done.stdout == ""
    process = subprocess.run([*CLI, str(garbage)], capture_output=True, text=True, timeout=120)
    assert process.returncode == 2 and process.stdout == ""
    assert (
        process.stderr.startswith(f"error: {garbage}: no input events in 2 lines") and process.stderr.count("\n") == 1
    )
