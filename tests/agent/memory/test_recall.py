"""Recall: bigram similarity with a threshold, at most 2 recipes, hits counted, injected into the
system prompt and shown as cards; and the point of it all: a second similar run on the simulated
notes app takes fewer steps than the first."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from device_flows.demo import Home, NotesApp
from rlauto_core.agent.events import MemoryRecalled
from rlauto_core.memory import MAX_RECALLED, RECALL_THRESHOLD, ActionLibrary, ExperienceLibrary, MemoryRecall, dice
from rlauto_core.store.storage import open_storage
from tests.agent.memory.answers import RECIPE
from tests.agent.memory.conftest import Brain, MakeMemoryLoop
from tests.agent.scripts import PACKAGE, call, turn
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest

# (a, b, alike?) : the table in docs/agent.md ("Recall"): the threshold sits between the two groups
PAIRS = [
    ("Write the note 'Call Alice'", "Write the note 'Buy bread'", True),
    ("打开小红书搜索苏州好吃的饭店，把前 5 条列出来", "打开小红书搜索上海好吃的咖啡店，列出前 3 条", True),
    ("open the mail app and read the newest mail", "open the mail app and archive the newest mail", True),
    (
        "search amazon for usb cables and list the first 5 prices",
        "search amazon for hdmi cables and list the first 3 prices",
        True,
    ),
    ("turn on bluetooth in settings", "turn on wifi in settings", True),
    ("Write the note 'Call Alice'", "Delete the note 'Buy milk'", False),
    ("open the mail app and read the newest mail", "open the notes app and write a note", False),
    ("Write the note 'Call Alice'", "Send a message to Alice on WhatsApp", False),
    ("search amazon for usb cables and list the first 5 prices", "open the calculator and compute 5 times 7", False),
    ("打开小红书搜索苏州好吃的饭店，把前 5 条列出来", "打开抖音看一个视频", False),
    ("Write the note 'Call Alice'", "Open settings and turn on wifi", False),
]


@pytest.mark.parametrize(("a", "b", "alike"), PAIRS)
def test_the_threshold_separates_similar_tasks_from_different_ones(a: str, b: str, alike: bool) -> None:
    assert (dice(a, b) >= RECALL_THRESHOLD) is alike, f"{dice(a, b):.3f}"


def test_recall_respects_the_threshold_returns_at_most_two_and_counts_hits(tmp_path: Path) -> None:
    storage = open_storage(tmp_path.as_uri())
    library = ExperienceLibrary(storage)
    for instruction in [
        "Write the note 'Call Alice'",
        "Write the note 'Pay the rent'",
        "Write the note 'Buy eggs'",
        "Delete the note 'Old ideas'",
        "Open settings and turn on wifi",
    ]:
        library.add(instruction, "t", f"1. Do this for {instruction} with the notes app and check it.")
    query = "Write the note 'Buy bread'"
    scores = sorted(((dice(query, e.instruction), e.instruction) for e in library.all()), reverse=True)
    above = [instruction for score, instruction in scores if score >= RECALL_THRESHOLD]
    assert len(above) == 4  # four are alike enough: only the best two come back
    found = library.recall(query)
    assert len(found) == MAX_RECALLED == 2
    assert [r.experience.instruction for r in found] == above[:2]
    assert found[0].score >= found[1].score >= RECALL_THRESHOLD
    # one alike recipe: one comes back, never padded with the next best under the threshold
    other = "Delete the note 'Old plans'"
    runner_up = sorted((dice(other, e.instruction) for e in library.all()), reverse=True)[1]
    assert 0.3 < runner_up < RECALL_THRESHOLD
    assert [r.experience.instruction for r in library.recall(other, count_hits=False)] == [
        "Delete the note 'Old ideas'"
    ]
    assert library.recall("Take a photo with the camera", count_hits=False) == []
    hits = {e.instruction: e.hits for e in library.all()}
    assert hits == {i: (1 if i in above[:2] else 0) for i in hits}
    assert all(e.last_hit_at is not None for e in library.all() if e.hits)


def _system(request: RecordedRequest) -> str:
    body = request.body
    if body.get("instructions"):
        return str(body["instructions"])
    return str(body["messages"][0]["content"])


def _turns_so_far(request: RecordedRequest) -> int:
    return sum(1 for m in request.body.get("messages", []) if m.get("role") == "assistant")


def _explore(note: str) -> list[dict[str, Any]]:
    """How a model finds its way the first time: looking before every move."""
    return [
        turn(call("screenshot")),
        turn(call("ui_tree")),
        turn(call("tap", description="Notes")),
        turn(call("ui_tree")),
        turn(call("tap", text="New note")),
        turn(call("ui_tree")),
        turn(call("tap", resource_id=f"{PACKAGE}:id/body")),
        turn(call("type_text", text=note)),
        turn(call("tap", text="Save")),
        turn(call("ui_tree")),
        turn(call("report_task", kind="completion", summary=f"Wrote {note}", checked=["the list"], evidence=[note])),
    ]


_TOOL_ARG = {"text": "text", "resourceId": "resource_id", "description": "description"}


def _follow(system: str, note: str) -> list[dict[str, Any]]:
    """How a model uses the reusable actions of its system prompt: their locators, in one go."""
    section = system.split("## Reusable actions", 1)[1]
    steps: list[dict[str, Any]] = []
    for line in section.splitlines():
        match = re.match(r"^- .*?: (\[.*\])$", line)
        if match:
            steps += json.loads(match.group(1))
    steps.sort(key=lambda s: s["kind"] != "click" or "description" not in s["selector"])  # open the app first
    calls = []
    for step in steps:
        if step["kind"] == "click":
            calls.append(call("tap", **{_TOOL_ARG[k]: v for k, v in step["selector"].items()}))
        elif step["kind"] == "input_text":
            calls.append(call("type_text", text=note))
        elif step["kind"] == "app_start":
            calls.append(call("app_start", package=step["package"]))
    done = call("report_task", kind="completion", summary=f"Wrote {note}", checked=["the list"], evidence=[note])
    return [turn(*calls), turn(done)]


def _note_of(request: RecordedRequest) -> str:
    task = next(m["content"] for m in request.body["messages"] if m["role"] == "user")
    return re.search(r"'([^']+)'", task).group(1)  # type: ignore[union-attr]


def adaptive_model(request: RecordedRequest) -> dict[str, Any]:
    system, note = _system(request), _note_of(request)
    plan = _follow(system, note) if "## Reusable actions" in system else _explore(note)
    return plan[min(_turns_so_far(request), len(plan) - 1)]


def distil_from_candidates(request: RecordedRequest) -> dict[str, Any]:
    """A distillation that names the candidate steps the prompt offers."""
    prompt = request.prompt_text()
    candidates = json.loads(prompt.rsplit("\n", 1)[1])
    opening, rest = candidates[0], candidates[1:5]
    return {
        "json": {
            "recipe": {"title": "Write a note", "text": RECIPE},
            "actions": [
                {"name": "open the notes app", "aliases": ["notes"], "steps": [opening]},
                {"name": "write a note", "aliases": ["new note"], "steps": rest},
            ],
        }
    }


def test_a_second_similar_run_takes_fewer_steps_than_the_first(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, notes_app: NotesApp, home: Home
) -> None:
    brain = Brain(turns=[adaptive_model], memory=[distil_from_candidates])
    fake_llm.script("agent", brain)
    harness = make_memory_loop()
    first = harness.loop.start("run-first", "Write the note 'Call Alice'")
    assert first.outcome == "completed"
    assert not any(isinstance(e, MemoryRecalled) for e in harness.events("run-first"))  # nothing to recall yet
    learned = {a.name: a.steps for a in ActionLibrary(harness.storage).all()}
    assert learned["open the notes app"] == [{"kind": "click", "selector": {"description": "Notes"}}]
    home.press("home")  # the phone as a person leaves it between two tasks

    second = harness.loop.start("run-second", "Write the note 'Buy bread'")
    assert second.outcome == "completed"
    assert notes_app.notes == ["Buy milk", "Call Alice", "Buy bread"]
    assert (first.steps, second.steps) == (11, 6)  # counted tool calls: the second run skipped the exploring
    assert second.model_calls < first.model_calls
    # what the second run was given: the recipe and the actions, with how to use them
    system = _system(brain.turn_requests[-1])
    assert "## Experience from similar tasks" in system and RECIPE in system
    assert "Learned from: Write the note 'Call Alice'" in system
    assert "Prefer these locators" in system and "take a screenshot to check" in system
    cards = [e for e in harness.events("run-second") if isinstance(e, MemoryRecalled)]
    assert [c.library for c in cards] == ["experience", "actions"]
    assert [h.title for h in cards[0].hits] == ["Write a note"] and cards[0].hits[0].score >= RECALL_THRESHOLD
    assert {h.title for h in cards[1].hits} == {"open the notes app", "write a note"}
    assert cards[0].message.startswith("1 similar past experience(s) recalled")
    # the first run's recipe was used once; the second run taught its own (not yet used)
    assert {e.run_id: e.hits for e in ExperienceLibrary(harness.storage).all()} == {"run-first": 1, "run-second": 0}
    assert {a.name: a.hits for a in ActionLibrary(harness.storage).all()} == {
        "open the notes app": 1,
        "write a note": 1,
    }


def test_a_resumed_run_keeps_its_memory_and_counts_no_second_hit(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer
) -> None:
    harness = make_memory_loop(distil=False)
    ExperienceLibrary(harness.storage).add("Write the note 'Call Alice'", "Write a note", RECIPE)
    stuck = [turn(call("tap", text="Nowhere"))]  # the same failing tap: the run pauses at the fuse
    fake_llm.script("agent", Brain(turns=stuck))
    paused = harness.loop.start("run-p", "Write the note 'Buy bread'")
    assert paused.outcome == "paused"
    assert ExperienceLibrary(harness.storage).all()[0].hits == 1
    brain = Brain(turns=[turn(call("report_task", kind="completion", summary="ok", checked=["x"], evidence=["y"]))])
    fake_llm.script("agent", brain)
    assert harness.loop.resume("run-p").outcome == "completed"
    assert RECIPE in _system(brain.turn_requests[0])  # the resumed run still has its recipe
    assert ExperienceLibrary(harness.storage).all()[0].hits == 1


def test_a_broken_library_never_stops_a_run(make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer) -> None:
    harness = make_memory_loop(distil=False)
    harness.storage.write_bytes("agent/memory/experiences/exp-broken.json", b"{not json")
    harness.storage.write_bytes("agent/memory/actions/act-huge.json", b"[" * 2_000_000)
    ExperienceLibrary(harness.storage).add("Write the note 'Call Alice'", "Write a note", RECIPE)
    brain = Brain(turns=[turn(call("report_task", kind="completion", summary="ok", checked=["x"], evidence=["y"]))])
    fake_llm.script("agent", brain)
    assert harness.loop.start("run-b", "Write the note 'Buy bread'").outcome == "completed"
    assert RECIPE in _system(brain.turn_requests[0])
    recall = MemoryRecall(harness.storage, count_hits=False)
    recall.recall("x")
    assert recall.experiences.unreadable == ["agent/memory/experiences/exp-broken.json"]
    assert recall.actions.unreadable == ["agent/memory/actions/act-huge.json"]


def _actions_in(system: str) -> list[str]:
    section = system.split("## Reusable actions", 1)[1] if "## Reusable actions" in system else ""
    return [line[2:].split(":", 1)[0] for line in section.splitlines() if line.startswith("- ")]


def test_at_most_three_actions_reach_the_prompt_however_many_match(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer
) -> None:
    harness = make_memory_loop(distil=False)
    library = ActionLibrary(harness.storage)
    names = ["open notes", "new note", "save note", "note list", "write note"]
    for name in names:  # every name is inside the instruction: all five match
        library.save({"name": name, "steps": [{"kind": "app_start", "package": PACKAGE}]})
    brain = Brain(turns=[turn(call("report_task", kind="completion", summary="ok", checked=["x"], evidence=["y"]))])
    fake_llm.script("agent", brain)
    instruction = "open notes, new note, write note 'x', save note, back to the note list"
    assert harness.loop.start("run-3", instruction).outcome == "completed"
    injected = _actions_in(_system(brain.turn_requests[0]))
    assert len(injected) == 3 and set(injected) < set(names)


def test_an_action_edited_by_hand_past_the_rules_never_reaches_a_run_the_cli_or_the_audit(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer
) -> None:
    from typer.testing import CliRunner

    from flows.cli import app
    from rlauto_core.memory import audit_library

    harness = make_memory_loop(distil=False)
    storage = harness.storage
    library = ActionLibrary(storage)
    four = [{"kind": "app_start", "package": PACKAGE}, {"kind": "click", "selector": {"text": "New note"}},
            {"kind": "input_text", "text": "x"}, {"kind": "click", "selector": {"text": "Save"}}]  # fmt: skip
    longest = library.save({"name": "write note", "steps": four})  # 4 steps: the most an action may have
    edited = library.save({"name": "open notes", "steps": four[:1]})
    path = f"agent/memory/actions/{edited.id}.json"
    record = json.loads(storage.read_bytes(path))
    record["steps"] = [*four, {"kind": "wait", "seconds": 1}, {"kind": "click", "selector": {"text": "x"}, "x": 5}]
    storage.write_bytes(path, json.dumps(record).encode())  # by hand: 6 steps and a coordinate

    brain = Brain(turns=[turn(call("report_task", kind="completion", summary="ok", checked=["x"], evidence=["y"]))])
    fake_llm.script("agent", brain)
    assert harness.loop.start("run-e", "open notes and write note 'x'").outcome == "completed"
    assert _actions_in(_system(brain.turn_requests[0])) == ["write note"]  # the 4-step one, not the edited one
    assert [a.id for a in library.all()] == [longest.id] and library.get(edited.id) is None
    [skipped] = library.skipped
    assert skipped.startswith(f"{path}: 6 steps: an action has at most 4") and "coordinates (x)" in skipped
    recall = CliRunner().invoke(app, ["experience", "recall", "open notes and write note", "--storage", storage.url,
                                      "--json"])  # fmt: skip
    assert [a["name"] for a in json.loads(recall.stdout)["actions"]] == ["write note"]
    summary = audit_library(storage, lambda: pytest.fail("an empty experience library needs no model"))
    assert summary.skipped == [skipped]
