"""The `run-agent` flow through the session Prefect server on the demo phone, as issue 22 asks: a
repeated unknown tool pauses on the same error at 8; a chat ends at 4 with a step log; a resume
keeps the run's model (and its key, named by a Secret block); the scripted model needs no key,
asks a person to sign in, and the task's effect is read back from the phone's own state."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import adbutils
import pytest
from prefect.blocks.system import Secret
from prefect.client.orchestration import get_client

from device_flows.agent_flow import run_agent
from device_flows.demo import STATE_COMMAND, NotesApp
from flows.agent_launch import PrefectAgentLauncher
from rlauto_core.agent.events import RunStarted, TakeoverEnded, TakeoverRequested, ToolCalled
from rlauto_core.agent.policy import parse_step_log, replay
from rlauto_core.agent.run import ModelChoice, RunStore
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import agent_flow_runs, flow_run, in_thread, logs_of, run_events, wait_for
from tests.agent.scripts import PACKAGE, WRITE_NOTE, call, turn
from tests.agent.test_flow_run import CANARY
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
KEY_B = "sk-canary-secret-block-7f3e19"


@pytest.fixture(autouse=True)
def agent_env(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLlmServer, demo_adb: Any) -> None:
    """The worker's environment: its own key and model; runs may name others."""
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    monkeypatch.setenv("AGENT_MAX_ATTEMPTS", "2")


def _replayed(storage: FsspecStorage, run_id: str) -> Any:
    return replay(parse_step_log(storage.read_bytes(f"agent/runs/{run_id}/steps.jsonl"), "steps.jsonl"))


