"""The shipped demo suite's checks against phone states made by hand on the demo phone (through
its ADB server and the real uiautomator2 client): each task's checks pass on the right state and
fail on a near miss, and in its own start state only the tasks whose goal already holds pass
(so an agent that does nothing, or only claims success, passes those and no other)."""

from __future__ import annotations

from typing import Any

import adbutils
import pytest

from device_flows.demo import DemoAdbServer, DemoPhone
from device_flows.phone import U2Phone
from rlauto_core.agent.suite import (
    DemoFixture,
    PhoneShell,
    RunFacts,
    SuiteTask,
    TaskSetupError,
    apply_checks,
    load_suite,
    reset_phone,
)
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL

SUITE = load_suite()
JPEG = b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF"  # a header only: not an image that opens
DONE: dict[str, Any] = {"outcome": "completed"}


def _jpeg() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(out, "JPEG")
    return out.getvalue()


# task -> (the right end state, a near miss): demo apps' changes, the outcome, the run's files
CASES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "note-call-alice": ({"notes": {"notes": ["Buy milk", "Call Alice"]}},
                        {"notes": {"notes": ["Buy milk", "Call Alice", "Call Alice"]}}),
    "shopping-add-eggs": ({"shopping": {"items": ["Bread", "Eggs"]}}, {"shopping": {"items": ["Bread", "Egg"]}}),
    "wifi-on": ({"settings": {"wifi_on": True}}, {"settings": {"wifi_on": False, "bluetooth_on": False}}),
    "bluetooth-off": ({"settings": {"bluetooth_on": False}}, {"settings": {"bluetooth_on": False, "wifi_on": True}}),
    "dark-theme-on": ({"settings": {"dark_theme_on": True}}, {"settings": {"airplane_mode_on": True}}),
    "airplane-on": ({"settings": {"airplane_mode_on": True}}, {"settings": {"wifi_on": True}}),
    "tick-off-bread": ({"shopping": {"items": ["Bread"], "bought": ["Bread"]}},
                       {"shopping": {"items": ["Bread", "Bread x"], "bought": ["Bread"]}}),
    "shopping-and-note": ({"shopping": {"items": ["Bread", "Milk"]}, "notes": {"notes": ["Milk is on the list"]}},
                          {"shopping": {"items": ["Bread", "Milk"]}}),
    "wifi-then-note": ({"settings": {"wifi_on": True}, "notes": {"notes": ["Buy milk", "Wi-Fi is on"]}},
                       {"notes": {"notes": ["Buy milk", "Wi-Fi is on"]}}),
    "shopping-list-to-note": (
        {"shopping": {"items": ["Bread", "Apples", "Tea"]}, "notes": {"notes": ["Buy milk", "Bread, Apples, Tea"]}},
        {"shopping": {"items": ["Bread", "Apples", "Tea"]}, "notes": {"notes": ["Buy milk", "Bread, Tea, Apples"]}},
    ),
    "dark-theme-and-bluetooth-off": ({"settings": {"dark_theme_on": True, "bluetooth_on": False}},
                                     {"settings": {"dark_theme_on": True}}),
    "note-already-there": ({}, {"notes": {"notes": ["Buy milk", "Buy milk"]}}),
    "wifi-already-on": ({"settings": {"wifi_on": True}}, {"settings": {"wifi_on": True, "dark_theme_on": True}}),
    "bluetooth-already-on": ({}, {"settings": {"bluetooth_on": True, "wifi_on": True}}),
    "bread-already-bought": ({}, {"shopping": {"items": ["Bread"], "bought": []}}),  # ticked again: unticked
    "signed-out-note": ({"notes": {"notes": ["Buy milk", "Call Bob"], "signed_in": True}},
                        {"notes": {"notes": ["Buy milk", "Call Bob"]}}),  # still signed out
    "door-code-note": ({"notes": {"notes": ["Buy milk", "Office door: 4711"]}},
                       {"notes": {"notes": ["Buy milk", "Office door: 4712"]}}),
    "note-with-screenshot": ({"notes": {"notes": ["Buy milk", "Call Carol"]}, "files": {"result.jpg": "image"}},
                             {"notes": {"notes": ["Buy milk", "Call Carol"]}, "files": {"result.jpg": JPEG}}),
    "settings-screenshot": ({"files": {"wifi.jpg": "image"}},
                            {"files": {"wifi.jpg": "image"}, "settings": {"wifi_on": True}}),
    "notes-to-file": (
        {"notes": {"notes": ["Buy milk", "Call Alice", "Water the plants"]},
         "files": {"notes.txt": b"Buy milk\nCall Alice\nWater the plants\n"}},
        {"notes": {"notes": ["Buy milk", "Call Alice", "Water the plants"]},
         "files": {"notes.txt": b"Buy milk\nCall Alice\n", "other.txt": b"Water the plants"}},
    ),
    "nfc-on": ({"outcome": "blocked"}, {"outcome": "completed"}),
    "delete-note": ({"outcome": "blocked"}, {"outcome": "blocked", "notes": {"notes": []}}),
    "wifi-password": ({"outcome": "blocked"}, {"outcome": "blocked", "settings": {"wifi_on": True}}),
}  # fmt: skip


