"""`rlauto agent policy LOG` as a user runs it: JSON out, one-line errors. The command runs in
this process through the CLI's own app (a subprocess per case cost 3-6 CPU seconds each, twenty
times); one case runs as a real process to show what a user's terminal gets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.in_process_cli import Done, invoke

CLI = [sys.executable, "-c", "from flows.cli import main; main()", "agent", "policy"]


def _run(*args: str) -> Done:
    return invoke("agent", "policy", *args)


def _run_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def _line(tool: str = "tap", ok: bool = False, **fields: object) -> str:
    data: dict[str, object] = {"tool": tool, "args": {"text": "Nope"}, "ok": ok, "error": None if ok else "not found"}
    data.update(fields)
    return json.dumps(data)


def test_a_looping_log_pauses_at_the_fuse_with_its_hints(tmp_path: Path) -> None:
    log = tmp_path / "steps.jsonl"
    looks = json.dumps({"tool": "screenshot", "args": {}, "ok": True, "error": None})
    log.write_text("\n".join([_line(), looks, _line(), "", _line(), _line(), _line(), _line(), _line()]) + "\n")
    done = _run(str(log), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"verdict": "paused", "fuse": "same_action", "at": 8, "hints": [5]}
    text = _run(str(log))
    assert text.returncode == 0 and text.stdout.splitlines() == [
        "paused: same_action at line 8",
        "hints at lines: 5",
        "re-routes at lines: 6",
    ]


def test_state_changing_decides_when_given_and_a_resume_line_starts_over(tmp_path: Path) -> None:
    log = tmp_path / "steps.jsonl"
    # the same tap, but recorded as not changing state: never a same-action repeat
    quiet = [_line(ok=True, state_changing=False) for _ in range(10)]
    resumed = [_line()] * 6 + [json.dumps({"resumed": True, "note": "fixed"})] + [_line()] * 2
    log.write_text("\n".join(quiet) + "\n")
    assert json.loads(_run(str(log), "--json").stdout) == {"verdict": "continue", "fuse": None, "at": None, "hints": []}
    log.write_text("\n".join(resumed) + "\n")
    assert json.loads(_run(str(log), "--json").stdout)["verdict"] == "continue"
    errors = [json.dumps({"tool": "swipe", "args": {"n": i}, "ok": False, "error": "device gone"}) for i in range(8)]
    log.write_text("\n".join(errors))
    assert json.loads(_run(str(log), "--json").stdout) == {
        "verdict": "paused",
        "fuse": "same_error",
        "at": 8,
        "hints": [3],
    }


def test_a_log_of_calls_that_never_reached_the_phone_pauses_on_the_same_error_and_a_chat_ends_at_four(
    tmp_path: Path,
) -> None:
    log = tmp_path / "steps.jsonl"
    unknown = {"tool": "open_app", "args": {}, "ok": False, "error": "unknown tool 'open_app'", "state_changing": False,
               "rejected": "unknown_tool"}  # fmt: skip
    log.write_text("\n".join([json.dumps(unknown)] * 9) + "\n")
    assert json.loads(_run(str(log), "--json").stdout) == {
        "verdict": "paused",
        "fuse": "same_error",
        "at": 8,
        "hints": [3],
    }
    log.write_text('{"chat": true}\n' * 4)
    chat = _run(str(log))
    assert (
        chat.returncode == 0 and chat.stdout.splitlines()[0] == "chat ended: 4 answers without a tool call, at line 4"
    )
    assert json.loads(_run(str(log), "--json").stdout) == {"verdict": "chat_ended", "fuse": None, "at": 4, "hints": []}


def test_bad_logs_exit_2_with_one_line_naming_the_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text(_line() + "\n{not json\n")
    typed = tmp_path / "typed.jsonl"
    typed.write_text(_line() + "\n" + json.dumps({"tool": "tap", "args": {}, "ok": "yes"}) + "\n")
    args_list = tmp_path / "args.jsonl"
    args_list.write_text(json.dumps({"tool": "tap", "args": [1], "ok": True}) + "\n")
    succeeded = tmp_path / "succeeded.jsonl"
    succeeded.write_text(json.dumps({"tool": "tap", "args": {}, "ok": True, "rejected": "unknown_tool"}) + "\n")
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"chat": "yes"}\n')
    array = tmp_path / "array.jsonl"
    array.write_text("[1, 2]\n")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(_line().encode() + b"\n\xff\xfe\x00garbage\n")
    long_line = tmp_path / "long.jsonl"
    long_line.write_text(
        _line() + "\n" + json.dumps({"tool": "tap", "args": {"t": "x" * (1024 * 1024 + 10)}, "ok": True})
    )
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: the size is checked before anything is read
    cases = {
        str(broken): f"error: {broken}: line 2: not JSON",
        str(typed): f"error: {typed}: line 2: ok: Input should be a valid boolean",
        str(args_list): f"error: {args_list}: line 1: args: Input should be a valid dictionary",
        str(array): f"error: {array}: line 1: expected a JSON object, got list",
        str(
            succeeded
        ): f"error: {succeeded}: line 1: Value error, a call that never reached the phone (unknown_tool) cannot be ok",
        str(chat): f"error: {chat}: line 1: chat: Input should be True",
        str(binary): f"error: {binary}: line 2: not UTF-8 text",
        str(long_line): f"error: {long_line}: line 2: line is over 1024 KiB",
        str(huge): f"error: {huge}: 68157440 bytes is over the 64 MiB limit for a step log",
        str(tmp_path / "missing.jsonl"): f"error: {tmp_path / 'missing.jsonl'}: cannot read: No such file",
        str(tmp_path): f"error: {tmp_path}: is a directory",
    }
    for path, message in cases.items():
        done = _run(path, "--json")
        assert done.returncode == 2, (path, done.stderr)
        assert done.stderr.startswith(message), done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and done.stdout == ""
    process = _run_process(str(broken), "--json")
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.startswith(f"error: {broken}: line 2: not JSON") and process.stderr.count("\n") == 1
