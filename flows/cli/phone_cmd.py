"""`rlauto phone demo` / `rlauto phone stop`: the demo phone (an emulated phone shipped with the
product, `device_flows/demo`) in the background; `rlauto phone shell "CMD"`: a shell command on a
phone, real or demo, through the ADB server the flows use (what a person does during a
takeover, or a check of what a task changed)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import psutil
import typer

from flows import stack_procs
from flows.cli.app import app, fail

phone_app = typer.Typer(help="Phones: the demo phone, and shell commands on a phone.", no_args_is_help=True)
app.add_typer(phone_app, name="phone")

REPO = Path(__file__).resolve().parents[2]
DEMO_MODULE = "device_flows.demo"  # started by name: `flows` never imports `device_flows`
READY = "demo phone "  # the first line the demo phone prints once its ADB server listens
START_TIMEOUT_S = 60.0


def adb_address() -> tuple[str, int]:
    """Where the flows look for the ADB server: ANDROID_ADB_SERVER_HOST/PORT, else 127.0.0.1:5037."""
    return os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1"), int(
        os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    )


def demo_file() -> Path:
    from flows import runtime

    return runtime.data_dir() / "stack" / "demo-phone.json"


def running_demo() -> dict[str, Any] | None:
    """The demo phone `rlauto phone demo` started, while it is still that process."""
    try:
        record: dict[str, Any] = json.loads(demo_file().read_text())
    except (OSError, ValueError):
        return None
    return record if stack_procs.find_ours(record) is not None else None


def stop_demo() -> stack_procs.StopReport | None:
    """Stop the recorded demo phone (None when none was recorded) and forget it."""
    path = demo_file()
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except ValueError:
        path.unlink()
        return stack_procs.StopReport(not_ours=[f"{path}: unreadable record"])
    report = stack_procs.stop([record])
    if not report.still_running:
        path.unlink()
    return report


def _ended(pid: int) -> bool:
    # by the pid, not by `find_ours`: right after the start, /proc may not show its command line yet
    try:
        return stack_procs.has_ended(psutil.Process(pid))
    except psutil.NoSuchProcess:
        return True


def _wait_ready(record: dict[str, Any], log: Path) -> str:
    """The demo phone's first line, once it listens; fail with its error when it exits first."""
    mine = f"(pid {record['pid']})"
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        ended = _ended(int(record["pid"]))  # before the log is read: an ended process wrote it all
        text = log.read_text("utf-8", "replace") if log.exists() else ""
        ready = [line for line in text.splitlines() if line.startswith(READY) and line.endswith(mine)]
        if ready:
            return ready[-1]
        if ended:
            lines = [line for line in text.splitlines() if line.strip()]
            fail(lines[-1].removeprefix("error: ") if lines else f"the demo phone exited at once; see {log}")
        time.sleep(0.2)
    stack_procs.stop([record])
    fail(f"the demo phone did not come up within {START_TIMEOUT_S:.0f} s; see {log}")


@phone_app.command("demo")
def demo_command(
    port: Annotated[
        int | None, typer.Option(help="Its ADB server port (default ANDROID_ADB_SERVER_PORT, else 5037).")
    ] = None,
    serial: Annotated[str, typer.Option(help="The phone's serial.")] = "demo-1",
    login: Annotated[bool, typer.Option("--login", help="The notes app asks a person to sign in first.")] = False,
    password: Annotated[str, typer.Option(help="What the person types to sign in (with --login).")] = "demo",
) -> None:
    """Start the demo phone in the background: an emulated phone with notes, settings and a
    shopping list, reached like a real one through its ADB server on 127.0.0.1."""
    if running_demo() is not None:
        fail(f"a demo phone is running already ({demo_file()}); stop it with `rlauto phone stop`")
    host, default_port = adb_address()
    port = port or default_port
    args = [sys.executable, "-m", DEMO_MODULE, "--port", str(port), "--serial", serial, "--password", password]
    args += ["--login"] if login else []
    log = demo_file().with_suffix(".log")
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"")
    record = stack_procs.spawn("demo-phone", args, log, dict(os.environ), REPO)
    ready = _wait_ready(record, log)
    demo_file().write_text(json.dumps({**record, "serial": serial, "port": port}, indent=2))
    typer.echo(ready)
    if (host, port) != ("127.0.0.1", default_port):
        typer.echo(f"the flows and the dashboard look for ADB at {host}:{default_port}: start them with "
                   f"ANDROID_ADB_SERVER_PORT={port}")  # fmt: skip
    typer.echo(f"try it:  rlauto agent run \"Write the note 'Call Alice'\" --device {serial} --model scripted")
    if login:
        typer.echo(f'sign in as the person:  rlauto phone shell "input text {password} && input keyevent 66"')
    typer.echo("stop it: rlauto phone stop (rlauto down stops it too)")


@phone_app.command("stop")
def stop_command() -> None:
    """Stop the demo phone `rlauto phone demo` started."""
    report = stop_demo()
    if report is None:
        typer.echo("no demo phone is recorded")
        return
    if report.still_running:
        fail(f"the demo phone is still running after SIGKILL: {', '.join(report.still_running)}")
    typer.echo("demo phone stopped")


@phone_app.command("shell")
def shell_command(
    command: Annotated[str, typer.Argument(help='A shell command, e.g. "settings get global wifi_on".')],
    device: Annotated[
        str | None, typer.Option("--device", help="The phone's serial (default: the only one connected).")
    ] = None,
) -> None:
    """Run COMMAND on a phone through the ADB server the flows use, and print its output."""
    try:
        import adbutils
    except ImportError:
        fail("the phone tools are not installed: pip install -e '.[device]'")

    host, port = adb_address()
    client = adbutils.AdbClient(host=host, port=port, socket_timeout=10)
    try:
        serials = [d.serial for d in client.device_list()]
        if device is None and len(serials) != 1:
            fail(f"choose the phone with --device (connected: {', '.join(serials) or 'none'})")
        serial = device or serials[0]
        if serial not in serials:
            fail(f"device {serial} is not connected (connected: {', '.join(serials) or 'none'})")
        output = client.device(serial).shell(command, timeout=30)
    except (adbutils.AdbError, OSError) as exc:
        fail(f"ADB server at {host}:{port}: {exc}")
    typer.echo(output)