def test_a_model_repeating_an_unknown_tool_is_paused_by_the_same_error_fuse_at_eight(
    prefect_api_url: str, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", turn(call("open_app", package=PACKAGE)))
    state = run_agent("Open the notes", SERIAL, storage_url=storage.url, return_state=True)
    assert state.is_failed() and state.name == "AgentPaused"
    assert "paused by the same_error fuse at step 8" in str(state.message)
    run_id = str(state.state_details.flow_run_id)
    tools = [e for e in run_events(storage, run_id) if isinstance(e, ToolCalled)]
    assert len(tools) == 8 and {(t.rejected, t.state_changing) for t in tools} == {("unknown_tool", False)}
    verdict = _replayed(storage, run_id)
    assert (verdict.verdict, verdict.fuse, verdict.at) == ("paused", "same_error", 8)


def test_a_chat_ends_at_four_answers_with_a_step_log_that_says_so(
    prefect_api_url: str, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", turn(text="What a nice phone."))
    state = run_agent("Tell me about this phone", SERIAL, storage_url=storage.url, return_state=True)
    assert state.is_completed() and state.result()["outcome"] == "chat_ended"
    run_id = str(state.state_details.flow_run_id)
    assert storage.read_bytes(f"agent/runs/{run_id}/steps.jsonl").decode().splitlines() == ['{"chat":true}'] * 4
    assert _replayed(storage, run_id).cli_dict() == {"verdict": "chat_ended", "fuse": None, "at": 4, "hints": []}


@pytest.fixture
def secret_key() -> Any:
    name = f"agent-key-{uuid.uuid4().hex[:8]}"
    Secret(value=KEY_B).save(name)
    yield name
    with get_client(sync_client=True) as client:
        client.delete_block_document(client.read_block_document_by_name(name, "secret").id)


def test_a_resume_keeps_the_runs_model_and_key_and_a_resume_naming_another_model_says_so(
    prefect_api_url: str,
    fake_llm: FakeLlmServer,
    storage: FsspecStorage,
    notes_app: NotesApp,
    secret_key: str,
    tmp_path: Path,
) -> None:
    fake_llm.script("agent-b", turn(call("tap", text="Nope")))
    choice = ModelChoice(model="agent-b", key_secret=secret_key)
    first = run_agent("Write the note 'Call Alice'", SERIAL, model=choice, storage_url=storage.url, return_state=True)
    assert first.name == "AgentPaused"
    run_id = str(first.state_details.flow_run_id)
    assert {r.headers["authorization"] for r in fake_llm.requests("agent-b")} == {f"Bearer {KEY_B}"}
    stored = RunStore(storage).load(run_id)
    assert stored is not None and stored.model is not None
    assert (stored.model.model, stored.model.key_secret) == ("agent-b", secret_key)

    # resumed with no model named: the run's own model and key, not the worker's defaults
    fake_llm.reset()
    again = run_agent(resume_run=run_id, note="try again", storage_url=storage.url, return_state=True)
    assert again.name == "AgentPaused" and fake_llm.requests("agent") == []
    assert {r.headers["authorization"] for r in fake_llm.requests("agent-b")} == {f"Bearer {KEY_B}"}

    # resumed naming another model: applied, and said in the step log and the run_started event
    fake_llm.reset()
    fake_llm.script("agent-c", *WRITE_NOTE)
    done = run_agent(resume_run=run_id, model=ModelChoice(model="agent-c"), storage_url=storage.url,
                     return_state=True)  # fmt: skip
    assert done.is_completed() and notes_app.notes[-1] == "Call Alice"
    turns = [r for r in fake_llm.requests("agent-c") if r.body.get("tools")]  # and the distillation, on agent-c too
    assert fake_llm.requests("agent-b") == [] and fake_llm.requests("agent") == [] and len(turns) == len(WRITE_NOTE)
    assert {r.headers["authorization"] for r in fake_llm.requests("agent-c")} == {f"Bearer {KEY_B}"}
    resumes = [json.loads(line) for line in storage.read_bytes(f"agent/runs/{run_id}/steps.jsonl").splitlines()
               if b'"resumed"' in line]  # fmt: skip
    assert [r.get("model_was", "").split(" at ")[0] for r in resumes] == ["", "agent-b"]
    assert resumes[1]["model"].startswith("agent-c at ") and f"Secret block '{secret_key}'" in resumes[1]["model"]
    started = [e for e in run_events(storage, run_id) if isinstance(e, RunStarted)]
    assert [(e.model, bool(e.model_was)) for e in started] == [
        ("agent-b", False),
        ("agent-b", False),
        ("agent-c", True),
    ]
    # the key itself: in no flow run parameter, state message, log line or stored file
    held = [json.dumps(flow_run(r.id).parameters) + str(r.state.message if r.state else "")
            for r in agent_flow_runs(limit=5)]  # fmt: skip
    held += logs_of(run_id) + [
        p.read_text("utf-8", "replace") for p in (tmp_path / "storage").rglob("*") if p.is_file()
    ]
    assert not [text[:200] for text in held if KEY_B in text or CANARY in text]


def _paused_agent_run() -> Any:
    runs = [r for r in agent_flow_runs() if r.state is not None and r.state.is_paused()]
    return runs[0] if runs else None


@pytest.mark.parametrize("notes_app", [NotesApp(needs_login=True, password="demo")])  # the phone's sign-in gate
def test_the_scripted_model_needs_no_key_asks_a_person_to_sign_in_and_its_note_is_read_back_from_the_phone(
    notes_app: NotesApp,
    prefect_api_url: str,
    fake_llm: FakeLlmServer,
    storage: FsspecStorage,
    adb_client: adbutils.AdbClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AGENT_API_KEY")
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: no model call may go out
    thread, out = in_thread(lambda: run_agent("Write the note 'Call Alice'", SERIAL, model=ModelChoice(
        model="scripted"), storage_url=storage.url, return_state=True))  # fmt: skip
    paused = wait_for(_paused_agent_run, out=out)
    run_id = str(paused.id)
    asked = [e for e in run_events(storage, run_id) if isinstance(e, TakeoverRequested)]
    assert [e.reason for e in asked] == ["login"] and "Sign in to Notes" in asked[0].message
    phone = adb_client.device(SERIAL)
    assert json.loads(phone.shell(STATE_COMMAND))["notes"]["signed_in"] is False
    # the person signs in on the phone itself (here through ADB), then hands the phone back
    phone.shell("input text demo && input keyevent 66")
    PrefectAgentLauncher(storage.url).hand_back(run_id, "signed in")
    thread.join(120)
    assert not thread.is_alive() and "error" not in out, out.get("error")
    result = out["value"].result()
    assert result["outcome"] == "completed" and result["deliverables"] == ["files/result.jpg"]
    assert json.loads(phone.shell(STATE_COMMAND))["notes"]["notes"] == ["Buy milk", "Call Alice"]
    assert [e.note for e in run_events(storage, run_id) if isinstance(e, TakeoverEnded)] == ["signed in"]
    assert storage.read_bytes(f"agent/runs/{run_id}/files/result.jpg")[:2] == b"\xff\xd8"
    assert fake_llm.requests() == []
    assert _replayed(storage, run_id).verdict == "continue"
