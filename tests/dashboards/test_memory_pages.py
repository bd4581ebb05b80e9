"""The Experience, Actions and Designer pages driven through AppTest over a real storage: the
audit's suggestions, deletion only after a confirmation, keep, action edits through the same
check, a draft confirmed or discarded, a run started through the memory launcher."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from dashboards.memory_launcher import MemoryLauncher
from dashboards.repository import Repository
from rlauto_core.agent.designer import Draft, DraftStore
from rlauto_core.agent.events import EventLog, MemoryRecalled, RecallHit, RunEnded, ToolCalled
from rlauto_core.errors import ConfigError
from rlauto_core.memory import ActionLibrary, ExperienceLibrary
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import go, rendered_bytes, texts
from tests.dashboards.conftest import CANARY_API_KEY
from tests.fakes.memory_launcher import FakeMemoryLauncher

pytestmark = pytest.mark.usefixtures("loopback_address")
PACKAGE = "com.example.notes"
STEPS = [{"kind": "app_start", "package": PACKAGE}, {"kind": "click", "selector": {"text": "New note"}}]


def _script(repository: "Repository", memory: "MemoryLauncher | None") -> None:  # noqa: UP037 (the body runs alone)
    from dashboards.review import main

    main(repository, memory=memory)


def page(storage: FsspecStorage, name: str, memory: MemoryLauncher | None = None) -> AppTest:
    at = AppTest.from_function(_script, args=(Repository(storage.url, refresh_seconds=0), memory), default_timeout=60)
    return go(at, name.lower())


def button(at: AppTest, label: str) -> Any:
    return next(b for b in at.button if b.label == label)


def _recipes(storage: FsspecStorage) -> tuple[ExperienceLibrary, list[str]]:
    library = ExperienceLibrary(storage)
    ids = [
        library.add(task, title, f"1. Open the notes app.\n2. {title} and check the list ({n}).").id
        for n, (task, title) in enumerate(
            [("Write the note 'Call Alice'", "Write a note"), ("Write the note 'Pay rent'", "Write a note again"),
             ("Take a photo", "Photo")]
        )
    ]  # fmt: skip
    library.recall("Write the note 'Buy bread'")
    library.record_rating(ids[1], "delete", 2, "a copy of the first recipe", "agent")
    library.record_rating(ids[0], "keep", 9, "clear", "agent")
    return library, ids


def test_the_experience_page_lists_recipes_hits_and_the_audits_suggestions(storage: FsspecStorage) -> None:
    _recipes(storage)
    at = page(storage, "Experience")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["title"]) == ["Write a note", "Write a note again", "Photo"]
    assert list(table["hits"]) == [1, 1, 0]
    assert list(table["audit"]) == ["keep", "⚠ suggest delete", ""]
    assert list(table["reason"])[1] == "a copy of the first recipe"
    assert any("1 suggested for deletion" in c for c in texts(at, "caption"))


def test_a_recipe_is_deleted_only_after_delete_then_confirm(storage: FsspecStorage) -> None:
    library, ids = _recipes(storage)
    at = page(storage, "Experience")
    label = next(o for o in at.selectbox(key="experience_pick").options if ids[1] in o)
    assert label.startswith("⚠ ")
    at.selectbox(key="experience_pick").set_value(label).run()
    assert "The audit suggests deleting it (score 2/10): a copy of the first recipe" in texts(at, "warning")
    at.text_input(key="memory_person").input("Ann").run()
    button(at, "Delete").click().run()
    assert library.get(ids[1]) is not None  # one click only asks
    assert any("This cannot be undone" in w for w in texts(at, "warning"))
    button(at, "Cancel").click().run()
    assert library.get(ids[1]) is not None and not any(b.label == "Confirm delete" for b in at.button)
    button(at, "Delete").click().run()
    button(at, "Confirm delete").click().run()
    assert not at.exception
    assert library.get(ids[1]) is None and library.mark(ids[1]) is None
    assert "Deleted: Write a note again" in texts(at, "success")
    assert [e.id for e in library.all()] == [ids[0], ids[2]]
    # who confirmed it, when, and why the audit suggested it are kept, and shown
    [gone] = library.deletions()
    assert (gone.experience.id, gone.deleted_by, gone.audit_suggestion, gone.audit_reason) == (
        ids[1], "Ann", "delete", "a copy of the first recipe")  # fmt: skip
    assert storage.exists(f"agent/memory/experience_deletions/{ids[1]}.json")
    shown = " ".join(texts(at, "markdown"))
    assert "Write a note again: deleted by Ann at " in shown and "the audit said delete (2/10): a copy" in shown


def test_an_action_file_edited_by_hand_past_the_rules_is_named_on_the_actions_page(storage: FsspecStorage) -> None:
    library = ActionLibrary(storage)
    saved = library.save({"name": "open notes", "steps": STEPS})
    path = f"agent/memory/actions/{saved.id}.json"
    edited = json.loads(storage.read_bytes(path))
    edited["steps"] = [*STEPS, {"kind": "shell", "command": "input tap 540 1200"}]
    storage.write_bytes(path, json.dumps(edited).encode())
    at = page(storage, "Actions")
    assert not at.exception
    warning = next(w for w in texts(at, "warning") if path in w)
    assert "Skipped, runs never get it" in warning and "a shell command touching coordinates" in warning
    assert any("No actions yet" in i for i in texts(at, "info"))


def test_confirm_delete_without_a_name_is_refused(storage: FsspecStorage) -> None:
    library, ids = _recipes(storage)
    at = page(storage, "Experience")
    button(at, "Delete").click().run()
    button(at, "Confirm delete").click().run()
    assert any("needs the name of the person who confirms it" in e for e in texts(at, "error"))
    assert library.get(ids[0]) is not None


def test_keep_is_remembered(storage: FsspecStorage) -> None:
    library, ids = _recipes(storage)
    at = page(storage, "Experience")
    label = next(o for o in at.selectbox(key="experience_pick").options if ids[1] in o)
    at.selectbox(key="experience_pick").set_value(label).run()
    at.text_input(key="memory_person").input("Bob").run()
    button(at, "Keep").click().run()
    mark = library.mark(ids[1])
    assert mark is not None and (mark.decision, mark.decided_by, mark.pending_delete) == ("kept", "Bob", False)
    assert list(at.dataframe[0].value["audit"])[1] == "kept by Bob"


def test_the_audit_is_started_through_the_launcher(storage: FsspecStorage) -> None:
    memory = FakeMemoryLauncher()
    at = page(storage, "Experience", memory)
    assert any("No recipes yet" in i for i in texts(at, "info"))
    button(at, "Run the audit now").click().run()
    assert memory.audits == 1 and any("audit-run-1" in s for s in texts(at, "success"))
    refused = page(storage, "Experience")  # no launcher handed: said so, nothing started
    button(refused, "Run the audit now").click().run()
    assert any("cannot start runs: start it with" in e for e in texts(refused, "error"))


def test_an_action_edit_goes_through_the_same_check(storage: FsspecStorage) -> None:
    library = ActionLibrary(storage)
    action = library.save({"name": "open the notes app", "aliases": ["notes"], "steps": STEPS[:1]})
    at = page(storage, "Actions")
    assert list(at.dataframe[0].value["name"]) == ["open the notes app"]
    editor = at.text_area(key=f"action_steps_{action.id}")
    editor.input(json.dumps([{"kind": "click_xy", "x": 10, "y": 20}, {"kind": "click"}]))  # in a form: sent on Save
    next(b for b in at.button if b.label == "Save").click().run()
    errors = texts(at, "error")
    assert errors[0].startswith("Not saved: 2 problem")
    assert any(e.startswith("step 1 (click_xy): not allowed in an action: it taps coordinates") for e in errors)
    assert "step 2 (click): selector: missing required parameter" in errors
    assert library.get(action.id) == action  # unchanged
    at.text_area(key=f"action_steps_{action.id}").input('[{"kind": "wait", "seconds": NaN}]')
    next(b for b in at.button if b.label == "Save").click().run()
    assert any(e.startswith("steps: not JSON: NaN") for e in texts(at, "error"))
    at.text_area(key=f"action_steps_{action.id}").input(json.dumps(STEPS))
    next(b for b in at.button if b.label == "Save").click().run()
    assert not at.exception and library.get(action.id).steps == STEPS  # type: ignore[union-attr]
    assert "Saved: open the notes app (2 steps)" in texts(at, "success")


def test_a_new_action_with_coordinates_is_refused_and_delete_asks_first(storage: FsspecStorage) -> None:
    at = page(storage, "Actions")
    at.text_input(key="action_new_name").input("tap save")
    at.text_area(key="action_new_steps").input(json.dumps([{"kind": "long_click", "x": 1, "y": 2}]))
    button(at, "Create").click().run()
    assert any("coordinates (x) are not allowed" in e for e in texts(at, "error"))
    assert ActionLibrary(storage).all() == []
    at.text_area(key="action_new_steps").input(json.dumps(STEPS))
    button(at, "Create").click().run()
    [saved] = ActionLibrary(storage).all()
    button(at, "Delete").click().run()
    assert ActionLibrary(storage).get(saved.id) is not None
    button(at, "Confirm delete").click().run()
    assert ActionLibrary(storage).all() == []


def _designer_events(storage: FsspecStorage, run_id: str) -> None:
    thumb = io.BytesIO()
    Image.new("RGB", (24, 52), (200, 220, 255)).save(thumb, "JPEG")
    storage.write_bytes(f"agent/runs/{run_id}/thumbs/000001.jpg", thumb.getvalue())
    log = EventLog(storage, run_id)
    log.append(MemoryRecalled(run_id=run_id, library="actions", hits=[RecallHit(id="a", title="open the notes app", score=1.0)],
                              message="1 reusable action(s) recalled and put into the system prompt"))  # fmt: skip
    log.append(ToolCalled(run_id=run_id, call_id="c1", tool="ui_tree", args={}, ok=True, result="- Button text=\"New note\"",
                          state_changing=False, thumbnail=f"agent/runs/{run_id}/thumbs/000001.jpg"))  # fmt: skip
    log.append(ToolCalled(run_id=run_id, call_id="c2", tool="submit_task", args={"name": "x", "steps": 2}, ok=False,
                          result="ERROR: draft refused: step 2 (click): selector: missing required parameter",
                          state_changing=False))  # fmt: skip
    log.append(RunEnded(run_id=run_id, outcome="completed", answer="Draft 'Write a note' with 2 steps submitted"))


def test_the_designer_page_starts_a_run_and_shows_its_exploration(storage: FsspecStorage) -> None:
    memory = FakeMemoryLauncher()
    at = page(storage, "Designer", memory)
    at.text_area(key="designer_description").input("Write the standup note every morning")
    at.text_input(key="designer_serial").input("fake-1")
    button(at, "Start designing").click().run()
    assert memory.designs == [("fake-1", "Write the standup note every morning")]
    assert "run design-run-1: starting (no state yet) · 0 events" in texts(at, "caption")
    _designer_events(storage, "design-run-1")
    button(at, "Refresh").click().run()
    assert not at.exception
    shown = texts(at, "text")
    assert '- Button text="New note"' in shown
    assert "ERROR: draft refused: step 2 (click): selector: missing required parameter" in shown
    assert any("open the notes app" in i for i in texts(at, "info"))
    assert any("ended completed" in s for s in texts(at, "success"))
    assert len(at.get("image")) == 1  # the step card's thumbnail


def _draft(storage: FsspecStorage, **fields: Any) -> None:
    values: dict[str, Any] = {"run_id": "design-7", "instruction": "Write the standup note", "name": "Write a note",
                              "steps": STEPS, "warnings": ["nothing checks the result: add an assert_exists"]}  # fmt: skip
    DraftStore(storage).keep(Draft(**{**values, **fields}))


def test_a_draft_becomes_a_task_only_when_confirmed_and_then_runs_through_the_launcher(storage: FsspecStorage) -> None:
    _draft(storage)
    memory = FakeMemoryLauncher()
    at = page(storage, "Designer", memory)
    assert "nothing checks the result: add an assert\\_exists" in texts(at, "warning") or any(
        "nothing checks the result" in w for w in texts(at, "warning")
    )
    assert DraftStore(storage).all_tasks() == []
    at.text_input(key="memory_person").input("Ann").run()
    button(at, "Confirm as a step task").click().run()
    assert not at.exception
    [task] = DraftStore(storage).all_tasks()
    assert (task.steps, task.confirmed_by, task.source_run) == (STEPS, "Ann", "design-7")
    assert DraftStore(storage).latest() is None
    assert any(s.startswith("Confirmed: task ") for s in texts(at, "success"))
    at.text_input(key="designer_task_serial").input("fake-1").run()
    button(at, "Run on the phone").click().run()
    assert memory.tasks == [("Write a note", STEPS, "fake-1")]
    assert any("steps-run-1" in s for s in texts(at, "success"))


def test_a_draft_can_be_discarded_and_a_refusing_launcher_is_shown(storage: FsspecStorage) -> None:
    _draft(storage)
    at = page(
        storage,
        "Designer",
        FakeMemoryLauncher(refuse=ConfigError("the deployment design-task/design-task does not exist")),
    )
    button(at, "Discard draft").click().run()
    assert DraftStore(storage).latest() is None and DraftStore(storage).all_tasks() == []
    at.text_area(key="designer_description").input("x")
    at.text_input(key="designer_serial").input("fake-1")
    button(at, "Start designing").click().run()
    assert any("does not exist" in e for e in texts(at, "error"))


def test_no_canary_key_reaches_the_memory_pages(storage: FsspecStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_API_KEY", CANARY_API_KEY)
    library = ExperienceLibrary(storage)
    leaked = library.add(
        "Write the note", f"note {CANARY_API_KEY}", f"1. Type {CANARY_API_KEY} into the body field and save."
    )
    library.record_rating(leaked.id, "delete", 0, f"it holds {CANARY_API_KEY}", "agent")
    ActionLibrary(storage).save(
        {"name": f"type {CANARY_API_KEY}"[:80], "steps": [{"kind": "input_text", "text": CANARY_API_KEY}]}
    )
    _draft(storage, name=f"draft {CANARY_API_KEY}", steps=[{"kind": "input_text", "text": CANARY_API_KEY}])
    _designer_events(storage, "design-canary")
    EventLog(storage, "design-canary").append(
        ToolCalled(
            run_id="design-canary",
            call_id="c9",
            tool="type_text",
            args={"text": CANARY_API_KEY},
            ok=True,
            result=f"typed {CANARY_API_KEY}",
            state_changing=True,
        )
    )
    for name in ("Experience", "Actions", "Designer"):
        at = page(storage, name)
        if name == "Designer":
            at.text_input(key="designer_watch").input("design-canary").run()
        assert not at.exception
        shown = rendered_bytes(at)
        assert b"[REDACTED]" in shown, name  # the leaked values were on the page, scrubbed
        assert b"CANARY-APIKEY" not in shown, name
