"""Designer mode on the real loop, the fake model server and the notes app: the draft is checked
with the step model, its problems go back as the tool's answer, a valid draft is kept with its
warnings, and only a person's confirmation makes it a step task, which run-steps runs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from device_flows.demo import Home, NotesApp
from rlauto_core.agent.designer import DESIGNER_MAX_TOOL_CALLS, DraftStore, designer_mode
from rlauto_core.agent.events import MemoryDistilled, ToolCalled
from rlauto_core.agent.run import RunStore
from rlauto_core.errors import ConfigError
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.memory.conftest import Brain, MakeMemoryLoop
from tests.agent.scripts import PACKAGE, call, turn
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest

DESCRIPTION = "Every morning, write the note 'Standup at 10' in the notes app"
BROKEN = [
    {"kind": "app_start", "package": PACKAGE},
    {"kind": "click"},
    {"kind": "tap", "text": "Save"},
    {"kind": "wait", "seconds": 9000},
]
VALID = [
    {"kind": "app_start", "package": PACKAGE},
    {"kind": "click", "selector": {"text": "New note"}},
    {"kind": "click", "selector": {"resourceId": f"{PACKAGE}:id/body"}},
    {"kind": "input_text", "text": "Standup at 10"},
    {"kind": "click", "selector": {"text": "Save"}},
]
EXPLORE_AND_SUBMIT = [
    turn(call("app_start", package=PACKAGE)),
    turn(call("ui_tree")),
    turn(call("tap", text="New note"), call("press_key", key="back")),
    turn(call("submit_task", name="Write the standup note", steps=BROKEN)),
    turn(call("submit_task", name="Write the standup note", summary="opens the app, writes, saves", steps=VALID)),
]


def tool_messages(request: RecordedRequest) -> list[str]:
    return [m["content"] for m in request.body["messages"] if m.get("role") == "tool"]


def test_a_designer_run_gets_the_drafts_errors_then_submits_a_valid_one(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    brain = Brain(turns=EXPLORE_AND_SUBMIT, memory=[{"json": {"recipe": {"title": "x", "text": "never asked"}}}])
    fake_llm.script("agent", brain)
    harness = make_memory_loop(mode=designer_mode(storage))
    result = harness.loop.start("design-1", DESCRIPTION)
    assert result.outcome == "completed" and result.steps == 6
    assert result.answer.startswith("Draft 'Write the standup note' with 5 steps submitted; a person confirms it")
    # the refusal went back to the model as the tool's answer, every problem named
    refused = tool_messages(brain.turn_requests[4])[-1]
    assert refused == (
        "ERROR: draft refused: step 2 (click): selector: missing required parameter; "
        "step 3: unknown kind 'tap' (known: app_start, app_stop, click, click_xy, long_click, double_click, input_text, "
        "clear_text, swipe, gesture, press_key, wait, wait_element, wait_gone, assert_exists, assert_text, screenshot, "
        "scroll_to, shell, keep_screen, open_url); step 4 (wait): seconds: Input should be less than or equal to 600"
    )
    for request in brain.turn_requests:
        body = request.body
        assert body["max_tokens"] == 8192
        assert "submit_task" in [t["function"]["name"] for t in body["tools"]]
        assert body["messages"][0]["content"].startswith("You design an automation for an Android phone")
        assert f"You have at most {DESIGNER_MAX_TOOL_CALLS} tool calls" in body["messages"][0]["content"]
    first = brain.turn_requests[0].body["messages"]
    assert [m["role"] for m in first[:2]] == ["system", "user"] and first[1]["content"].startswith("TASK: ")
    draft = DraftStore(storage).latest()
    assert draft is not None and (draft.run_id, draft.instruction, draft.name) == (
        "design-1",
        DESCRIPTION,
        "Write the standup note",
    )
    assert draft.steps == VALID and draft.summary == "opens the app, writes, saves"
    assert draft.warnings == ["nothing checks the result: add an assert_exists or assert_text step at the end"]
    assert DraftStore(storage).all_tasks() == []  # a draft is not a task
    assert brain.memory_requests == []  # a designer run is not distilled
    events = harness.events("design-1")
    submits = [e for e in events if isinstance(e, ToolCalled) and e.tool == "submit_task"]
    assert [(e.ok, e.state_changing) for e in submits] == [(False, False), (True, False)]
    assert not any(isinstance(e, MemoryDistilled) for e in events)
    assert RunStore(storage).load("design-1").mode == "designer"


def test_a_designer_run_takes_no_conversation(make_memory_loop: MakeMemoryLoop, storage: FsspecStorage) -> None:
    harness = make_memory_loop(mode=designer_mode(storage))
    with pytest.raises(ConfigError, match="a designer run takes no conversation"):
        harness.loop.start("design-c", DESCRIPTION, conversation_id="c1")


def test_a_designer_run_stops_at_its_40_tool_calls(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    looking = turn(call("ui_tree"), call("wait", seconds=0), call("screenshot"))  # never a fuse: observations only
    brain = Brain(turns=[looking])
    fake_llm.script("agent", brain)
    result = make_memory_loop(mode=designer_mode(storage), distil=False).loop.start("design-cap", DESCRIPTION)
    assert result.outcome == "budget_exhausted" and result.steps == DESIGNER_MAX_TOOL_CALLS
    assert result.answer == "stopped at the designer's cap of 40 tool calls"
    assert len(brain.turn_requests) == 14  # 13 turns of 3 calls, then one call of the 14th
    last = RunStore(storage).load("design-cap").rounds[-1]
    assert [r.content for r in last.results][1:] == ["not executed: this run's cap on tool calls is reached"] * 2
    lines = storage.read_bytes("agent/runs/design-cap/steps.jsonl").decode().splitlines()
    assert len(lines) == DESIGNER_MAX_TOOL_CALLS


def _keep_valid_draft(make: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage) -> None:
    fake_llm.script("agent", Brain(turns=[turn(call("submit_task", name="Write the standup note", steps=VALID))]))
    assert make(mode=designer_mode(storage), distil=False).loop.start("design-2", DESCRIPTION).outcome == "completed"


def test_only_a_persons_confirmation_makes_the_draft_a_step_task(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    _keep_valid_draft(make_memory_loop, fake_llm, storage)
    drafts = DraftStore(storage)
    with pytest.raises(ConfigError, match="needs the name of the person"):
        drafts.confirm(" ")
    with pytest.raises(ConfigError, match="the latest draft is from run design-2, not design-1"):
        drafts.confirm("Ann", run_id="design-1")
    task = drafts.confirm("Ann", run_id="design-2")
    assert (task.name, task.steps, task.source_run, task.confirmed_by) == (
        "Write the standup note",
        VALID,
        "design-2",
        "Ann",
    )
    assert task.id.startswith("task-write-the-standup-note-")
    assert drafts.latest() is None and drafts.all_tasks() == [task]
    assert json.loads(storage.read_bytes(f"agent/tasks/{task.id}.json"))["steps"] == VALID
    with pytest.raises(ConfigError, match="there is no draft to confirm"):
        drafts.confirm("Ann")


def test_a_tampered_draft_is_not_confirmed(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    _keep_valid_draft(make_memory_loop, fake_llm, storage)
    draft: dict[str, Any] = json.loads(storage.read_bytes("agent/designer/draft.json"))
    draft["steps"][1] = {"kind": "click", "selector": {}}
    storage.write_bytes("agent/designer/draft.json", json.dumps(draft).encode())
    with pytest.raises(
        ConfigError, match=r"agent/designer/draft.json: the draft is not a valid step task: step 2 \(click\)"
    ):
        DraftStore(storage).confirm("Ann")
    assert DraftStore(storage).all_tasks() == []


@pytest.mark.slow
@pytest.mark.prefect
def test_the_confirmed_draft_runs_on_the_fake_phone_through_run_steps(
    prefect_api_url: str, make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage,
    notes_app: NotesApp, home: Home,
) -> None:  # fmt: skip
    from device_flows.flows import run_steps

    _keep_valid_draft(make_memory_loop, fake_llm, storage)
    task = DraftStore(storage).confirm("Ann")
    home.press("home")
    before = list(notes_app.notes)
    report = run_steps(SERIAL, task.steps)
    assert [r["status"] for r in report["results"]] == ["ok"] * len(VALID)
    assert notes_app.notes == [*before, "Standup at 10"]
