"""Distillation after a completed run, on the real loop, the fake model server and the notes app:
thinking off, the answer salvaged when cut, the quality gate, failures logged and shown."""

from __future__ import annotations

import json
import logging

import adbutils
import pytest

from rlauto_core.agent.events import MemoryDistilled, RunEnded
from rlauto_core.memory import ActionLibrary, ExperienceLibrary, recipe_problem
from rlauto_core.memory.prompts import EXAMPLE_RECIPE, FIELD_HINTS
from rlauto_core.memory.quality import COPY_SIMILARITY, copied
from tests.agent.conftest import SERIAL
from tests.agent.memory.answers import OPEN_NOTES, RECIPE, WRITE_A_NOTE, cut_inside_last_action, distillation
from tests.agent.memory.conftest import Brain, MakeMemoryLoop
from tests.agent.scripts import WRITE_NOTE, call, completion, turn
from tests.fakes.llm_server import FakeLlmServer

INSTRUCTION = "Write the note 'Call Alice' and deliver a screenshot of it"


def _run(make: MakeMemoryLoop, fake_llm: FakeLlmServer, brain: Brain, run_id: str = "run-1", **settings: object):
    fake_llm.script("agent", brain)
    harness = make(**settings)
    return harness, harness.loop.start(run_id, INSTRUCTION)


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_a_completed_run_is_distilled_with_thinking_off(
    api_mode: str, make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer
) -> None:
    brain = Brain(turns=WRITE_NOTE, memory=[{"json": distillation(RECIPE, OPEN_NOTES, WRITE_A_NOTE)}])
    harness, result = _run(make_memory_loop, fake_llm, brain, api_mode=api_mode)
    assert result.outcome == "completed"
    assert len(brain.memory_requests) == 1
    body = brain.memory_requests[0].body
    assert "tools" not in body and body.get("stream") is not True
    if api_mode == "chat":
        assert body["thinking"] == {"type": "disabled"} and body["enable_thinking"] is False
        assert body["response_format"] == {"type": "json_object"} and body["max_tokens"] == 2048
    else:
        assert body["reasoning"] == {"effort": "minimal"} and body["max_output_tokens"] == 2048
    prompt = brain.memory_requests[0].prompt_text()
    assert f"TASK: {INSTRUCTION}" in prompt
    assert 'tap {"text":"New note"}' in prompt and "save_screenshot" in prompt
    assert '{"kind": "click", "selector": {"text": "New note"}}' in prompt  # a candidate step
    recipes = ExperienceLibrary(harness.storage).all()
    assert [(r.instruction, r.title, r.recipe, r.run_id) for r in recipes] == [
        (INSTRUCTION, "Write a note", RECIPE, "run-1")
    ]
    actions = {a.name: a for a in ActionLibrary(harness.storage).all()}
    assert set(actions) == {"open the notes app", "write a note"}
    assert actions["write a note"].steps[0] == {"kind": "click", "selector": {"text": "New note"}}
    events = harness.events("run-1")
    # the card comes before the end, so a page following the log until run_ended sees it
    assert [type(e) for e in events[-2:]] == [MemoryDistilled, RunEnded]
    card = events[-2]
    assert card.recipe_id == recipes[0].id and card.actions == ["open the notes app", "write a note"]
    assert card.problems == []


def test_a_recipe_cut_off_mid_answer_is_salvaged_object_by_object(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, caplog: pytest.LogCaptureFixture
) -> None:
    cut = cut_inside_last_action(distillation(RECIPE, OPEN_NOTES, WRITE_A_NOTE))
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut)
    brain = Brain(turns=WRITE_NOTE, memory=[{"text": cut}])
    with caplog.at_level(logging.WARNING, logger="rlauto.agent.memory"):
        harness, result = _run(make_memory_loop, fake_llm, brain)
    assert result.outcome == "completed"
    assert [r.recipe for r in ExperienceLibrary(harness.storage).all()] == [RECIPE]
    # the complete action is kept; the cut one is dropped, never "repaired" into a half action
    assert [a.name for a in ActionLibrary(harness.storage).all()] == ["open the notes app"]
    card = harness.events("run-1")[-2]
    assert isinstance(card, MemoryDistilled) and card.recipe_id is not None
    assert any("cut off: 1 unfinished part(s) dropped" in p for p in card.problems)
    assert any("run-1: distillation:" in r.getMessage() and "cut off" in r.getMessage() for r in caplog.records)


REFUSED = [
    ("1. …\n2. …\n3. …", "near-empty recipe"),
    ("1. <step>\n2. <step>\n3. Tap the Save button on the editor screen", "placeholder recipe"),
    ("Step 1: TODO\nStep 2: TBD\nStep 3: open the notes app, tap New note, type it and tap Save", "placeholder recipe"),
    ("OK, done.", "near-empty recipe"),
    (EXAMPLE_RECIPE.replace("reporting completion", "reporting"), "a copy of the prompt's own example"),
    ("Write it as short numbered lines in plain words about the notes app", "gives back the prompt's description"),
    (
        "1. Start the notes app.\n2. Tap (540, 1200) to open a new note.\n3. Type the text and save it.",
        "names screen coordinates",
    ),
    (
        "1. Open the notes app.\n2. Tap x=540 then the body at [40,240][1040,1200].\n3. Save.",
        "names screen coordinates",
    ),
    ("1. Open the notes app and write the note.\n" * 120, "5039 characters: a recipe has at most 4000"),
]


@pytest.mark.parametrize(("text", "reason"), REFUSED)
def test_the_quality_gate_names_why_a_recipe_is_refused(text: str, reason: str) -> None:
    problem = recipe_problem(text, EXAMPLE_RECIPE, FIELD_HINTS)
    assert problem is not None and problem.startswith(reason), problem


