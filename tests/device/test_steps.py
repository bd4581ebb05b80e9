"""Step validation (before anything runs) and the pure runner against a recording phone."""

from __future__ import annotations

from typing import Any

import pytest

from rlauto_core.steps import STEP_KINDS, Element, ShellResult, StepError, parse_steps, run_steps
from tests.fakes.phone import RecordingPhone

OK = {"text": "OK"}
ALL_KINDS: list[dict[str, Any]] = [
    {"kind": "app_start", "package": "com.example.shop", "stop_first": True},
    {"kind": "app_stop", "package": "com.example.shop"},
    {"kind": "click", "selector": OK},
    {"kind": "click_xy", "x": 0.5, "y": 0.25},
    {"kind": "long_click", "x": 100, "y": 200, "duration_s": 1.5},
    {"kind": "double_click", "selector": {"resourceId": "com.example:id/like"}},
    {"kind": "input_text", "text": "苏州好吃的饭店", "selector": {"description": "Search"}, "clear": True},
    {"kind": "clear_text"},
    {"kind": "swipe", "direction": "up", "scale": 0.5},
    {"kind": "gesture", "gesture": {"points": [[100, 900, 0], [100, 500, 200]]}},
    {"kind": "press_key", "key": "back"},
    {"kind": "wait", "seconds": 0.5},
    {"kind": "wait_element", "selector": OK},
    {"kind": "wait_gone", "selector": {"text": "Loading"}},
    {"kind": "assert_exists", "selector": {"xpath": "//*[@text='OK']"}},
    {"kind": "assert_text", "selector": OK, "expected": "O", "match": "contains"},
    {"kind": "screenshot", "label": "after-search"},
    {"kind": "scroll_to", "selector": OK, "max_swipes": 3},
    {"kind": "shell", "command": "settings get system screen_brightness"},
    {"kind": "keep_screen", "on": True},
    {"kind": "open_url", "url": "https://example.com/item/1"},
]


def test_every_one_of_the_21_kinds_validates() -> None:
    steps = parse_steps(ALL_KINDS)
    assert [s.kind for s in steps] == list(STEP_KINDS) and len(STEP_KINDS) == 21


@pytest.mark.parametrize(
    ("step", "problem"),
    [
        ({"kind": "click"}, r"step 1 \(click\): selector: missing required parameter"),
        ({"kind": "click", "selector": OK, "timout_s": 3}, r"timout_s: unknown key"),
        ({"kind": "click", "selector": {}}, r"give at least one of text, resourceId"),
        ({"kind": "click", "selector": {"xpath": "//a", "text": "a"}}, r"xpath cannot be combined"),
        ({"kind": "click", "selector": OK, "timeout_s": 0}, r"timeout_s: Input should be greater than 0"),
        ({"kind": "click", "selector": OK, "timeout_s": 9999}, r"timeout_s: Input should be less than"),
        ({"kind": "swipe", "direction": "sideways"}, r"direction: Input should be 'up', 'down'"),
        ({"kind": "swipe", "direction": "up", "scale": 1.5}, r"scale: Input should be less than or equal to 1"),
        ({"kind": "long_click", "x": 10}, r"give both x and y"),
        ({"kind": "long_click", "x": 10, "y": 10, "selector": OK}, r"either a selector or x and y"),
        ({"kind": "app_start", "package": "not a package"}, r"package: String should match pattern"),
        ({"kind": "press_key", "key": "hyperspace"}, r"unknown key 'hyperspace'"),
        ({"kind": "assert_text", "selector": OK, "expected": "(", "match": "regex"}, r"not a valid regex"),
        ({"kind": "shell", "command": "ls\nreboot"}, r"command must be one line"),
        ({"kind": "open_url", "url": "javascript alert"}, r"url: String should match pattern"),
        ({"kind": "gesture", "gesture": {"points": []}}, r"gesture.points: List should have at least 1"),
        ({"kind": "gesture", "gesture": {"points": [[0, 0, 10], [1, 1, 5]]}}, r"goes back in time"),
        ({"kind": "teleport"}, r"step 1: unknown kind 'teleport' \(known: app_start"),
        ("click", r"step 1: expected an object, got str"),
    ],
)
def test_invalid_steps_are_refused_with_the_step_and_the_problem(step: Any, problem: str) -> None:
    with pytest.raises(StepError, match=problem) as info:
        parse_steps([step], file="task.json")
    assert str(info.value).startswith("task.json: ")
    assert "\n" not in str(info.value)


