"""The README's three lines to watch the agent work, as a newcomer with no phone runs them:
`rlauto up --phones`, `rlauto phone demo`, `rlauto agent run ... --device demo-1 --model
scripted`. Here the demo phone asks a person to sign in: the run waits for the person (holding
the one agent slot, so `rlauto designer run` is refused), the person signs in on the phone and
hands back, the note is read back from the phone; then `rlauto designer run` designs a task on
the same phone with a model; `rlauto down` stops everything, the phones worker and the demo
phone included.

The same stack, on a port other than 4200, is the one every `rlauto up` user gets: its server
holds the flows deployed, a worker on pool `rlauto` and the dashboard answer; `rlauto package`
runs on that server and the Prefect UI, opened in Chromium, shows the run (its API calls go to
the stack's port); `rlauto status` lists the job; a second `up` is refused. PATH holds no
virtual environment throughout, as for a user who never activated one (one stack for both: a
second one would prove nothing the first does not)."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.memory.test_designer import VALID
from tests.agent.scripts import call, turn
from tests.fakes.llm_server import FakeLlmServer
from tests.orchestration.test_entry_points import (
    RLAUTO,
    assert_all_ended,
    clean_env,
    run_stack_job,
    stop_stack,
    ui_shows_run,
)
from tests.servers import free_port, wait_http

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-readme-demo-canary-41c2"


def rlauto(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RLAUTO, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


class Following:
    """A CLI command in the background; its output lines as they come."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.proc = subprocess.Popen([*RLAUTO, *args], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)  # fmt: skip
        self.lines: list[str] = []
        assert self.proc.stdout is not None
        stdout = self.proc.stdout
        threading.Thread(target=lambda: self.lines.extend(stdout), daemon=True).start()

    def wait_for(self, text: str, timeout: float = 240) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = next((line for line in list(self.lines) if text in line), None)
            if found is not None:
                return found
            assert self.proc.poll() is None or text in "".join(self.lines), "".join(self.lines)[-3000:]
            time.sleep(0.5)
        raise AssertionError(f"{text!r} not seen: {''.join(self.lines)[-3000:]}")