# a correct recipe for the demo phone's Wi-Fi switch: the gate once refused it as a "copy" of
# the prompt's example, then about Wi-Fi (bigram similarity 0.74 with that example)
WIFI_RECIPE = (
    "1. Open Settings (package com.android.settings).\n"
    "2. Tap the Wi-Fi switch (description 'Wi-Fi') to switch Wi-Fi on.\n"
    "3. Check that the Wi-Fi switch reads checked before reporting completion."
)


def test_the_copy_check_compares_the_examples_text_not_its_topic() -> None:
    assert copied(EXAMPLE_RECIPE, EXAMPLE_RECIPE) == 1.0
    assert copied("\n".join(reversed(EXAMPLE_RECIPE.splitlines())), EXAMPLE_RECIPE) == 1.0  # reordered: a copy
    assert recipe_problem(WIFI_RECIPE, EXAMPLE_RECIPE, FIELD_HINTS) is None
    assert copied(WIFI_RECIPE, EXAMPLE_RECIPE) < 0.6 and copied(RECIPE, EXAMPLE_RECIPE) < 0.6
    # even against an example on its own topic, a recipe in its own words is not a copy
    wifi_example = "1. Open Settings (package com.android.settings).\n2. Switch 'Wi-Fi' on.\n3. Check it reads On."
    own_words = "1. Start com.android.settings.\n2. Tap the Wi-Fi switch.\n3. Make sure the switch shows it is on."
    assert copied(own_words, wifi_example) < COPY_SIMILARITY


def test_a_real_wi_fi_recipe_is_learned_from_a_run_on_the_demo_phones_settings(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, adb_client: adbutils.AdbClient
) -> None:
    wifi = [
        turn(call("app_start", package="com.android.settings")),
        turn(call("tap", description="Wi-Fi")),
        turn(call("save_screenshot", name="wifi")),
        turn(completion("files/wifi.jpg", summary="Wi-Fi is on")),
    ]
    brain = Brain(turns=wifi, memory=[{"json": distillation(WIFI_RECIPE, title="Turn on Wi-Fi")}])
    fake_llm.script("agent", brain)
    harness = make_memory_loop()
    assert harness.loop.start("run-wifi", "Turn on Wi-Fi").outcome == "completed"
    assert adb_client.device(SERIAL).shell("settings get global wifi_on").strip() == "1"  # read back from the phone
    card = harness.events("run-wifi")[-2]
    assert isinstance(card, MemoryDistilled) and card.problems == [] and card.recipe_id is not None
    assert [(r.title, r.recipe) for r in ExperienceLibrary(harness.storage).all()] == [("Turn on Wi-Fi", WIFI_RECIPE)]


def test_the_quality_gate_lets_a_real_recipe_through() -> None:
    assert recipe_problem(RECIPE, EXAMPLE_RECIPE, FIELD_HINTS) is None
    chinese = "1. 打开记事本（com.example.notes），点“New note”。\n2. 点正文输入框，输入内容，点 Save。\n3. 确认列表里出现新笔记。"
    assert recipe_problem(chinese, EXAMPLE_RECIPE, FIELD_HINTS) is None


def test_a_placeholder_recipe_from_the_model_is_refused_logged_and_shown(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, caplog: pytest.LogCaptureFixture
) -> None:
    brain = Brain(
        turns=WRITE_NOTE,
        memory=[
            {
                "json": distillation(
                    "1. <step>\n2. …\n3. …\n4. Tap Save in the editor, then check the list shows the note", OPEN_NOTES
                )
            }
        ],
    )
    with caplog.at_level(logging.WARNING, logger="rlauto.agent.memory"):
        harness, result = _run(make_memory_loop, fake_llm, brain)
    assert result.outcome == "completed"
    assert ExperienceLibrary(harness.storage).all() == []
    assert [a.name for a in ActionLibrary(harness.storage).all()] == ["open the notes app"]  # actions are checked apart
    card = harness.events("run-1")[-2]
    assert isinstance(card, MemoryDistilled) and card.recipe_id is None
    assert card.problems == ["recipe refused: placeholder recipe (3 of 4 lines are placeholders)"]
    assert any("recipe refused: placeholder recipe" in r.getMessage() for r in caplog.records)


def test_a_failing_distillation_is_logged_and_shown_and_the_run_stays_completed(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, caplog: pytest.LogCaptureFixture
) -> None:
    brain = Brain(turns=WRITE_NOTE, memory=[{"status": 401, "error": "invalid api key"}])
    with caplog.at_level(logging.WARNING, logger="rlauto.agent.memory"):
        harness, result = _run(make_memory_loop, fake_llm, brain)
    assert result.outcome == "completed" and result.answer == "Wrote the note"
    card = harness.events("run-1")[-2]
    assert isinstance(card, MemoryDistilled) and card.recipe_id is None and card.actions == []
    assert card.problems and card.problems[0].startswith("the model call failed")
    assert any("run-1: distillation failed" in r.getMessage() for r in caplog.records)
    assert ExperienceLibrary(harness.storage).all() == []


def test_a_run_that_did_not_complete_teaches_nothing(make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer) -> None:
    chat = [turn(text="I looked at the screen."), turn(text="Hmm."), turn(text="Still thinking."), turn(text="Bye.")]
    brain = Brain(turns=chat, memory=[{"json": distillation(RECIPE)}])
    harness, result = _run(make_memory_loop, fake_llm, brain)
    assert result.outcome == "chat_ended"
    assert brain.memory_requests == []
    assert not any(isinstance(e, MemoryDistilled) for e in harness.events("run-1"))