def test_the_task_shape_itself_is_checked() -> None:
    with pytest.raises(StepError, match="expected a list of steps, got int"):
        parse_steps(3)
    with pytest.raises(StepError, match="no steps"):
        parse_steps([])
    with pytest.raises(StepError, match="not JSON"):
        parse_steps("[{")
    with pytest.raises(StepError, match="at most 500"):
        parse_steps([{"kind": "wait", "seconds": 0}] * 501)
    assert len(parse_steps('{"steps": [{"kind": "wait", "seconds": 1}]}')) == 1
    second_bad = [{"kind": "wait", "seconds": 1}, {"kind": "wait", "seconds": -1}]
    with pytest.raises(StepError, match=r"step 2 \(wait\): seconds"):
        parse_steps(second_bad)


def test_runner_wakes_first_and_does_each_step_with_the_right_device_call() -> None:
    ok = Element(bounds=(100, 200, 300, 400), text="OK")
    phone = RecordingPhone(
        elements={
            "text='OK'": ok,
            "resourceId='com.example:id/like'": Element(bounds=(0, 0, 10, 10)),
            "description='Search'": Element(bounds=(0, 100, 1080, 200)),
            "xpath=\"//*[@text='OK']\"": ok,
        }
    )
    report = run_steps(phone, parse_steps(ALL_KINDS))
    assert report.ok, report.results
    assert phone.calls[0] == ("wake", ())
    calls = dict(phone.calls[::-1])  # first call of each name
    assert ("click", (540, 585)) in phone.calls  # click_xy 0.5, 0.25 of 1080x2340
    assert ("click", (200, 300)) in phone.calls  # click on the OK element's center
    assert calls["long_click"] == (100, 200, 1.5)
    assert calls["double_click"] == (5, 5)
    assert calls["swipe"] == ((540, 1755), (540, 585), 0.3)  # up: the finger travels upward
    assert calls["swipe_points"][0][0] == (100, 900) and calls["swipe_points"][0][-1] == (100, 500)
    assert phone.names().count("swipe_points") == 1
    assert calls["input_text"] == ("苏州好吃的饭店",)
    assert report.screenshots.keys() == {"17-after-search"}
    assert [r.status for r in report.results] == ["ok"] * 21


def test_a_failing_step_stops_the_task_with_a_screenshot_and_optional_ones_do_not() -> None:
    phone = RecordingPhone(elements={})
    steps = parse_steps(
        [
            {"kind": "assert_exists", "selector": {"text": "Banner"}, "optional": True},
            {"kind": "click", "selector": {"text": "Buy"}, "timeout_s": 2},
            {"kind": "press_key", "key": "home"},
        ]
    )
    report = run_steps(phone, steps)
    assert not report.ok
    assert [r.status for r in report.results] == ["failed", "failed", "skipped"]
    assert report.results[0].optional and report.results[0].message.startswith("no element with text='Banner'")
    assert report.failed is not None and report.failed.index == 2
    assert report.failed.message == "no element with text='Buy' after 2s"
    assert report.failed.screenshot == "02-failed" and report.screenshots["02-failed"].startswith(b"\xff\xd8")
    assert "press_key" not in phone.names()


def test_shell_exit_code_assert_text_and_scroll_to_are_checked() -> None:
    phone = RecordingPhone(elements={"text='Price'": Element(bounds=(0, 0, 2, 2), text="¥ 99")})
    phone.shell_result = ShellResult(exit_code=1, output="Error: no such setting\n")
    report = run_steps(phone, parse_steps([{"kind": "shell", "command": "false"}]))
    assert report.failed is not None and report.failed.message.startswith("exit code 1 (expected 0): Error")
    report = run_steps(
        phone,
        parse_steps([{"kind": "assert_text", "selector": {"text": "Price"}, "expected": r"¥ \d+$", "match": "regex"}]),
    )
    assert report.ok
    report = run_steps(
        phone, parse_steps([{"kind": "assert_text", "selector": {"text": "Price"}, "expected": "¥ 100"}])
    )
    assert report.failed is not None and "does not equals" in report.failed.message
    report = run_steps(phone, parse_steps([{"kind": "scroll_to", "selector": {"text": "Nope"}, "max_swipes": 3}]))
    assert report.failed is not None and phone.names().count("swipe") == 3


def test_a_phone_that_goes_offline_fails_the_step_without_crashing_the_runner() -> None:
    phone = RecordingPhone()
    phone.offline_on = {"press_key", "screenshot"}
    steps = parse_steps(
        [{"kind": "wait", "seconds": 0}, {"kind": "press_key", "key": 4}, {"kind": "wait", "seconds": 0}]
    )
    report = run_steps(phone, steps)
    assert [r.status for r in report.results] == ["ok", "failed", "skipped"]
    assert report.failed is not None and report.failed.message == "device double-1 is offline"
    assert report.failed.screenshot is None  # could not take one: the step's error says why
    phone.offline_on = {"wake"}
    with pytest.raises(Exception, match="offline"):
        run_steps(phone, steps)  # nothing can run on a phone that cannot even wake
