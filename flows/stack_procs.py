"""The processes `rlauto up` starts, recorded so that `rlauto down` stops those and only those.

A pid alone is no proof: after a reboot or a crash the number may belong to another program. So
each process is recorded with its start time and command line, and `down` signals it only when
both still match. Each runs in a session of its own (its process group id is its pid), so one
signal reaches the children it started too; `down` then waits until every one of them has
ended (a zombie has ended: it only waits for its parent to read its exit status).

psutil (a runtime dependency) reads start times and command lines on Linux and macOS alike.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

TERM_GRACE_SECONDS = 30.0  # a busy Prefect server may take a while; a worker stops in about 2 s
KILL_GRACE_SECONDS = 10.0


def spawn(name: str, args: list[str], log: Path, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Start `args` in a session of its own, output to `log`; what `down` needs to find it again."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    # the start time is fixed at fork; the command line is `args` itself (its argv), recorded as
    # given: read back at once, /proc may still show the empty one of a process mid-exec
    return {"name": name, "pid": proc.pid, "create_time": psutil.Process(proc.pid).create_time(), "cmdline": args}


def find_ours(record: dict[str, Any]) -> psutil.Process | None:
    """The recorded process if it still runs and is the one we started (same start time and
    command line), else None."""
    try:
        proc = psutil.Process(int(record["pid"]))
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        same_start = abs(proc.create_time() - float(record["create_time"])) < 0.05
        if same_start and proc.cmdline() == list(record["cmdline"]):
            return proc
    except (psutil.Error, KeyError, TypeError, ValueError):
        return None
    return None


def has_ended(proc: psutil.Process) -> bool:
    try:
        return proc.status() == psutil.STATUS_ZOMBIE or not proc.is_running()
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


@dataclass
class StopReport:
    stopped: list[str] = field(default_factory=list)
    not_ours: list[str] = field(default_factory=list)
    still_running: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)


def stop(records: list[dict[str, Any]], term_grace: float = TERM_GRACE_SECONDS) -> StopReport:
    """SIGTERM each recorded process that is still ours, with its process group and children
    (last recorded first: workers and dashboard before the server); wait until all have ended;
    SIGKILL what is left after `term_grace` seconds and wait again."""
    report = StopReport()
    targets: list[tuple[str, psutil.Process, list[psutil.Process]]] = []
    for record in reversed(records):
        label = f"{record.get('name', 'process')} (pid {record.get('pid')})"
        proc = find_ours(record)
        if proc is None:
            if _alive(record):
                report.not_ours.append(label)
            else:
                report.stopped.append(label)  # it had ended already
            continue
        with contextlib.suppress(psutil.Error):
            family = proc.children(recursive=True)
        targets.append((label, proc, [proc, *family]))
        _signal_group(proc.pid, signal.SIGTERM)
        for member in family:  # children that left the group (a new session) get it too
            with contextlib.suppress(psutil.Error):
                member.send_signal(signal.SIGTERM)
    _wait(targets, term_grace)
    for label, proc, family in targets:
        if any(not has_ended(member) for member in family):
            report.killed.append(label)
            if not has_ended(proc):  # still the same process (psutil checks its start time)
                _signal_group(proc.pid, signal.SIGKILL)
            for member in family:
                with contextlib.suppress(psutil.Error):
                    member.kill()
    _wait(targets, KILL_GRACE_SECONDS)
    for label, _proc, family in targets:
        (report.still_running if any(not has_ended(m) for m in family) else report.stopped).append(label)
    return report


def _alive(record: dict[str, Any]) -> bool:
    try:
        return psutil.Process(int(record["pid"])).status() != psutil.STATUS_ZOMBIE
    except (psutil.Error, KeyError, TypeError, ValueError):
        return False


def _signal_group(pid: int, signum: int) -> None:
    """Signal the process group that the process `pid` (ours, started in a session of its own)
    leads; a group id is not reused while any member lives, so this reaches only what it started."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)


def _wait(targets: list[tuple[str, psutil.Process, list[psutil.Process]]], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if all(has_ended(member) for _label, _proc, family in targets for member in family):
            return
        time.sleep(0.1)
