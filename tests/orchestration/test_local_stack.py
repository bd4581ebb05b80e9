"""The local stack's process handling, with real processes: `rlauto down` stops only what is
still ours and waits until it has ended; `rlauto dashboard` stopped by a signal leaves nothing
behind; a missing or unwritable home does not stall Prefect."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import psutil
import pytest

from tests.conftest import EXAMPLES, REPO_ROOT
from tests.orchestration.test_entry_points import RLAUTO, clean_env
from tests.servers import free_port, wait_http

# A stand-in for a stack process: it leads its session and starts a child in its group. The
# leader exits at once on SIGTERM; the child needs 3 s to wind down, as a worker's flow run does.
SLOW_FAMILY = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c",
        "import signal, time\\n"
        "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(3), exit(0)))\\n"
        "print('child ready', flush=True)\\n"
        "time.sleep(600)"], stdout=sys.stdout)
    print(child.pid, flush=True)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    time.sleep(600)
    """
)


def ended(proc: psutil.Process) -> bool:
    """Gone, or a zombie (it has ended; only its exit status waits to be read)."""
    try:
        return proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def record(proc: psutil.Process, name: str) -> dict[str, object]:
    return {"name": name, "pid": proc.pid, "create_time": proc.create_time(), "cmdline": proc.cmdline()}


def write_stack(env: dict[str, str], processes: list[dict[str, object]]) -> Path:
    path = Path(env["RLAUTO_DATA_DIR"]) / "stack" / "stack.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    pids = [p["pid"] for p in processes]
    stack = {"api_url": "http://127.0.0.1:9/api", "processes": processes, "pids": pids, "server_pid": pids[0]}
    path.write_text(json.dumps(stack))
    return path


def start_in_own_session(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def kill_quietly(*procs: psutil.Process) -> None:
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()


def test_down_leaves_a_pid_that_is_no_longer_ours_alone(tmp_path: Path) -> None:
    """The recorded pid now belongs to another program (other start time, other command line):
    `down` does not signal it, says so, and removes the record."""
    env = clean_env(tmp_path)
    stranger = start_in_own_session([sys.executable, "-c", "import time; time.sleep(600)"], tmp_path / "s.log")
    other = psutil.Process(stranger.pid)
    try:
        # what `up` would have recorded for a server that has since died, its pid reused
        reused = {"name": "server", "pid": other.pid, "create_time": other.create_time() - 3600.0,
                  "cmdline": [sys.executable, "-m", "prefect", "server", "start"]}  # fmt: skip
        path = write_stack(env, [reused])
        down = subprocess.run([*RLAUTO, "down"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr
        time.sleep(0.5)
        assert other.is_running() and not ended(other), "down signalled a process that is not ours"
        assert f"server (pid {other.pid}): no longer the process rlauto up started" in down.stdout
        assert not path.exists()
    finally:
        kill_quietly(other)
        stranger.wait(10)


@pytest.mark.slow
def test_down_waits_until_every_process_it_started_has_ended(tmp_path: Path) -> None:
    """Two recorded processes, each with a child in its group that takes 3 s to stop: when
    `down` returns, all four have ended, and it reports both as stopped."""
    env = clean_env(tmp_path)
    families = []
    for n in range(2):
        log = tmp_path / f"family-{n}.log"
        leader = start_in_own_session([sys.executable, "-c", SLOW_FAMILY], log)
        deadline = time.monotonic() + 30
        while "child ready" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        child = psutil.Process(int(log.read_text().split()[0]))
        families.append((leader, psutil.Process(leader.pid), child))
    path = write_stack(env, [record(p, f"worker-{n}") for n, (_, p, _) in enumerate(families)])
    try:
        down = subprocess.run([*RLAUTO, "down"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        alive = [proc.pid for _, leader, child in families for proc in (leader, child) if not ended(proc)]
        assert down.returncode == 0, down.stderr
        assert alive == [], f"still running after down returned: {alive}"
        for n, (_, leader, _) in enumerate(families):
            assert f"worker-{n} (pid {leader.pid})" in down.stdout
        assert "local stack stopped" in down.stdout and not path.exists()
    finally:
        for popen, leader, child in families:
            kill_quietly(child, leader)
            popen.wait(10)


@pytest.mark.slow
def test_dashboard_stopped_by_sigterm_leaves_no_streamlit_behind(tmp_path: Path) -> None:
    port = free_port()
    env = clean_env(tmp_path)
    with (tmp_path / "dashboard.log").open("wb") as log:
        dashboard = subprocess.Popen(
            [*RLAUTO, "dashboard", "--port", str(port), "--storage", (tmp_path / "store").as_uri()],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    family: list[psutil.Process] = []
    try:
        wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=90, proc=dashboard)
        family = [psutil.Process(dashboard.pid), *psutil.Process(dashboard.pid).children(recursive=True)]
        dashboard.send_signal(signal.SIGTERM)  # to the process we started, as a supervisor would
        dashboard.wait(30)
        deadline = time.monotonic() + 15
        while not all(ended(p) for p in family) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [p.pid for p in family if not ended(p)] == [], "a child of rlauto dashboard outlived it"
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
    finally:
        kill_quietly(*family)
        if dashboard.poll() is None:
            dashboard.kill()
            dashboard.wait(10)


HOME_PROBE = "import os; from flows import runtime; runtime.configure(); print(os.environ.get('PREFECT_HOME', '-'))"


@pytest.mark.parametrize("home", ["missing", "unwritable", "a file"])
def test_an_unusable_home_moves_prefects_files_into_the_data_folder(tmp_path: Path, home: str) -> None:
    env = {k: v for k, v in clean_env(tmp_path).items() if k != "PREFECT_HOME"}
    env["HOME"] = {
        "missing": str(tmp_path / "no-such-home"),  # Prefect creates ~/.prefect without parents
        "unwritable": "/proc",  # not even root can create a folder there
        "a file": str(EXAMPLES / "shop_checkout.zip"),
    }[home]
    done = subprocess.run([sys.executable, "-c", HOME_PROBE], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "data" / "prefect-home")
    assert "cannot be written; Prefect keeps its files in" in done.stderr and "set PREFECT_HOME" in done.stderr


def test_a_usable_home_is_left_to_prefect(tmp_path: Path) -> None:
    env = {k: v for k, v in clean_env(tmp_path).items() if k != "PREFECT_HOME"} | {"HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", HOME_PROBE], cwd=REPO_ROOT, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "-" and done.stderr == ""


def test_up_refuses_a_database_url_it_cannot_use_and_never_shows_a_password(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    done = subprocess.run(
        [*RLAUTO, "up", "--port", str(free_port()), "--database-url", "mysql://root:s3cret-canary@db/prefect"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "expected postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE" in done.stderr
    assert "s3cret-canary" not in done.stdout + done.stderr and "mysql://root:***@db/prefect" in done.stderr
    assert not (tmp_path / "data" / "stack" / "stack.json").exists(), "nothing may start"
