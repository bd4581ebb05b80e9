"""A canary key never reaches recipes, actions, drafts, tasks or the memory's events, even when
the model (or a careless gateway) gives it back in its answers."""

from __future__ import annotations

from rlauto_core.agent.designer import DraftStore, designer_mode
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import KEY
from tests.agent.memory.answers import RECIPE
from tests.agent.memory.conftest import Brain, MakeMemoryLoop
from tests.agent.scripts import PACKAGE, WRITE_NOTE, call, turn
from tests.fakes.llm_server import FakeLlmServer

ECHOING = {
    "json": {
        "recipe": {"title": f"Write a note {KEY}", "text": RECIPE + f"\n5. Sign in with {KEY} when asked."},
        "actions": [
            {"name": f"sign in {KEY}", "steps": [{"kind": "input_text", "text": KEY}]},
            {"name": "open the notes app", "aliases": [KEY], "steps": [{"kind": "app_start", "package": PACKAGE}]},
        ],
    }
}


def _memory_files(storage: FsspecStorage) -> dict[str, bytes]:
    return {p: storage.read_bytes(p) for p in storage.list("agent") if not p.endswith(("state.json", ".jpg"))}


def test_a_canary_key_never_reaches_memory_drafts_or_events(
    make_memory_loop: MakeMemoryLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", Brain(turns=WRITE_NOTE, memory=[ECHOING]))
    harness = make_memory_loop()
    assert (
        harness.loop.start("run-canary", "Write the note 'Call Alice' and deliver a screenshot of it").outcome
        == "completed"
    )
    # the second run recalls what the first stored
    fake_llm.script(
        "agent",
        Brain(turns=[turn(call("report_task", kind="completion", summary="ok", checked=["x"], evidence=["y"]))]),
    )
    assert harness.loop.start("run-recall", "Write the note 'Buy bread'").outcome == "completed"
    steps_with_key = [
        {"kind": "app_start", "package": PACKAGE},
        {"kind": "input_text", "text": KEY},
        {"kind": "click", "selector": {"text": "Save"}},
    ]
    designer = [
        turn(
            call("submit_task", name=f"bad {KEY}", steps=[{"kind": "click", "selector": {"text": KEY}}, {"kind": KEY}])
        ),
        turn(call("submit_task", name=f"Sign in {KEY}", summary=f"uses {KEY}", steps=steps_with_key)),
    ]
    fake_llm.script("agent", Brain(turns=designer))
    design = make_memory_loop(mode=designer_mode(storage), distil=False)
    assert design.loop.start("design-canary", "Sign in and save").outcome == "completed"
    task = DraftStore(storage).confirm("Ann")
    files = _memory_files(storage)
    assert any(p.startswith("agent/memory/experiences/") for p in files)
    assert any(p.startswith("agent/memory/actions/") for p in files)
    assert any(p.startswith("agent/tasks/") for p in files)
    assert any(p.startswith("agent/runs/design-canary/events/") for p in files)
    leaks = [p for p, data in files.items() if KEY.encode() in data]
    assert leaks == []
    assert b"[REDACTED]" in files[f"agent/tasks/{task.id}.json"]  # the leaked value was there, scrubbed
    assert task.steps[1] == {"kind": "input_text", "text": "[REDACTED]"}


def test_a_key_without_a_known_format_is_scrubbed_by_value(storage: FsspecStorage) -> None:
    from rlauto_core.agent.tools import LocalCall

    submit = designer_mode(storage).local_tools[0]
    plain = "canary-plain-value-4242"
    steps = [{"kind": "app_start", "package": PACKAGE}, {"kind": "input_text", "text": plain}]
    outcome = submit.run({"name": f"n {plain}", "steps": steps}, LocalCall("r1", f"do {plain}", (plain,)))
    assert outcome.ok and plain not in outcome.text
    refused = submit.run({"name": plain, "steps": [{"kind": plain}]}, LocalCall("r1", "x", (plain,)))
    assert not refused.ok and plain not in refused.text and plain not in str(refused.args)
    assert plain.encode() not in storage.read_bytes("agent/designer/draft.json")
