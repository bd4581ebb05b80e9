"""The action library: allowed kinds, required parameters, no coordinate at save or on a manual
edit, the per-distillation limits, and recall by name or alias."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlauto_core.agent.events import MemoryDistilled
from rlauto_core.memory import ACTION_KINDS, ActionLibrary, ActionRefused, check_action
from rlauto_core.steps import STEP_KINDS
from rlauto_core.store.storage import FsspecStorage, open_storage
from tests.agent.memory.answers import OPEN_NOTES, RECIPE, WRITE_A_NOTE, distillation
from tests.agent.memory.conftest import Brain, MakeMemoryLoop
from tests.agent.scripts import PACKAGE, WRITE_NOTE, call, completion, turn
from tests.fakes.llm_server import FakeLlmServer

CLICK = {"kind": "click", "selector": {"text": "New note"}}


@pytest.fixture
def library(tmp_path: Path) -> ActionLibrary:
    return ActionLibrary(open_storage(tmp_path.as_uri()))


def test_the_allowed_kinds_are_the_step_kinds_but_three() -> None:
    assert set(STEP_KINDS) - set(ACTION_KINDS) == {"click_xy", "keep_screen", "gesture"}
    assert len(ACTION_KINDS) == 18


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"kind": "click_xy", "x": 540, "y": 1200}, "step 1 (click_xy): not allowed in an action: it taps coordinates"),
        ({"kind": "long_click", "x": 540, "y": 1200}, "step 1 (long_click): coordinates (x) are not allowed"),
        (
            {"kind": "double_click", "selector": {"text": "a"}, "y": 3},
            "step 1 (double_click): coordinates (y) are not allowed",
        ),
        ({"kind": "keep_screen", "on": True}, "step 1 (keep_screen): not allowed in an action"),
        ({"kind": "gesture", "gesture": {"points": [[1, 2, 0]]}}, "step 1 (gesture): not allowed in an action"),
        ({"kind": "shell", "command": "input tap 540 1200"}, "a shell command touching coordinates"),
        ({"kind": "shell", "command": "sendevent /dev/input/event2 3 53 540"}, "a shell command touching coordinates"),
        ({"kind": "shell", "command": "sh -c 'in\\put touchscreen sw\"ipe\" 1 2 3 4'"}, "a shell command touching"),
        ({"kind": "shell", "command": "input -d 0 roll 3 4"}, "a shell command touching coordinates"),
        (
            {"kind": "click", "selector": {"xpath": "//*[@bounds='[0,0][10,10]']"}},
            "an xpath on @bounds is a coordinate",
        ),
        ({"kind": "click"}, "step 1 (click): selector: missing required parameter"),
        ({"kind": "input_text"}, "step 1 (input_text): text: missing required parameter"),
        ({"kind": "app_start", "package": "not a package"}, "step 1 (app_start): package: String should match"),
        ({"kind": "tap", "text": "Save"}, "step 1: unknown kind 'tap' (an action may use: app_start"),
        ("click Save", "step 1: expected an object with a kind, got str"),
    ],
)
def test_a_step_an_action_may_not_hold_is_named(step: Any, problem: str) -> None:
    """Every case fails on its own: no other step is in the action."""
    check = check_action({"name": "act", "steps": [step]})
    assert not check.ok and check.action is None
    assert any(p.startswith(problem) or problem in p for p in check.problems), check.problems


def test_every_problem_of_an_action_is_named_at_once() -> None:
    check = check_action(
        {
            "name": "",
            "aliases": ["ok", 3, "x" * 81],
            "steps": [CLICK, {"kind": "click"}, {"kind": "click_xy"}] * 2,
            "id": 1,
        }
    )
    assert check.problems == [
        "unknown key 'id' (an action has name, aliases, steps)",
        "name is empty",
        "alias 2 must be text, got int",
        "alias 3 has 81 characters: at most 80",
        "6 steps: an action has at most 4 (a longer one is a task)",
        "step 2 (click): selector: missing required parameter",
        "step 3 (click_xy): not allowed in an action: it taps coordinates, which break on another screen size or "
        "layout (click a selector instead)",
        "step 5 (click): selector: missing required parameter",
        "step 6 (click_xy): not allowed in an action: it taps coordinates, which break on another screen size or "
        "layout (click a selector instead)",
    ]


def test_an_action_with_coordinates_is_refused_at_save_and_on_edit(library: ActionLibrary) -> None:
    with pytest.raises(ActionRefused, match=r"action 'tap save' refused: step 1 \(click_xy\): not allowed"):
        library.save({"name": "tap save", "steps": [{"kind": "click_xy", "x": 600, "y": 1300}]})
    assert library.all() == []
    saved = library.save({"name": "open the notes app", "aliases": ["notes", "notes"], "steps": OPEN_NOTES["steps"]})
    assert saved.aliases == ["notes"]
    with pytest.raises(ActionRefused) as refused:
        library.edit(saved.id, {"name": "open the notes app", "steps": [{"kind": "long_click", "x": 1, "y": 2}]})
    assert refused.value.problems == [
        "step 1 (long_click): coordinates (x) are not allowed in an action: find the element by a selector"
    ]
    assert library.get(saved.id) == saved  # the refused edit changed nothing
    edited = library.edit(saved.id, {"name": "open notes", "aliases": [], "steps": [CLICK]})
    assert (edited.name, edited.steps) == ("open notes", [CLICK])


def test_the_same_name_updates_the_action_and_keeps_its_hits(library: ActionLibrary) -> None:
    first = library.save(OPEN_NOTES)
    library.recall("open the notes app please")
    again = library.save({"name": "Open the Notes app", "aliases": ["记事本"], "steps": [CLICK]})
    assert again.id == first.id and again.hits == 1
    assert again.aliases == ["notes", "记事本"] and again.steps == [CLICK]
    assert len(library.all()) == 1


def test_recall_by_name_or_alias_substring_or_bigrams(library: ActionLibrary) -> None:
    library.save(OPEN_NOTES)
    library.save(WRITE_A_NOTE)
    library.save(
        {
            "name": "打开抖音",
            "aliases": ["douyin"],
            "steps": [{"kind": "app_start", "package": "com.ss.android.ugc.aweme"}],
        }
    )
    library.save({"name": "turn on wifi", "steps": [{"kind": "click", "selector": {"text": "Wi-Fi"}}]})
    found = {
        r.action.name: (r.score, r.matched) for r in library.recall("Write the note 'Buy bread'", count_hits=False)
    }
    assert set(found) == {"write a note", "open the notes app"}
    assert found["write a note"][0] >= 0.6 and found["open the notes app"][1] == "notes"
    chinese = library.recall("打开抖音看一个视频", count_hits=False)
    assert [(r.action.name, r.score) for r in chinese] == [("打开抖音", 1.0)]
    assert [r.action.name for r in library.recall("open DOUYIN and like a video", count_hits=False)] == ["打开抖音"]
    assert library.recall("Take a photo with the camera", count_hits=False) == []


def test_a_distillation_gets_at_most_10_steps_and_keeps_at_most_3_actions_of_4(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    many = [{"kind": "press_key", "key": "back"}] * 6 + [{"kind": "app_start", "package": PACKAGE}]
    long_one = {"name": "too long", "steps": [CLICK] * 5}
    extra = [{"name": f"extra {n}", "steps": [CLICK]} for n in range(3)]
    brain = Brain(
        turns=[WRITE_NOTE[0], turn(*[call("swipe", direction=d) for d in ["up", "down"] * 6]), turn(completion())],
        memory=[{"json": distillation(RECIPE, long_one, OPEN_NOTES, {"name": "back", "steps": many[:4]}, *extra)}],
    )
    fake_llm.script("agent", brain)
    harness = make_memory_loop()
    result = harness.loop.start("run-caps", "Open the notes and scroll a dozen times, then report")
    assert result.outcome == "completed" and result.steps == 14
    prompt = brain.memory_requests[0].prompt_text()
    candidates = prompt.rsplit("\n", 1)[1]
    assert "the first 10 successful steps" in prompt and candidates.count('"kind"') == 10
    assert [a.name for a in ActionLibrary(storage).all()] == ["back", "open the notes app"]
    card = harness.events("run-caps")[-2]
    assert isinstance(card, MemoryDistilled)
    assert "6 actions: at most 3 per run; the rest left out" in card.problems
    assert any(p.startswith("action 'too long' refused: 5 steps") for p in card.problems)
