"""The `run-agent` (or `eval-agent-suite`) deployment served by a real Prefect runner in a
subprocess, as a worker on pool `phones` would run it: each flow run in its own process, reaching
the demo phone and the fake model server over loopback, the key only in its environment."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prefect.client.orchestration import get_client
from prefect.exceptions import ObjectNotFound

from rlauto_core.agent.launch import EVAL_SUITE_DEPLOYMENT, RUN_AGENT_DEPLOYMENT
from tests.conftest import REPO_ROOT
from tests.servers import stop_process

SERVE = "from device_flows.agent_flow import run_agent; run_agent.serve(name='run-agent', limit=2, print_starting_message=False)"
SERVE_EVAL = (
    "from device_flows.agent_eval_flow import eval_agent_suite; "
    "eval_agent_suite.serve(name='eval-agent-suite', limit=2, print_starting_message=False)"
)


def _deployment_exists(name: str) -> bool:
    with get_client(sync_client=True) as client:
        try:
            client.read_deployment_by_name(name)
        except ObjectNotFound:
            return False
    return True


@contextmanager
def served_run_agent(log: Path) -> Iterator[dict[str, str]]:
    """Serve `run-agent` with this process's environment (Prefect, ADB, AGENT_* settings);
    yields that environment for other subprocesses (the CLI, the dashboard)."""
    with _served(log, SERVE, RUN_AGENT_DEPLOYMENT) as env:
        yield env


@contextmanager
def served_eval_suite(log: Path) -> Iterator[dict[str, str]]:
    """Serve `eval-agent-suite` the same way."""
    with _served(log, SERVE_EVAL, EVAL_SUITE_DEPLOYMENT) as env:
        yield env


@contextmanager
def _served(log: Path, code: str, deployment: str) -> Iterator[dict[str, str]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    env["PREFECT_RUNNER_POLL_FREQUENCY"] = "1"
    env["PREFECT_LOGGING_LEVEL"] = "INFO"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], env=env, cwd=REPO_ROOT, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not _deployment_exists(deployment):
                assert proc.poll() is None, f"the runner exited: {log.read_text()[-2000:]}"
                assert time.monotonic() < deadline, "the deployment was not served in time"
                time.sleep(0.5)
            yield env
        finally:
            stop_process(proc)
            with get_client(sync_client=True) as client:  # the next test serves its own
                client.delete_deployment(client.read_deployment_by_name(deployment).id)