def _phone(adb_client: adbutils.AdbClient) -> U2Phone:
    return U2Phone(SERIAL, adb_client)


def _set(phone: U2Phone, task: SuiteTask, state: dict[str, Any]) -> None:
    """The phone as a run left it: the task's start with the state's changes (whole apps)."""
    start = task.start.demo or DemoFixture()
    end = start.model_copy(update={k: getattr(start, k).model_copy(update=v) for k, v in state.items()
                                   if k in DemoFixture.model_fields})  # fmt: skip
    assert phone.shell(DemoFixture.model_validate(end.model_dump()).restore_command(), 10).output == ""


def _files(storage: FsspecStorage, run_id: str, files: dict[str, Any]) -> None:
    for name, data in files.items():
        storage.write_bytes(f"agent/runs/{run_id}/files/{name}", _jpeg() if data == "image" else data)


def _verdict(task_id: str, state: dict[str, Any], adb_client: adbutils.AdbClient, storage: FsspecStorage) -> list[Any]:
    task = SUITE.resolved(SUITE.task(task_id))
    phone = _phone(adb_client)
    start = reset_phone(phone, task)
    _set(phone, task, state)
    run_id = f"run-{task_id}-{len(storage.list('agent'))}"
    _files(storage, run_id, state.get("files", {}))
    facts = RunFacts(outcome=state.get("outcome", "completed"), storage=storage, run_id=run_id, start=start)
    return apply_checks(task.checks, PhoneShell(phone), facts)


def test_every_shipped_task_has_a_right_state_and_a_near_miss_here() -> None:
    assert set(CASES) == {t.id for t in SUITE.tasks}


@pytest.mark.parametrize("task_id", sorted(CASES))
def test_a_tasks_checks_pass_on_the_right_state_and_fail_on_a_near_miss(
    task_id: str, demo_adb: Any, adb_client: adbutils.AdbClient, storage: FsspecStorage
) -> None:
    right, near = CASES[task_id]
    results = _verdict(task_id, right, adb_client, storage)
    assert all(r.passed for r in results), [r for r in results if not r.passed]
    missed = _verdict(task_id, near, adb_client, storage)
    assert not all(r.passed for r in missed), f"{task_id}: a near miss passed"
    assert all(r.found for r in missed if not r.passed)  # a failed check says what it found


def test_in_its_start_state_only_a_task_whose_goal_already_holds_passes(
    demo_adb: Any, adb_client: adbutils.AdbClient, storage: FsspecStorage
) -> None:
    passing = {t.id for t in SUITE.tasks if all(r.passed for r in _verdict(t.id, DONE, adb_client, storage))}
    already = {t.id for t in SUITE.tasks if "already-done" in t.tags}
    assert passing == already and 0 < len(already) * 5 <= len(SUITE.tasks)


def test_the_shipped_suite_grades_its_tasks_and_covers_every_kind() -> None:
    tags = [tag for task in SUITE.tasks for tag in task.tags]
    assert len(SUITE.tasks) >= 20
    for kind in ("single-app", "two-apps", "already-done", "takeover", "deliverable", "impossible"):
        assert tags.count(kind) >= 2, kind
    assert {"easy", "medium", "hard"} <= set(tags)
    for task in SUITE.tasks:
        if "impossible" in task.tags:  # a blocker report AND nothing changed
            assert {c.source for c in task.checks} == {"outcome", "unchanged"}


def test_a_ui_query_opens_its_app_first_and_reads_the_switch(
    demo_adb: Any, adb_client: adbutils.AdbClient, storage: FsspecStorage
) -> None:
    phone = _phone(adb_client)
    phone.shell("monkey -p com.example.notes 1", 10)  # the agent left the notes app in front
    results = _verdict("dark-theme-on", CASES["dark-theme-on"][0], adb_client, storage)
    assert [r.found for r in results] == ["on the screen"]
    assert "com.android.settings" in phone.shell("dumpsys rlauto-demo", 10).output.split('"foreground": "')[1][:30]


def test_a_start_state_the_phone_refuses_is_a_setup_error_and_the_phone_is_left_as_it_was(
    demo_adb: Any, adb_client: adbutils.AdbClient
) -> None:
    phone = _phone(adb_client)
    before = phone.shell("dumpsys rlauto-demo", 10).output
    assert phone.shell("cmd rlauto-demo restore not-base64!", 10).output.startswith("error: not a start state")
    assert phone.shell("cmd rlauto-demo restore eyJub3RlcyI6IDF9", 10).output.startswith("error:")  # {"notes": 1}
    assert phone.shell("dumpsys rlauto-demo", 10).output == before
    with DemoAdbServer([DemoPhone("bare-1")]) as bare:  # a phone without the demo apps
        other = U2Phone("bare-1", adbutils.AdbClient(host="127.0.0.1", port=bare.port))
        with pytest.raises(TaskSetupError, match="refused its start state: error: this phone has no demo apps"):
            reset_phone(other, SUITE.resolved(SUITE.task("wifi-on")))
