"""Recording and driving a phone through the real adbutils and uiautomator2 clients,
against the demo phone's ADB server (and its uiautomator2 agent behind the tcp: service)."""

from __future__ import annotations

import threading
import time

import adbutils
import pytest

from device_flows.demo import DemoAdbServer, DemoPhone
from device_flows.phone import U2Phone, open_device
from device_flows.recorder import record_trace
from rlauto_core.gesture import GestureError, Screen
from rlauto_core.steps import PhoneError, parse_steps, run_steps
from tests.device.conftest import SERIAL
from tests.fakes.getevent_writer import line_stroke, write_trace


def test_the_demo_server_speaks_the_host_protocol_to_adbutils(adb_client: adbutils.AdbClient) -> None:
    assert adb_client.server_version() == 41
    assert [d.serial for d in adb_client.device_list()] == [SERIAL]  # host:devices
    [info] = adb_client.list(extended=True)  # host:devices-l
    assert (info.serial, info.state, info.tags["model"]) == (SERIAL, "device", "Demo_Phone")
    with pytest.raises(adbutils.AdbError, match="device 'ghost' not found"):
        adb_client.device("ghost").shell("true")
    assert adb_client.device(SERIAL).shell("wm size") == "Physical size: 1080x2340"
    old = DemoAdbServer([DemoPhone("old-1")], version=40)  # host:transport:SERIAL path
    with old:
        client = adbutils.AdbClient(host="127.0.0.1", port=old.port)
        assert client.device("old-1").shell("wm size").startswith("Physical size")
        assert "host:transport:old-1" in old.commands


@pytest.mark.slow
def test_recording_wakes_picks_the_panel_and_streams_getevent(
    adb_client: adbutils.AdbClient, demo_device: DemoPhone
) -> None:
    trace = record_trace(adb_client.device(SERIAL), seconds=2.5)
    commands = demo_device.commands
    wake_at = commands.index("input keyevent 224")
    stream_at = commands.index("getevent -lt /dev/input/event2")
    assert wake_at < commands.index("getevent -lp") < stream_at  # woken before recording
    assert trace.protocol == "B" and trace.in_pixels
    assert len(trace.gestures) == 2
    flick, drag = trace.gestures
    assert flick.points[0][:2] == (100, 2000) and flick.points[-1][:2] == (100, 500)
    assert flick.duration_ms == pytest.approx(308, abs=2)
    assert drag.points[-1][:2] == (100, 1000)
    assert flick.screen == Screen(width=1080, height=2340)
    assert flick.device["serial"] == SERIAL and flick.device["name"] == "fts_ts"
    time.sleep(0.5)
    assert demo_device.streams_closed_by_client == 1  # the stream was closed, not left running


@pytest.mark.slow
def test_stop_request_ends_a_long_recording_promptly(adb_client: adbutils.AdbClient, demo_device: DemoPhone) -> None:
    demo_device.trace = write_trace([line_stroke((400, 8000), (400, 2000), 10.0, 0.2)] * 1, "B", device=None)
    demo_device.trace += write_trace([line_stroke((400, 8000), (400, 2000), 40.0, 0.2)], "B", device=None)
    stop = threading.Event()
    threading.Timer(1.5, stop.set).start()
    started = time.monotonic()
    trace = record_trace(adb_client.device(SERIAL), seconds=60, should_stop=stop.is_set)
    assert time.monotonic() - started < 5
    assert len(trace.gestures) == 1  # the flick 30 s later in the trace never came
    time.sleep(0.5)
    assert demo_device.streams_closed_by_client == 1


def test_nobody_touching_and_unknown_phones_are_clear_errors(
    adb_client: adbutils.AdbClient, demo_device: DemoPhone
) -> None:
    demo_device.trace = ""
    with pytest.raises(GestureError, match=r"no touch in 0\.[45]s"):
        record_trace(adb_client.device(SERIAL), seconds=0.5)
    with pytest.raises(PhoneError, match=r"device nope-9 is not connected \(connected: fake-1\)"):
        open_device("nope-9", adb_client)
    demo_device.caps = demo_device.caps.split("add device 4:")[0]  # no real panel left
    with pytest.raises(GestureError, match="no touchscreen among 3 devices"):
        record_trace(adb_client.device(SERIAL), seconds=0.5)


def test_steps_drive_the_real_uiautomator2_client(adb_client: adbutils.AdbClient, demo_device: DemoPhone) -> None:
    steps = parse_steps(
        [
            {"kind": "app_start", "package": "com.example.shop", "stop_first": True},
            {"kind": "click", "selector": {"text": "OK"}},
            {"kind": "click", "selector": {"xpath": "//*[@resource-id='com.example:id/ok']"}},
            {"kind": "input_text", "text": "苏州好吃的饭店"},
            {"kind": "gesture", "gesture": {"points": [[100, 900, 0], [120, 700, 100], [130, 400, 300]]}},
            {"kind": "assert_text", "selector": {"resourceId": "com.example:id/price"}, "expected": "¥ 99"},
            {"kind": "keep_screen", "on": True},
            {"kind": "screenshot", "label": "done"},
            {"kind": "long_click", "x": 10, "y": 20, "duration_s": 0.5},
            {"kind": "double_click", "selector": {"text": "OK"}},
            {"kind": "clear_text"},
            {"kind": "swipe", "direction": "left", "scale": 0.5},
            {"kind": "press_key", "key": "back"},
            {"kind": "wait_gone", "selector": {"text": "Loading"}, "timeout_s": 1},
            {"kind": "open_url", "url": "https://example.com/s?q=1&x=2"},
            {"kind": "shell", "command": "settings get global adb_enabled"},
            {"kind": "app_stop", "package": "com.example.shop"},
        ]
    )
    report = run_steps(U2Phone(SERIAL, adb_client), steps)
    assert report.ok, report.results
    methods = [m for m, _ in demo_device.rpc_calls]
    assert methods.count("swipePoints") == 1  # the gesture: one call, not one per point
    points, steps_per_segment = next(p for m, p in demo_device.rpc_calls if m == "swipePoints")
    assert points[:2] == [100, 900] and points[-2:] == [130, 400] and steps_per_segment == 4
    clicks = [p for m, p in demo_device.rpc_calls if m == "click"]
    assert clicks == [[200, 300], [200, 300], [10, 20, 500], [200, 300]]  # the last: double click's 2nd tap
    assert demo_device.typed == ["苏州好吃的饭店", ""]  # typed, then cleared
    assert demo_device.commands.index("input keyevent 224") < demo_device.commands.index(
        "am force-stop com.example.shop"
    )
    assert "svc power stayon true" in demo_device.commands
    assert report.screenshots["08-done"][:2] == b"\xff\xd8"
    assert [p for m, p in demo_device.rpc_calls if m == "swipe"] == [[810, 1170, 270, 1170, 60]]
    assert [p for m, p in demo_device.rpc_calls if m == "pressKey"] == [["back"]]
    assert "am start -a android.intent.action.VIEW -d 'https://example.com/s?q=1&x=2'" in demo_device.commands
    assert "settings get global adb_enabled" in demo_device.commands
