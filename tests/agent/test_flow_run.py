"""The `run-agent` flow against the session Prefect server, the fake model server and the fake
phone's notes app: a delivered file, artifacts, heartbeats Prefect shows, no key anywhere;
a fuse pause ends the flow run resumably and a new flow run finishes the same agent run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device_flows.agent_flow import run_agent
from device_flows.demo import DemoAdbServer, NotesApp
from rlauto_core.agent.events import Heartbeat, RunEnded, RunStarted, ScreenTaken, ToolCalled
from rlauto_core.agent.launch import agent_run_tag
from rlauto_core.agent.run import RunStore
from rlauto_core.errors import ConfigError
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import (
    artifacts_of,
    flow_run,
    logs_of,
    prefect_events,
    run_events,
    wait_for,
)
from tests.agent.scripts import WRITE_NOTE, call, texts_of, turn
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
CANARY = "sk-canary-flow-5e1d7c9a3b"


@pytest.fixture
def agent_env(monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLlmServer, demo_adb: DemoAdbServer) -> None:
    """The worker's environment: the key only here, never a parameter."""
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    monkeypatch.setenv("AGENT_MAX_ATTEMPTS", "3")


def test_a_flow_run_delivers_a_file_with_step_cards_usage_and_answer_and_no_key_anywhere(
    prefect_api_url: str,
    agent_env: None,
    fake_llm: FakeLlmServer,
    notes_app: NotesApp,
    storage: FsspecStorage,
    tmp_path: Path,
) -> None:
    # a careless gateway repeats the Authorization header in an error before it answers
    fake_llm.script("agent", {"status": 500, "echo_auth": True}, *WRITE_NOTE)
    state = run_agent(
        "Write the note 'Call Alice' and deliver a screenshot of it", SERIAL, conversation_id="conv-1",
        storage_url=storage.url, return_state=True,
    )  # fmt: skip
    assert state.is_completed(), state
    result = state.result()
    run_id = str(state.state_details.flow_run_id)
    assert result["run_id"] == run_id and result["outcome"] == "completed"
    assert result["deliverables"] == ["files/notes.jpg"] and notes_app.notes[-1] == "Call Alice"
    assert storage.read_bytes(f"agent/runs/{run_id}/files/notes.jpg")[:2] == b"\xff\xd8"
    assert fake_llm.requests("agent")[0].headers["authorization"] == f"Bearer {CANARY}"  # it was really sent

    events = run_events(storage, run_id)
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunEnded)
    assert any(isinstance(e, Heartbeat) for e in events) and any(isinstance(e, ScreenTaken) for e in events)
    tools = [e.tool for e in events if isinstance(e, ToolCalled)]
    assert tools[:2] == ["app_start", "tap"] and tools[-1] == "report_task"

    artifacts = artifacts_of(run_id)
    cards = [a for a in artifacts if a.type == "markdown" and "### Step " in str(a.data)]
    assert len(cards) == len(tools)
    assert any("`save_screenshot` ok" in str(c.data) for c in cards)
    screens = [a for a in artifacts if a.type == "markdown" and "### Screen: " in str(a.data)]
    assert screens and all("data:image/jpeg;base64,/9j/" in str(a.data) for a in screens)
    assert any("data:image/jpeg;base64,/9j/" in str(c.data) for c in cards)  # the screenshot tools' thumbnails
    keyed = {a.key: a for a in artifacts if a.key}
    answer, usage = keyed[f"agent-answer-{run_id}"], keyed[f"agent-usage-{run_id}"]
    assert "Wrote the note" in str(answer.data) and "files/notes.jpg" in str(answer.data)
    rows = json.loads(usage.data) if isinstance(usage.data, str) else usage.data
    assert rows[-1]["call"] == "run total" and rows[-1]["total_tokens"] == result["usage"]["total_tokens"] > 0
    assert len(rows) == result["model_calls"] + 1

    # liveness in Prefect: heartbeats as events related to the flow run (sent in the background)
    beats = wait_for(lambda: [e for e in prefect_events(run_id) if e["event"] == "rlauto.agent.heartbeat"], timeout=60)
    assert beats[0]["resource"]["prefect.resource.id"] == f"rlauto.agent-run.{run_id}"
    assert {b["payload"]["waiting_on"] for b in beats} <= {"model", "tool", "person"}

    wait_for(lambda: any("ended completed" in line for line in logs_of(run_id)), timeout=30)  # sent in the background
    parameters = flow_run(run_id).parameters
    assert set(parameters) >= {"instruction", "serial", "conversation_id", "model"}
    assert not [text[:200] for text in _everything_prefect_and_storage_hold(run_id, tmp_path) if CANARY in text]