def quiet_port() -> int:
    """A free port below Linux's ephemeral range: the stack's own connections never take it
    while `rlauto up` runs (the demo phone binds it only afterwards)."""
    for port in random.sample(range(20000, 30000), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 20000-30000")


def _online(api: str, pool: str) -> bool:
    workers: list[dict[str, Any]] = httpx.post(f"{api}/work_pools/{pool}/workers/filter", json={}, timeout=10).json()
    return any(w.get("status") == "ONLINE" for w in workers)


def readme_demo_lines() -> list[str]:
    """The README's second command block: the lines to watch the agent work."""
    blocks = (REPO / "README.md").read_text().split("```bash\n")[1:]
    return [line for line in blocks[1].split("```", 1)[0].splitlines() if line.strip()]


def test_the_readme_shows_the_three_lines_this_test_runs() -> None:
    up, demo, agent = readme_demo_lines()
    assert up.endswith("&& .venv/bin/rlauto up --phones") and "'.[device,dashboard]'" in up
    assert demo == ".venv/bin/rlauto phone demo"
    assert agent == ".venv/bin/rlauto agent run \"Write the note 'Call Alice'\" --device demo-1 --model scripted"


@pytest.mark.slow  # a whole stack with two workers
def test_the_readme_lines_run_the_agent_on_the_demo_phone_and_down_stops_it_all(tmp_path: Path) -> None:
    port, dashboard_port = free_port(), free_port()
    stack_file = tmp_path / "data" / "stack" / "stack.json"
    with FakeLlmServer() as fake:
        # the designer's model; the scripted agent run must never call it
        fake.script("agent", turn(call("submit_task", name="Write the standup note", steps=VALID)))
        env = clean_env(tmp_path) | {
            "ANDROID_ADB_SERVER_PORT": str(quiet_port()), "AGENT_BASE_URL": fake.base_url(), "AGENT_MODEL": "agent",
            "AGENT_API_KEY": KEY, "PREFECT_WORKER_QUERY_SECONDS": "2", "PATH": "/usr/bin:/bin",
        }  # fmt: skip
        up = rlauto(env, "up", "--phones", "--port", str(port), "--dashboard-port", str(dashboard_port), timeout=900)
        follower: Following | None = None
        try:
            assert up.returncode == 0, (up.stdout + up.stderr)[-3000:]
            assert "Phones:      pool phones" in up.stdout
            api = f"http://127.0.0.1:{port}/api"
            assert port != 4200 and json.loads(stack_file.read_text())["api_url"] == api
            assert f"http://127.0.0.1:{port}" in up.stdout
            assert httpx.get(f"{api}/health", timeout=5).status_code == 200
            deployments = {d["name"] for d in httpx.post(f"{api}/deployments/filter", json={}, timeout=10).json()}
            assert {"package-recording", "package-batch", "scan-inbox", "export-dataset", "eval-agent"} <= deployments
            assert {"run-agent", "design-task", "run-steps", "audit-experience", "eval-agent-suite"} <= deployments
            # a killed worker's runs, Running or still Pending, are marked Crashed (flows/automations.py)
            automations = {a["name"] for a in httpx.post(f"{api}/automations/filter", json={}, timeout=10).json()}
            assert {"rlauto-crash-silent-runs", "rlauto-crash-stuck-pending-runs"} <= automations
            wait_http(f"http://127.0.0.1:{dashboard_port}/", timeout=120)
            deadline = time.monotonic() + 120
            while not (_online(api, "phones") and _online(api, "rlauto")):
                assert time.monotonic() < deadline, "the workers did not come online"
                time.sleep(1)
            again = rlauto(env, "up", "--port", str(free_port()), timeout=120)
            assert again.returncode != 0 and "already up" in again.stderr

            # the pipeline's job on the stack: it runs on the stack's server, the UI shows it
            run_stack_job(tmp_path, env, port)
            assert httpx.get(f"http://127.0.0.1:{port}/ui-settings", timeout=10).json()["api_url"] == api
            calls = ui_shows_run(f"http://127.0.0.1:{port}", "shop_checkout.zip")
            assert calls and all(c.startswith(f"{api}/") for c in calls), [c for c in calls if not c.startswith(api)]

            demo = rlauto(env, "phone", "demo", "--login")
            assert demo.returncode == 0 and "demo phone demo-1" in demo.stdout, demo.stderr
            follower = Following(env, "agent", "run", "Write the note 'Call Alice'", "--device", "demo-1",
                                 "--model", "scripted")  # fmt: skip
            run_id = follower.wait_for("agent run ").split()[2]
            follower.wait_for("a person is needed (login)")
            # one agent at a time: the designer waits for nobody, it is refused at once
            refused = rlauto(env, "designer", "run", "Write a standup note", "--device", "demo-1")
            assert refused.returncode == 2 and "another agent run is active" in refused.stderr, refused.stderr

            deadline = time.monotonic() + 120  # told once paused: the run is paused for the person
            while httpx.get(f"{api}/flow_runs/{run_id}", timeout=10).json()["state"]["type"] != "PAUSED":
                assert time.monotonic() < deadline, "the flow run did not pause for the person"
                time.sleep(0.5)
            signed = rlauto(env, "phone", "shell", "input text demo && input keyevent 66")
            assert signed.returncode == 0, signed.stderr
            hand_back = f"from flows.agent_launch import PrefectAgentLauncher as L; L({env['RLAUTO_STORAGE_URL']!r}).hand_back({run_id!r}, 'signed in')"
            handed = subprocess.run([sys.executable, "-c", hand_back], cwd=REPO, env={**env, "PREFECT_API_URL": api},
                                    capture_output=True, text=True, timeout=120)  # fmt: skip
            assert handed.returncode == 0, handed.stderr
            assert follower.proc.wait(timeout=300) == 0, "".join(follower.lines)[-3000:]
            assert any(line.startswith("ended completed") for line in follower.lines)
            state = json.loads(rlauto(env, "phone", "shell", "dumpsys rlauto-demo").stdout)
            assert state["notes"]["notes"][-1] == "Call Alice"
            assert fake.requests() == []  # the scripted model needed no endpoint

            designed = rlauto(env, "designer", "run", "Write the standup note", "--device", "demo-1", "--json")
            assert designed.returncode == 0, designed.stdout[-2000:] + designed.stderr[-2000:]
            out = json.loads(designed.stdout)
            assert out["outcome"] == "completed" and out["draft"]["name"] == "Write the standup note"
            assert {r.headers["authorization"] for r in fake.requests("agent")} == {f"Bearer {KEY}"}
        finally:
            if follower is not None and follower.proc.poll() is None:
                follower.proc.kill()
            down, stack = stop_stack(env, stack_file)
    assert "demo phone stopped" in down.stdout
    assert "phones-worker" in {p["name"] for p in stack["processes"]}  # type: ignore[union-attr]
    assert_all_ended(down, stack, stack_file)
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
