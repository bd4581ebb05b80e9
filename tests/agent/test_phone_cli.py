"""`rlauto phone demo / shell / stop` as a person runs them: the demo phone in the background,
reached by the real adbutils client like any phone, its state read back by a shell command,
refused twice and on a taken port, stopped by `rlauto phone stop` and by `rlauto down`."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import adbutils
import psutil
import pytest

from tests.in_process_cli import Done, invoke
from tests.orchestration.test_entry_points import RLAUTO, clean_env
from tests.servers import free_port

pytestmark = pytest.mark.slow  # the demo phone's processes
REPO = Path(__file__).resolve().parents[2]


def rlauto(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RLAUTO, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def in_process(env: dict[str, str], *args: str) -> Done:
    """A command that only talks to the phone, run through the CLI's app in this process (a
    process of its own costs 3-6 CPU seconds); the demo phone's start and stop stay real processes."""
    return invoke(*args, env={k: env[k] for k in ("ANDROID_ADB_SERVER_PORT", "RLAUTO_DATA_DIR")})


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return clean_env(tmp_path) | {"ANDROID_ADB_SERVER_PORT": str(free_port())}


def _demo_pid(env: dict[str, str]) -> int:
    return int(json.loads((Path(env["RLAUTO_DATA_DIR"]) / "stack" / "demo-phone.json").read_text())["pid"])


def test_the_demo_phone_runs_in_the_background_until_stopped(env: dict[str, str]) -> None:
    port = int(env["ANDROID_ADB_SERVER_PORT"])
    started = rlauto(env, "phone", "demo", "--login")
    try:
        assert started.returncode == 0, started.stderr
        lines = started.stdout.splitlines()
        assert lines[0].startswith(f"demo phone demo-1 on the ADB server 127.0.0.1:{port} (pid ")
        assert "--device demo-1 --model scripted" in started.stdout and "rlauto phone stop" in started.stdout
        client = adbutils.AdbClient(host="127.0.0.1", port=port)
        assert [(d.serial, d.state) for d in client.list()] == [("demo-1", "device")]
        again = in_process(env, "phone", "demo")
        assert again.returncode == 2 and "a demo phone is running already" in again.stderr
        # what a person does during a takeover, and what a checker reads back
        signed = in_process(
            env, "phone", "shell", "monkey -p com.example.notes 1; input text demo && input keyevent 66"
        )
        assert signed.returncode == 0, signed.stderr
        state = json.loads(in_process(env, "phone", "shell", "dumpsys rlauto-demo").stdout)
        assert state["foreground"] == "com.example.notes" and state["notes"]["signed_in"] is True
        assert (
            in_process(env, "phone", "shell", "settings get global wifi_on", "--device", "demo-1").stdout.strip() == "0"
        )
        unknown = in_process(env, "phone", "shell", "true", "--device", "demo-9")
        assert unknown.returncode == 2 and unknown.stderr.startswith("error: device demo-9 is not connected")
        pid = _demo_pid(env)
    finally:
        stopped = rlauto(env, "phone", "stop")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "demo phone stopped"
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert in_process(env, "phone", "stop").stdout.strip() == "no demo phone is recorded"


def test_a_taken_port_is_refused_and_down_stops_the_demo_phone(env: dict[str, str]) -> None:
    port = int(env["ANDROID_ADB_SERVER_PORT"])
    with socket.socket() as taken:  # another ADB server, say
        taken.bind(("127.0.0.1", port))
        taken.listen()
        refused = rlauto(env, "phone", "demo")
    assert refused.returncode == 2 and f"127.0.0.1:{port} cannot be used" in refused.stderr
    assert "Traceback" not in refused.stderr
    started = rlauto(env, "phone", "demo", "--serial", "demo-7")
    assert started.returncode == 0, started.stderr
    pid = _demo_pid(env)
    down = rlauto(env, "down")
    assert down.returncode == 0 and "demo phone stopped" in down.stdout
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
