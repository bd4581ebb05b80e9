"""Each tool through the real uiautomator2/adbutils clients against the demo phone's notes app;
the UI tree compression and the screenshot scaling on hostile and huge input."""

from __future__ import annotations

import io
import json
from typing import Any

import adbutils
import pytest
from PIL import Image

from device_flows.demo import LAUNCHER, DemoAdbServer, DemoPhone, Home, NotesApp
from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.tools import (
    ImageError,
    ScreenStore,
    Toolbox,
    ToolOutcome,
    UiTreeError,
    compress_hierarchy,
    scale_screenshot,
    tool_specs,
)
from rlauto_core.llm import ToolCall
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL

PKG = "com.example.notes"


@pytest.fixture
def toolbox(adb_client: adbutils.AdbClient, storage: FsspecStorage) -> Toolbox:
    screens = ScreenStore(storage, "run-tools", max_bytes=200_000)
    return Toolbox(U2Phone(SERIAL, adb_client), AdbDirectory(adb_client), storage, "run-tools", screens, wait_cap_s=0.2)


def run(toolbox: Toolbox, tool: str, **args: Any) -> ToolOutcome:
    return toolbox.run(ToolCall(id="c1", name=tool, arguments=json.dumps(args)))


def test_the_tools_write_a_note_on_the_phone(
    toolbox: Toolbox, notes_app: NotesApp, home: Home, demo_adb: DemoAdbServer
) -> None:
    assert run(toolbox, "app_start", package=PKG).ok and notes_app.screen == "list"
    tapped = run(toolbox, "tap", description="Write a new note")
    assert tapped.ok and not tapped.coordinates and notes_app.screen == "editor"
    assert run(toolbox, "tap", resource_id=f"{PKG}:id/body").ok and notes_app.focused
    assert run(toolbox, "type_text", text="苏州好吃的饭店").ok and notes_app.draft == "苏州好吃的饭店"
    assert run(toolbox, "type_text", text="Call Alice", clear=True).ok and notes_app.draft == "Call Alice"
    saved = run(toolbox, "tap", text="Save")
    assert saved.ok and "tapped 'Save'" in saved.text and notes_app.notes[-1] == "Call Alice"
    assert run(toolbox, "tap", text="Call Alice", index=0).ok
    swiped = run(toolbox, "swipe", direction="up", distance=0.5)
    assert swiped.ok and home.swipes == 1 and "(540, 1755) to (540, 585)" in swiped.text
    assert run(toolbox, "press_key", key="BACK").ok and home.package == LAUNCHER
    assert run(toolbox, "app_start", package=PKG, stop_first=True).ok
    assert run(toolbox, "app_stop", package=PKG).ok and home.package == LAUNCHER
    commands = demo_adb.phones[SERIAL].commands
    assert f"am force-stop {PKG}" in commands and any(c.startswith(f"monkey -p {PKG}") for c in commands)
    assert all(o.state_changing for o in (tapped, saved, swiped))


def test_a_tap_by_coordinates_works_and_is_marked_as_the_last_resort(toolbox: Toolbox, notes_app: NotesApp) -> None:
    run(toolbox, "app_start", package=PKG)
    outcome = run(toolbox, "tap", x=870, y=2170)
    assert outcome.ok and outcome.coordinates and "last resort" in outcome.text
    assert notes_app.screen == "editor"
    assert run(toolbox, "tap", text="New note").coordinates is False


def test_observation_tools(toolbox: Toolbox, home: Home, storage: FsspecStorage) -> None:
    devices = run(toolbox, "list_devices")
    assert devices.ok and devices.text == f"- {SERIAL} device Demo_Phone (the target: you operate this one)"
    run(toolbox, "app_start", package=PKG)
    tree = run(toolbox, "ui_tree")
    assert tree.ok and not tree.state_changing
    assert tree.text.splitlines()[0] == f"UI tree of {PKG} (4 elements; tap by text, resource_id or description):"
    assert (
        f'- Button text="New note" id={PKG}:id/new desc="Write a new note" clickable [700,2100][1040,2240]' in tree.text
    )
    raw = home.render()
    assert len(raw) > 200_000  # the phone's own screenshot is too big to send
    shot = run(toolbox, "screenshot")
    assert shot.ok and shot.screen is not None and shot.screen.bytes <= 200_000
    stored = storage.read_bytes(shot.screen.path)
    assert len(stored) == shot.screen.bytes and Image.open(io.BytesIO(stored)).size == (591, 1280)
    assert Image.open(io.BytesIO(storage.read_bytes(shot.screen.thumbnail))).size[0] == 240
    waited = run(toolbox, "wait", seconds=5)
    assert waited.ok and waited.text == "waited 0.2 s (cut to the 0.2 s cap; wait again if needed)"


def test_a_smaller_screenshot_cap_is_obeyed(adb_client: adbutils.AdbClient, storage: FsspecStorage) -> None:
    screens = ScreenStore(storage, "run-small", max_bytes=30_000)
    small = Toolbox(U2Phone(SERIAL, adb_client), AdbDirectory(adb_client), storage, "run-small", screens)
    shot = run(small, "screenshot")
    assert shot.screen is not None and shot.screen.bytes <= 30_000


