"""A person takes over and hands back; heartbeats while waiting; a stop request; no key anywhere."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import pytest

from device_flows.demo import NotesApp
from rlauto_core.agent.events import EventLog, Heartbeat, ToolCalled
from rlauto_core.agent.run import AgentSettings, RunStore, StopRequested
from rlauto_core.agent.tools import TakeoverAnswer, TakeoverRequest
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import MakeLoop
from tests.agent.scripts import WRITE_NOTE, call, completion, images_in, texts_of, turn
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest

CANARY = "sk-canary-7f3a9e1b2c4d"


def _events(storage: FsspecStorage, run_id: str) -> list[Any]:
    return [logged.event for logged in EventLog(storage, run_id).read(0)]


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp(needs_login=True)


def test_a_takeover_lets_a_person_sign_in_and_the_same_run_goes_on_with_their_note(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage, notes_app: NotesApp
) -> None:
    asked: list[TakeoverRequest] = []

    def person(request: TakeoverRequest) -> TakeoverAnswer:
        asked.append(request)
        assert RunStore(storage).load(request.run_id).status == "waiting_for_person"  # type: ignore[union-attr]
        notes_app.sign_in()  # what the person does on the phone
        return TakeoverAnswer(note="signed in as alice")

    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(
            call("request_takeover", reason="login", message="Please sign in to Notes"),
            call("tap", text="Sign in"),  # after a takeover the rest of the turn waits for a fresh look
        ),
        *WRITE_NOTE[1:],
    )
    result = make_loop(takeover=person).loop.start("run-t", "Write the note 'Call Alice'")
    assert result.outcome == "completed" and notes_app.notes[-1] == "Call Alice"
    assert [(r.reason, r.message, r.step) for r in asked] == [("login", "Please sign in to Notes", 1)]
    after = fake_llm.requests("agent")[2].body
    assert "signed in as alice" in texts_of(after) and "finished the login step" in texts_of(after)
    assert images_in(after) == 1  # the fresh screen after the takeover
    assert "not executed: a person took over" in texts_of(after)
    kinds = [e.type for e in _events(storage, "run-t")]
    assert kinds.index("takeover_requested") < kinds.index("takeover_ended")
    ended = next(e for e in _events(storage, "run-t") if e.type == "takeover_ended")
    assert ended.note == "signed in as alice"


def test_without_a_person_or_for_another_reason_a_takeover_is_a_tool_error(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(call("request_takeover", reason="login", message="sign in")),
        turn(call("request_takeover", reason="bored", message="do it for me")),
        turn(completion()),
    )
    assert make_loop().loop.start("run-nt", "Sign in").outcome == "completed"
    errors = [e.error for e in _events(storage, "run-nt") if isinstance(e, ToolCalled)][:2]
    assert errors[0] is not None and errors[0].startswith("no person can take over in this run")
    assert errors[1] is not None and "reason: Input should be 'login', '2fa', 'captcha'" in errors[1]


def test_heartbeats_go_out_while_the_model_is_slow(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", {**turn(completion()), "delay": 1.2})
    result = make_loop(heartbeat_s=0.25).loop.start("run-hb", "Be slow")
    assert result.outcome == "completed"
    beats = [e for e in _events(storage, "run-hb") if isinstance(e, Heartbeat) and e.waiting_on == "model"]
    assert len(beats) >= 3  # at the start of the wait, then every 0.25 s of a 1.2 s answer
    assert max(b.waited_s for b in beats) > 0.5


def test_a_stop_request_interrupts_a_slow_model_call_and_the_run_can_resume(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    stop = threading.Event()

    def checkpoint() -> None:
        if stop.is_set():
            raise StopRequested

    def slow_answer(request: RecordedRequest) -> dict[str, Any]:
        stop.set()  # asked while this call is in flight, however long the first turn took
        return {**turn(completion()), "delay": 30}

    fake_llm.script("agent", turn(call("wait", seconds=0)), slow_answer)
    harness = make_loop(checkpoint=checkpoint, heartbeat_s=0.2)
    result = harness.loop.start("run-stop", "Wait")
    assert result.outcome == "stopped" and result.resumable
    events = _events(storage, "run-stop")
    assert [e.type for e in events if e.type == "model_called"] == ["model_called"]  # the slow one never answered
    assert events[-1].type == "run_ended" and events[-1].outcome == "stopped"
    stop.clear()
    fake_llm.reset()
    fake_llm.script("agent", turn(completion()))
    assert harness.loop.resume("run-stop").outcome == "completed"


def test_the_key_never_reaches_events_state_logs_or_files(
    make_loop: MakeLoop,
    fake_llm: FakeLlmServer,
    storage: FsspecStorage,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    notes_app: NotesApp,
) -> None:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    settings = AgentSettings(_env_file=None)  # type: ignore[call-arg]
    assert settings.api_key is not None and CANARY not in repr(settings)
    notes_app.sign_in()
    # a careless gateway repeats the Authorization header in its errors, then answers
    fake_llm.script("agent", {"status": 500, "echo_auth": True}, *WRITE_NOTE[:2], {"status": 401, "echo_auth": True})
    caplog.set_level(logging.DEBUG)
    harness = make_loop(settings=settings)
    result = harness.loop.start("run-key", f"Write a note (the key is not {CANARY[:6]}...)", conversation_id="ck")
    assert result.outcome == "failed" and "authentication failed (401)" in (result.error or "")
    assert "[REDACTED]" in (result.error or "")
    assert fake_llm.requests("agent")[0].headers["authorization"] == f"Bearer {CANARY}"  # it was really sent
    everything = b"".join(p.read_bytes() for p in (tmp_path / "storage").rglob("*") if p.is_file())
    assert b"REDACTED" in everything and CANARY.encode() not in everything
    assert CANARY not in caplog.text and CANARY not in result.model_dump_json()
    state = RunStore(storage).load("run-key")
    assert state is not None and CANARY not in state.model_dump_json()
