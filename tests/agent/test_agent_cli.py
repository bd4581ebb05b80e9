"""`rlauto agent run` and the SDK through the served `run-agent` deployment: a delivered file
as JSON; a takeover followed live and handed back through the launcher (the dashboard's way);
a busy phone refused with exit 2; a stop through the launcher ends the run `stopped`."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device_flows.demo import NotesApp
from flows.agent_launch import PrefectAgentLauncher
from flows.agent_sdk import run_agent as sdk_run_agent
from rlauto_core.agent.events import AgentEvent, EventLog, RunEnded, RunStarted
from rlauto_core.agent.launch import LaunchedAgentRun
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import flow_run, in_thread, wait_for
from tests.agent.scripts import WRITE_NOTE, call, completion, texts_of, turn
from tests.agent.served import served_run_agent
from tests.agent.test_flow_control import RELEASE, hold_phone
from tests.agent.test_flow_run import CANARY
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
RLAUTO = [sys.executable, "-c", "from flows.cli import main; main()"]


@pytest.fixture
def served(
    prefect_api_url: str, fake_llm: FakeLlmServer, demo_adb: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[dict[str, str]]:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    with served_run_agent(tmp_path / "runner.log") as env:
        yield env


def test_agent_run_json_delivers_a_file_through_the_deployment(
    served: dict[str, str], fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    notes_app.sign_in()
    fake_llm.script("agent", *WRITE_NOTE)
    done = subprocess.run(
        [*RLAUTO, "agent", "run", "Write the note 'Call Alice' and deliver a screenshot", "--device", SERIAL,
         "--conversation", "cli-1", "--json", "--storage", storage.url],
        env=served, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert (outcome["outcome"], outcome["answer"], outcome["deliverables"]) == (
        "completed", "Wrote the note", ["files/notes.jpg"],
    )  # fmt: skip
    assert outcome["resumable"] is False and outcome["usage"]["total_tokens"] > 0 and outcome["state"] == "Completed"
    assert storage.read_bytes(f"agent/runs/{outcome['run_id']}/files/notes.jpg")[:2] == b"\xff\xd8"
    assert notes_app.notes[-1] == "Call Alice" and CANARY not in done.stdout + done.stderr
    assert "serial" in flow_run(outcome["flow_run_id"]).parameters


def test_a_takeover_followed_live_is_handed_back_through_the_launcher_and_the_phone_shows_busy(
    served: dict[str, str], fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(call("request_takeover", reason="2fa", message="Type the code from the SMS")),
        *WRITE_NOTE[1:],
    )
    cli = subprocess.Popen(
        [*RLAUTO, "agent", "run", "Write the note 'Call Alice'", "--device", SERIAL, "--storage", storage.url],
        env=served, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    launcher = PrefectAgentLauncher(storage.url)
    run_id = wait_for(lambda: _only_run(storage))
    wait_for(lambda: launcher.status(run_id).paused, timeout=180)
    assert launcher.agent_busy() is not None and run_id in str(launcher.agent_busy())
    phones = {d.serial: d for d in launcher.devices()}
    assert phones[SERIAL].busy is not None and run_id in phones[SERIAL].busy and not phones[SERIAL].usable
    notes_app.sign_in()
    launcher.hand_back(run_id, "the code was 123456")
    out, err = cli.communicate(timeout=180)
    assert cli.returncode == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"agent run {run_id}")
    assert any(line.startswith("a person is needed (2fa): Type the code from the SMS") for line in lines)
    assert "handed back: the code was 123456" in lines and lines[-1] == "ended completed: Wrote the note"
    assert any(line.startswith("step 1: app_start") for line in lines)
    assert "the code was 123456" in texts_of(fake_llm.requests("agent")[2].body)
    assert launcher.agent_busy() is None and {d.serial: d for d in launcher.devices()}[SERIAL].usable


def _only_run(storage: FsspecStorage) -> str | None:
    runs = {p.split("/")[2] for p in storage.list("agent/runs")}
    return runs.pop() if len(runs) == 1 else None


def test_a_busy_phone_is_refused_with_exit_2_and_a_stop_through_the_launcher_ends_the_run_stopped(
    served: dict[str, str], fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    RELEASE.clear()
    holder, held = in_thread(hold_phone)
    launcher = PrefectAgentLauncher(storage.url)
    wait_for(lambda: not {d.serial: d for d in launcher.devices()}.get(SERIAL, _free()).usable, out=held)
    done = subprocess.run([*RLAUTO, "agent", "run", "Write a note", "--device", SERIAL, "--storage", storage.url],
                          env=served, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: device {SERIAL} is busy with run ") and "Traceback" not in done.stderr
    RELEASE.set()
    holder.join(60)

    notes_app.sign_in()
    fake_llm.script("agent", turn(call("wait", seconds=0)), {**turn(completion()), "delay": 120})
    seen: list[AgentEvent] = []
    launched: list[LaunchedAgentRun] = []
    stopper, _ = in_thread(lambda: _stop_when_waiting(launcher, launched, fake_llm))
    outcome = sdk_run_agent("Wait a while", SERIAL, storage_url=storage.url, on_event=seen.append,
                            on_launch=launched.append)  # fmt: skip
    stopper.join(30)
    assert (outcome.outcome, outcome.state, outcome.resumable) == ("stopped", "Cancelled", True)
    logged = EventLog(storage, outcome.run_id).read(0)
    assert [item.event for item in logged] == seen  # every event once, in order
    assert isinstance(seen[0], RunStarted) and isinstance(seen[-1], RunEnded)


def _free() -> Any:
    from rlauto_core.agent.launch import AgentDevice

    return AgentDevice(serial=SERIAL)


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp(needs_login=True)  # a sign-in gate only a person passes


def _stop_when_waiting(launcher: PrefectAgentLauncher, launched: list[LaunchedAgentRun], fake: FakeLlmServer) -> None:
    wait_for(lambda: launched and fake.calls("agent") == 2, timeout=180)
    time.sleep(0.5)
    launcher.stop(launched[0].run_id)