def _everything_prefect_and_storage_hold(run_id: str, tmp_path: Path) -> list[str]:
    run = flow_run(run_id)
    return [
        json.dumps(run.parameters),
        str(run.state.message if run.state else ""),
        *(str(a.data) + str(a.description) for a in artifacts_of(run_id)),
        *logs_of(run_id),
        json.dumps(prefect_events(run_id)),
        *(p.read_text("utf-8", "replace") for p in (tmp_path / "storage").rglob("*") if p.is_file()),
    ]


def test_a_gateway_repeating_the_key_fails_the_run_and_the_key_is_scrubbed_everywhere(
    prefect_api_url: str, agent_env: None, fake_llm: FakeLlmServer, storage: FsspecStorage, tmp_path: Path
) -> None:
    fake_llm.script("agent", {"status": 401, "echo_auth": True})
    state = run_agent("Open the notes", SERIAL, storage_url=storage.url, return_state=True)
    assert state.is_failed() and "authentication failed (401)" in str(state.message)
    run_id = str(state.state_details.flow_run_id)
    assert fake_llm.requests("agent")[0].headers["authorization"] == f"Bearer {CANARY}"
    ended = run_events(storage, run_id)[-1]
    assert isinstance(ended, RunEnded) and ended.outcome == "failed" and "[REDACTED]" in (ended.error or "")
    # the gateway's message reached the state, the answer artifact, the run log and the event log: scrubbed
    wait_for(lambda: any("ended failed" in line and "[REDACTED]" in line for line in logs_of(run_id)), timeout=30)
    answer = next(a for a in artifacts_of(run_id) if a.key == f"agent-answer-{run_id}")
    assert "authentication failed (401)" in str(answer.data) and "REDACTED" in str(answer.data)
    held = _everything_prefect_and_storage_hold(run_id, tmp_path)
    assert "[REDACTED]" in held[1]
    assert not [text[:200] for text in held if CANARY in text]


def test_a_fuse_pause_ends_the_flow_run_resumably_and_a_new_flow_run_finishes_the_same_agent_run(
    prefect_api_url: str, agent_env: None, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", turn(call("tap", text="Nope")))  # the same action again and again
    first = run_agent("Tap Nope", SERIAL, storage_url=storage.url, return_state=True)
    assert first.is_failed() and first.name == "AgentPaused"
    run_id = str(first.state_details.flow_run_id)
    assert f"rlauto agent run --resume {run_id}" in str(first.message)
    assert RunStore(storage).load(run_id).status == "paused"  # type: ignore[union-attr]

    with pytest.raises(ConfigError, match="ran on fake-1, not fake-9"):
        run_agent(resume_run=run_id, serial="fake-9", storage_url=storage.url)
    fake_llm.reset()
    fake_llm.script("agent", *WRITE_NOTE)
    second = run_agent(resume_run=run_id, note="the popup is gone", storage_url=storage.url, return_state=True)
    assert second.is_completed(), second
    assert second.result()["run_id"] == run_id and notes_app.notes[-1] == "Call Alice"
    resumed_by = str(second.state_details.flow_run_id)
    assert resumed_by != run_id and agent_run_tag(run_id) in flow_run(resumed_by).tags
    assert "the popup is gone" in texts_of(fake_llm.requests("agent")[0].body)
    started = [e for e in run_events(storage, run_id) if isinstance(e, RunStarted)]
    assert [(e.resumed, e.note) for e in started] == [(False, None), (True, "the popup is gone")]
    # a completed run does not resume
    with pytest.raises(ConfigError, match="is completed: only a paused"):
        run_agent(resume_run=run_id, storage_url=storage.url)
