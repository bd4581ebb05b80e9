"""LOG_LEVEL is applied: at `debug` the CLI process prints our DEBUG lines and Prefect's (its
level is handed on through PREFECT_LOGGING_LEVEL to what the process starts); at `info`
neither appears. A real process worker's flow-run process prints our DEBUG lines only at debug."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.servers import stop_process

DEBUG_LINE = re.compile(r"\|\s*DEBUG\s*\|\s*(\S+)")


def _debug_loggers(level: str, tmp_path: Path, api_url: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_LOGGING_LEVEL", "LOG_LEVEL")}
    env.update({"LOG_LEVEL": level, "PREFECT_API_URL": api_url, "PYTHONPATH": str(REPO_ROOT),
                "RLAUTO_STORAGE_URL": (tmp_path / "storage").as_uri(), "RLAUTO_DATA_DIR": str(tmp_path / "data")})  # fmt: skip
    # print PREFECT_LOGGING_LEVEL as the child would inherit it, after the CLI's own run
    script = (
        "import os, sys\n"
        "from flows.cli.app import app\n"
        "try:\n    app(['status', 'job-none'])\n"
        "except SystemExit:\n    pass\n"
        # whether Prefect logs at debug must not hang on which of its modules a command happened to
        # load (Prefect sets its logging up when `prefect.main` loads): a line through that setup
        "import prefect.main\n"
        "from prefect.logging import get_logger\n"
        "get_logger('probe').debug('probe')\n"
        "print('PREFECT_LOGGING_LEVEL=' + os.environ.get('PREFECT_LOGGING_LEVEL', ''), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=180)  # fmt: skip
    assert f"PREFECT_LOGGING_LEVEL={level.upper()}" in done.stderr, done.stderr
    return {m.group(1) for m in DEBUG_LINE.finditer(done.stderr)}


@pytest.mark.slow
def test_debug_lines_appear_at_debug_and_not_at_info(prefect_api_url: str, tmp_path: Path) -> None:
    at_debug = _debug_loggers("debug", tmp_path, prefect_api_url)
    assert "rlauto.cli" in at_debug, at_debug
    assert any(name.startswith("prefect") for name in at_debug), at_debug
    assert _debug_loggers("info", tmp_path, prefect_api_url) == set()


def _debug_lines_of_a_worker_run(level: str, pool: str, tmp_path: Path) -> tuple[str, set[str]]:
    """Start a process worker on `pool` with LOG_LEVEL=`level`, run the scan-inbox deployment
    over an empty inbox through it; the run's final state and the rlauto.* loggers that printed a
    DEBUG line in the worker's output (the flow-run process writes to it)."""
    from prefect.deployments import run_deployment

    env = {k: v for k, v in os.environ.items() if k != "LOG_LEVEL"}
    env.update({"LOG_LEVEL": level, "PYTHONPATH": str(REPO_ROOT), "RLAUTO_STORAGE_URL": (tmp_path / "s").as_uri()})
    inbox = tmp_path / f"inbox-{level}"
    inbox.mkdir()
    log_path = tmp_path / f"worker-{level}.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", pool, "--name", f"{pool}-{level}"],
            cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            run = run_deployment(
                "scan-inbox/scan-inbox", parameters={"inbox_url": str(inbox)}, timeout=300, poll_interval=1
            )
            # the run's final state is written before its process's last lines reach the worker's
            # output: stop the worker only once the run's closing line is there (a loaded machine lags)
            deadline = time.monotonic() + 60
            while "Finished in state" not in log_path.read_text(errors="replace") and time.monotonic() < deadline:
                time.sleep(0.5)
        finally:
            stop_process(proc)
    state = run.state.type.value if run.state else "none"
    return state, {m.group(1) for m in DEBUG_LINE.finditer(log_path.read_text()) if m.group(1).startswith("rlauto")}


@pytest.mark.slow
@pytest.mark.prefect
def test_a_workers_flow_run_process_follows_log_level(prefect_api_url: str, tmp_path: Path) -> None:
    """The flow-run subprocess a process worker spawns imports only the flow's file: LOG_LEVEL
    reaches our loggers there too (a debug line of the inbox scan at debug, none at info)."""
    pool = f"log-level-{uuid.uuid4().hex[:6]}"
    prefect = [sys.executable, "-m", "prefect"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    subprocess.run([*prefect, "work-pool", "create", pool, "--type", "process"], env=env, check=True,
                   capture_output=True)  # fmt: skip
    deploy = subprocess.run([*prefect, "--no-prompt", "deploy", "-n", "scan-inbox", "--pool", pool],
                            cwd=REPO_ROOT, env=env, capture_output=True, text=True)  # fmt: skip
    assert deploy.returncode == 0, deploy.stdout[-2000:] + deploy.stderr[-2000:]
    assert _debug_lines_of_a_worker_run("debug", pool, tmp_path) == ("COMPLETED", {"rlauto.inbox"})
    assert _debug_lines_of_a_worker_run("info", pool, tmp_path) == ("COMPLETED", set())


@pytest.mark.parametrize(("level", "expected"), [("debug", "DEBUG"), ("warning", "WARNING")])
def test_loading_the_phone_flows_applies_log_level(level: str, expected: str, tmp_path: Path) -> None:
    """The phone worker's flow-run process imports only device_flows' file: our loggers there
    (rlauto.agent ...) take LOG_LEVEL when the package loads."""
    env = {k: v for k, v in os.environ.items() if k != "LOG_LEVEL"}
    env.update({"LOG_LEVEL": level, "PYTHONPATH": str(REPO_ROOT)})
    script = "import logging, device_flows; print(logging.getLevelName(logging.getLogger('rlauto.agent').getEffectiveLevel()))"
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=True)  # fmt: skip
    assert done.stdout.strip() == expected
