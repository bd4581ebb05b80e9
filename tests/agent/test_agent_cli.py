"""`rlauto agent run` and the SDK through the served `run-agent` deployment: a delivered file
as JSON; a takeover followed live and handed back through the launcher (the dashboard's way);
a busy phone refused with exit 2; a stop through the launcher ends the run `stopped`."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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
from tests.fakes.outage_relay import FaultRelay
from tests.servers import stop_process

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


def _read_lines(proc: subprocess.Popen[str], on_line: Any) -> threading.Thread:
    """Each stdout line as it comes, handed to `on_line` at once (on a thread of its own)."""

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            on_line(line.rstrip("\n"))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def served_slow_states(
    prefect_api_url: str, fake_llm: FakeLlmServer, demo_adb: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[dict[str, str]]:
    """The deployment served as `served` does, its flow runs talking to the server through a relay
    that holds each state change 2 s (a busy server): a run asks for a person, then is paused
    2 s later. The environment handed back (for the CLI) names the server itself."""
    relay = FaultRelay(int(urlsplit(prefect_api_url).port or 0))
    relay.slow(2.0, match=lambda method, target: method == "POST" and target.endswith("/set_state"))
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    monkeypatch.setenv("PREFECT_API_URL", f"{relay.endpoint_url}/api")
    try:
        with served_run_agent(tmp_path / "runner.log") as env:
            yield {**env, "PREFECT_API_URL": prefect_api_url}
    finally:
        relay.close()


def test_a_person_is_needed_is_printed_once_the_run_is_paused_not_before(
    served_slow_states: dict[str, str], fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    """The run asks for a person, then its flow run pauses: the line comes when it has paused
    (the Resume it names exists from then on), once, and "handed back" after it."""
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(call("request_takeover", reason="2fa", message="Type the code from the SMS")),
        *WRITE_NOTE[1:],
    )
    launcher = PrefectAgentLauncher(storage.url)
    lines: list[str] = []
    paused_when_told: list[bool] = []

    def seen(line: str) -> None:
        if line.startswith("a person is needed"):
            run_id = lines[0].split()[2]
            paused_when_told.append(launcher.status(run_id).paused)  # asked the moment it is read
        lines.append(line)

    cli = subprocess.Popen(
        [*RLAUTO, "agent", "run", "Write the note 'Call Alice'", "--device", SERIAL, "--storage", storage.url],
        env=served_slow_states, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    reader = _read_lines(cli, seen)
    try:
        run_id = wait_for(lambda: _only_run(storage), timeout=180)
        wait_for(lambda: launcher.status(run_id).paused and paused_when_told, timeout=180)
        notes_app.sign_in()
        launcher.hand_back(run_id, "the code was 123456")
        assert cli.wait(timeout=240) == 0, cli.stderr.read() if cli.stderr else ""
        reader.join(30)
    finally:
        stop_process(cli)  # type: ignore[arg-type]
    assert paused_when_told == [True], lines
    told = lines.index("a person is needed (2fa): Type the code from the SMS")
    assert lines[told + 1].startswith("  do it on the phone, then Resume the flow run")
    assert lines.index("handed back: the code was 123456") > told and lines[-1] == "ended completed: Wrote the note"


def test_a_stop_while_the_phone_is_busy_is_answered_clearly_and_holds_no_slot(
    served: dict[str, str], notes_app: NotesApp, storage: FsspecStorage
) -> None:
    """Ctrl-C right after the run was created, while another run holds the phone: the answer says
    the run did not start and what holds the phone (nothing to resume), and no slot stays held."""
    RELEASE.clear()
    holder, held = in_thread(hold_phone)
    launcher = PrefectAgentLauncher(storage.url)
    try:
        wait_for(lambda: not {d.serial: d for d in launcher.devices()}.get(SERIAL, _free()).usable, out=held)
        cli = subprocess.Popen(
            [*RLAUTO, "agent", "run", "Write a note", "--device", SERIAL, "--storage", storage.url],
            env=served, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        try:
            assert cli.stdout is not None
            first = cli.stdout.readline()
            assert first.startswith("agent run "), first
            run_id = first.split()[2]
            cli.send_signal(signal.SIGINT)
            _out, err = cli.communicate(timeout=120)
        finally:
            stop_process(cli)  # type: ignore[arg-type]
        assert cli.returncode == 130 and "Traceback" not in err, err
        assert f"agent run {run_id}" in err and f"device {SERIAL} is busy with run " in err, err
        assert "resume it" not in err, err  # it never started: there is nothing to resume
        # the CLI waits STOP_WAIT_S for the end and says "is being stopped" when a loaded worker is
        # slower (a fresh clone took 42 s): the run must still end, then hold nothing
        wait_for(lambda: launcher.status(run_id).final)
        assert launcher.agent_busy() is None  # the stopped run holds no agent slot
        phone = {d.serial: d for d in launcher.devices()}[SERIAL]
        assert phone.busy is not None and run_id not in phone.busy  # the phone is the holder's, not the stopped run's
    finally:
        RELEASE.set()
        holder.join(60)
    assert {d.serial: d for d in launcher.devices()}[SERIAL].usable
