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
from tests.servers import deploy_on_new_pool, stop_process

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


def _finished_lines(log_path: Path, count: int) -> str:
    """The worker's output once `count` runs have printed their closing line: a run's final state
    is written before its process's last lines reach the worker's output (a loaded machine lags)."""
    deadline = time.monotonic() + 60
    text = log_path.read_text(errors="replace")
    while text.count("Finished in state") < count:
        # no closing line means no output of the run at all: "no debug line" would prove nothing
        assert time.monotonic() < deadline, f"run {count}'s output never reached the worker's log:\n{text[-2000:]}"
        time.sleep(0.5)
        text = log_path.read_text(errors="replace")
    return text


def _rlauto_debug_loggers(text: str) -> set[str]:
    return {m.group(1) for m in DEBUG_LINE.finditer(text) if m.group(1).startswith("rlauto")}


@pytest.mark.slow
@pytest.mark.prefect
def test_a_workers_flow_run_process_follows_log_level(prefect_api_url: str, tmp_path: Path) -> None:
    """The flow-run subprocess a process worker spawns imports only the flow's file: LOG_LEVEL
    reaches our loggers there too. One worker started with LOG_LEVEL=debug: its run prints a
    debug line of the inbox scan; a run whose environment says info (a job variable) prints none."""
    from prefect.deployments import run_deployment

    pool = f"log-level-{uuid.uuid4().hex[:6]}"
    prefect = [sys.executable, "-m", "prefect"]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    deploy_on_new_pool(pool, ["scan-inbox"], env)

    worker_env = {k: v for k, v in env.items() if k != "LOG_LEVEL"}
    # Prefect's INFO lines on (the session says WARNING): each run's "Finished in state" line
    # shows when the run's output is all in the worker's log
    worker_env.update({"LOG_LEVEL": "debug", "RLAUTO_STORAGE_URL": (tmp_path / "s").as_uri(),
                       "PREFECT_LOGGING_LEVEL": "INFO"})  # fmt: skip
    log_path = tmp_path / "worker.log"
    states: list[str] = []
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*prefect, "worker", "start", "--pool", pool, "--name", pool],
            cwd=tmp_path, env=worker_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            for level, job_variables in (("debug", {}), ("info", {"env": {"LOG_LEVEL": "info"}})):
                inbox = tmp_path / f"inbox-{level}"
                inbox.mkdir()
                run = run_deployment("scan-inbox/scan-inbox", parameters={"inbox_url": str(inbox)},
                                     job_variables=job_variables, timeout=300, poll_interval=1)  # fmt: skip
                states.append(run.state.type.value if run.state else "none")
                if level == "debug":
                    first = _finished_lines(log_path, 1)
            both = _finished_lines(log_path, 2)
        finally:
            stop_process(proc)
    assert states == ["COMPLETED", "COMPLETED"]
    assert _rlauto_debug_loggers(first) == {"rlauto.inbox"}
    assert _rlauto_debug_loggers(both[len(first) :]) == set()


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