def test_deliverable_files(toolbox: Toolbox, storage: FsspecStorage) -> None:
    saved = run(toolbox, "save_screenshot", name="home screen")
    assert saved.ok and saved.text.startswith("saved the screen as files/home screen.jpg")
    assert storage.read_bytes("agent/runs/run-tools/files/home screen.jpg")[:2] == b"\xff\xd8"
    assert run(toolbox, "write_file", name="list.md", content="- a\n").ok
    assert storage.read_bytes("agent/runs/run-tools/files/list.md") == b"- a\n"
    for name, problem in [
        ("../escape.md", "no folders"),
        ("sub/x.md", "no folders"),
        ("run.exe", "must end with one of .txt, .md, .json, .csv"),
    ]:
        outcome = run(toolbox, "write_file", name=name, content="x")
        assert not outcome.ok and problem in (outcome.error or ""), outcome.error
    bad_json = run(toolbox, "write_file", name="data.json", content="{nope")
    assert not bad_json.ok and "content is not JSON" in (bad_json.error or "")
    assert storage.list("agent/runs/run-tools/files") == [
        "agent/runs/run-tools/files/home screen.jpg",
        "agent/runs/run-tools/files/list.md",
    ]


def test_failures_are_tool_errors_never_exceptions(toolbox: Toolbox, demo_adb: DemoAdbServer) -> None:
    missing = run(toolbox, "tap", text="Nope")
    assert (
        not missing.ok and missing.error == "no element with text='Nope' on the screen (read ui_tree for what is there)"
    )
    assert not run(toolbox, "app_start", package="not a package").ok
    demo_adb.phones.pop(SERIAL)
    for tool, args in [("screenshot", {}), ("ui_tree", {}), ("tap", {"x": 1, "y": 1}), ("press_key", {"key": "home"})]:
        outcome = run(toolbox, tool, **args)
        assert (
            not outcome.ok
            and outcome.error == "AdbError: device 'fake-1' not found"
            and outcome.text.startswith("ERROR:")
        )


def test_every_tool_spec_is_an_object_schema_without_titles() -> None:
    specs = {s.name: s for s in tool_specs()}
    assert list(specs) == [
        "list_devices", "screenshot", "ui_tree", "tap", "type_text", "swipe", "press_key", "app_start",
        "app_stop", "wait", "save_screenshot", "write_file", "report_task", "request_takeover",
    ]  # fmt: skip
    assert all(s.parameters["type"] == "object" and "title" not in json.dumps(s.parameters) for s in specs.values())
    assert "back" in specs["press_key"].parameters["properties"]["key"]["enum"]
    assert specs["request_takeover"].parameters["properties"]["reason"]["enum"] == [
        "login", "2fa", "captcha", "missing_information", "authorisation",
    ]  # fmt: skip


def test_the_ui_tree_is_capped_and_hostile_dumps_are_clear_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    many = "".join(
        f'<node text="item {i} {"x" * 300}" resource-id="a:id/row" clickable="true" bounds="[0,{i}][10,{i + 1}]"/>'
        for i in range(3000)
    )
    tree = compress_hierarchy(f'<hierarchy><node class="a.b.FrameLayout" bounds="[0,0][1,1]">{many}</node></hierarchy>')
    assert len(tree.text) <= 8000 and tree.elements == 3000 and 0 < tree.shown < 3000
    assert tree.text.endswith(f"… {3000 - tree.shown} more elements not shown (the tree is capped at 8000 characters)")
    assert "…" in tree.text.splitlines()[1]  # long texts are cut too
    hidden = compress_hierarchy(
        '<hierarchy><node text="ghost" bounds="[5,5][5,9]"/><node text="seen" bounds="[0,0][9,9]"/></hierarchy>'
    )
    assert "ghost" not in hidden.text and "seen" in hidden.text
    deep = "<node text='d' bounds='[0,0][1,1]'>" * 200 + "</node>" * 200
    assert compress_hierarchy(f"<hierarchy>{deep}</hierarchy>").elements == 200
    for bad in (
        "",
        "<hierarchy><node",
        "not xml at all",
        "<!DOCTYPE x [<!ENTITY a 'b'>]><hierarchy>&a;&undefined;</hierarchy>",
    ):
        with pytest.raises(UiTreeError, match="the UI hierarchy is not XML"):
            compress_hierarchy(bad)


def test_screenshots_scale_from_png_and_refuse_what_is_not_an_image() -> None:
    buffer = io.BytesIO()
    Image.effect_noise((1440, 3120), 100).convert("RGB").save(buffer, "PNG")
    scaled = scale_screenshot(buffer.getvalue(), max_bytes=100_000)
    assert len(scaled.data) <= 100_000 and max(scaled.width, scaled.height) <= 1280
    assert (scaled.source_width, scaled.source_height) == (1440, 3120)
    tiny = scale_screenshot(buffer.getvalue(), max_bytes=20_000)
    assert len(tiny.data) <= 20_000 and tiny.width < scaled.width
    big = io.BytesIO()
    Image.new("RGB", (2160, 4680), (200, 30, 30)).save(big, "JPEG")  # decoded at a reduced scale
    from_big = scale_screenshot(big.getvalue(), max_bytes=200_000)
    assert (from_big.width, from_big.height, from_big.source_width) == (591, 1280, 2160)
    assert Image.open(io.BytesIO(from_big.data)).getpixel((10, 10)) == pytest.approx((200, 30, 30), abs=4)
    for bad in (b"", b"\xff\xd8 not really", b"GIF89a" + b"\x00" * 10):
        with pytest.raises(ImageError):
            scale_screenshot(bad, 200_000)


def test_a_second_phone_is_listed_but_not_the_target(home: Home, monkeypatch: pytest.MonkeyPatch) -> None:
    with DemoAdbServer([DemoPhone(SERIAL, home=home), DemoPhone("other-2")]) as adb:
        client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
        devices = AdbDirectory(client).list_devices()
    assert [(d.serial, d.state) for d in devices] == [(SERIAL, "device"), ("other-2", "device")]
