"""Taking over, refusing and stopping `run-agent` runs through the Prefect API: a takeover pauses
the flow run and a resume with a note goes on in the same run; a busy phone and a second agent
are refused at once; cancelling stops the run at its next checkpoint and a new run resumes it."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.flow_runs import resume_flow_run
from prefect.states import Cancelling

from device_flows.agent_flow import run_agent
from device_flows.demo import NotesApp
from device_flows.slot import AgentBusy, DeviceBusy, phone_slot
from rlauto_core.agent.events import Heartbeat, RunEnded, TakeoverEnded, TakeoverRequested
from rlauto_core.agent.run import RunStore
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import agent_flow_runs, flow_run, in_thread, prefect_events, run_events, wait_for
from tests.agent.scripts import WRITE_NOTE, call, completion, images_in, texts_of, turn
from tests.agent.test_flow_run import CANARY
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
RELEASE = threading.Event()


@pytest.fixture(autouse=True)
def agent_env(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLlmServer, demo_adb: Any) -> None:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp(needs_login=True)


def _paused_agent_run() -> Any:
    runs = [r for r in agent_flow_runs() if r.state is not None and r.state.is_paused()]
    return runs[0] if runs else None


def test_a_takeover_pauses_the_flow_run_a_second_agent_is_refused_and_a_resume_with_a_note_goes_on(
    prefect_api_url: str, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(call("request_takeover", reason="login", message="Please sign in to Notes")),
        *WRITE_NOTE[1:],
    )
    thread, out = in_thread(lambda: run_agent("Write the note 'Call Alice'", SERIAL, storage_url=storage.url,
                                              return_state=True))  # fmt: skip
    paused = wait_for(_paused_agent_run, out=out)
    run_id = str(paused.id)
    assert paused.state.state_details.run_input_keyset  # the Resume form asks for the typed note
    assert RunStore(storage).load(run_id).status == "waiting_for_person"  # type: ignore[union-attr]
    asked = [e for e in run_events(storage, run_id) if isinstance(e, TakeoverRequested)]
    assert [(e.reason, e.message) for e in asked] == [("login", "Please sign in to Notes")]

    # one agent at a time: a second one, even on another phone, is refused at once, naming the first
    started = time.monotonic()
    with pytest.raises(AgentBusy, match=rf"^another agent run is active: \S+ \({run_id}\); one agent runs at a time$"):
        run_agent("Open the settings", "fake-2", storage_url=storage.url)
    assert time.monotonic() - started < 60  # refused, not queued behind a run that waits for a person
    assert fake_llm.calls("agent") == 2

    # alive while the person works: heartbeats every 10 s, in the event log and in Prefect
    wait_for(lambda: [e for e in run_events(storage, run_id) if isinstance(e, Heartbeat) and e.waiting_on == "person"
                      and e.waited_s >= 9], timeout=60)  # fmt: skip
    wait_for(lambda: [e for e in prefect_events(run_id) if e["event"] == "rlauto.agent.heartbeat"
                      and e["payload"]["waiting_on"] == "person"], timeout=60)  # fmt: skip

    notes_app.sign_in()  # what the person does on the phone
    resume_flow_run(paused.id, run_input={"note": "signed in as alice"})  # the UI's Resume with the form
    thread.join(120)
    assert not thread.is_alive() and "error" not in out, out.get("error")
    assert out["value"].is_completed() and notes_app.notes[-1] == "Call Alice"
    after = fake_llm.requests("agent")[2].body  # the same run, the next model call
    assert "signed in as alice" in texts_of(after) and images_in(after) == 1
    assert "Write the note 'Call Alice'" in texts_of(after) and "request_takeover" in str(after["messages"])
    ended = [e for e in run_events(storage, run_id) if isinstance(e, TakeoverEnded)]
    assert [e.note for e in ended] == ["signed in as alice"]
    assert len([r for r in agent_flow_runs() if str(r.id) == run_id]) == 1  # no new flow run was needed


@flow(name="hold-phone")
def hold_phone() -> None:
    with phone_slot(SERIAL):
        RELEASE.wait(120)


def test_a_busy_phone_refuses_an_agent_run_at_once_and_the_refusal_frees_the_agent_slot(
    prefect_api_url: str, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    RELEASE.clear()
    holder, held = in_thread(hold_phone)
    wait_for(lambda: [r for r in _runs("hold-phone") if r.state is not None and r.state.is_running()], out=held)
    time.sleep(1.0)  # the slot is taken just after the run starts
    with pytest.raises(DeviceBusy, match=rf"^device {SERIAL} is busy with run \S+ \([0-9a-f-]{{36}}\)$"):
        run_agent("Write a note", SERIAL, storage_url=storage.url)
    refused = agent_flow_runs()[0]
    assert refused.state is not None and refused.state.is_failed()
    assert fake_llm.calls("agent") == 0 and RunStore(storage).load(str(refused.id)) is None  # nothing started
    RELEASE.set()
    holder.join(60)
    notes_app.sign_in()
    fake_llm.script("agent", turn(completion()))
    assert run_agent("Say done", SERIAL, storage_url=storage.url, return_state=True).is_completed()


@flow(name="stopped-then-refused")
def stopped_then_refused() -> None:
    from prefect.runtime import flow_run as this_run

    with get_client(sync_client=True) as client:  # a stop (the CLI's Ctrl-C) lands just before the refusal
        client.set_flow_run_state(this_run.get_id(), Cancelling(message="stopped from the dashboard or the CLI"))
    with phone_slot(SERIAL):
        pass


def test_a_stop_that_races_a_busy_phone_refusal_leaves_the_run_ended_not_cancelling(
    prefect_api_url: str, fake_llm: FakeLlmServer
) -> None:
    """Prefect refuses Cancelling -> Failed, and nothing is left to cancel: the refusal itself must
    end a run a stop reached first, or the run stays Cancelling forever (seen once in CI)."""
    RELEASE.clear()
    holder, held = in_thread(hold_phone)
    try:
        wait_for(lambda: [r for r in _runs("hold-phone") if r.state is not None and r.state.is_running()], out=held)
        time.sleep(1.0)  # the slot is taken just after the run starts
        with pytest.raises(DeviceBusy):
            stopped_then_refused()
        refused = _runs("stopped-then-refused")[0]
        assert refused.state is not None and refused.state.is_final(), refused.state  # not Cancelling
        assert f"device {SERIAL} is busy with run" in (refused.state.message or "")
    finally:
        RELEASE.set()
        holder.join(60)


def _runs(name: str) -> list[Any]:
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import FlowRunSort

    with get_client(sync_client=True) as client:
        return client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[name])), sort=FlowRunSort.START_TIME_DESC, limit=3
        )


def test_cancelling_the_flow_run_stops_it_at_the_next_checkpoint_and_a_new_run_resumes_it(
    prefect_api_url: str, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    notes_app.sign_in()
    fake_llm.script("agent", turn(call("wait", seconds=0)), {**turn(completion()), "delay": 90})
    thread, out = in_thread(lambda: run_agent("Wait a while", SERIAL, storage_url=storage.url, return_state=True))
    wait_for(lambda: fake_llm.calls("agent") == 2, out=out)  # the slow answer is being waited for
    run = agent_flow_runs()[0]
    run_id = str(run.id)
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(run.id, Cancelling())  # what Cancel in the Prefect UI does
    asked = time.monotonic()
    thread.join(60)
    took = time.monotonic() - asked
    assert not thread.is_alive() and "error" not in out, out.get("error")
    assert took < 20, f"stopped {took:.1f} s after the cancel"  # the next checkpoint, not the 90 s answer
    assert out["value"].is_cancelled() and flow_run(run_id).state.is_cancelled()  # type: ignore[union-attr]
    ended = run_events(storage, run_id)[-1]
    assert isinstance(ended, RunEnded) and ended.outcome == "stopped"
    assert RunStore(storage).load(run_id).status == "stopped"  # type: ignore[union-attr]

    fake_llm.reset()
    fake_llm.script("agent", turn(completion()))
    again = run_agent(resume_run=run_id, storage_url=storage.url, return_state=True)
    assert again.is_completed() and again.result()["run_id"] == run_id
