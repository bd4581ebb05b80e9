"""The device flows against the session Prefect server and the demo phone: one job per
phone, recording until resumed from the UI, step results with a failure screenshot."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey, FlowFilter, FlowFilterName
from prefect.client.schemas.sorting import ArtifactSort, FlowRunSort
from prefect.flow_runs import resume_flow_run

from device_flows.demo import DemoAdbServer, DemoPhone
from device_flows.flows import StepsFailed, record_gesture, replay_gesture, run_steps
from device_flows.slot import DeviceBusy
from rlauto_core.gesture import Gesture
from rlauto_core.steps import StepError
from tests.device.conftest import SERIAL

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
GESTURE = Gesture(points=[(100, 900, 0), (110, 800, 60), (130, 400, 240)])


def _wait_for(condition: Callable[[], bool], timeout: float = 90, out: dict[str, Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if out and "error" in out:
            raise out["error"]
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.1)


def _in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = target()
        except BaseException as exc:
            out["error"] = exc

    # Prefect's settings (the session server's URL) live in a context variable: carry it over.
    thread = threading.Thread(target=contextvars.copy_context().run, args=(run,), daemon=True)
    thread.start()
    return thread, out


def _latest_runs(flow_name: str) -> list[Any]:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=[flow_name])), sort=FlowRunSort.START_TIME_DESC, limit=5
        )


def _paused_run() -> Any:
    runs = [r for r in _latest_runs("record-gesture") if r.state is not None and r.state.is_paused()]
    return runs[0] if runs else None


def test_a_busy_phone_refuses_a_second_run_at_once_and_recording_stops_on_resume(
    prefect_api_url: str, demo_adb: DemoAdbServer, demo_device: DemoPhone
) -> None:
    # The holder records until it is resumed, as from the UI: it keeps the phone meanwhile.
    recording, out = _in_thread(lambda: record_gesture(SERIAL, seconds=None, max_seconds=120))
    _wait_for(lambda: _paused_run() is not None and "getevent -lt /dev/input/event2" in demo_device.commands, out=out)
    holder = _paused_run()
    started = time.monotonic()
    with pytest.raises(DeviceBusy, match=rf"^device {SERIAL} is busy with run \S+ \([0-9a-f-]{{36}}\)$") as info:
        replay_gesture(SERIAL, GESTURE)
    # refused, not queued: waiting would block until the holder is resumed, i.e. forever here
    assert time.monotonic() - started < 60
    assert str(holder.id) in str(info.value) and holder.name in str(info.value)
    assert [m for m, _ in demo_device.rpc_calls if m == "swipePoints"] == []  # never touched the phone
    refused = _latest_runs("replay-gesture")[0]
    assert refused.state is not None and refused.state.is_failed()

    time.sleep(2.0)  # the fake finger finishes both gestures (0.3 s and 1.1 s into the trace)
    resume_flow_run(holder.id)  # what the UI's Resume button does
    recording.join(60)
    assert not recording.is_alive() and "error" not in out, out.get("error")
    gestures = [Gesture.model_validate(g) for g in out["value"]]
    assert len(gestures) == 2 and gestures[0].device["serial"] == SERIAL
    _wait_for(lambda: demo_device.streams_closed_by_client == 1, timeout=5)
    with get_client(sync_client=True) as client:
        keys = {
            a.key for a in client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(like_="gesture")))
        }
    assert {"gestures-fake-1", "gesture-json-fake-1"} <= keys

    # the phone is free again: the same replay now runs, in one device call
    call = replay_gesture(SERIAL, GESTURE)
    assert [m for m, _ in demo_device.rpc_calls].count("swipePoints") == 1
    assert call["points"][0] == [100, 900] and call["points"][-1] == [130, 400]


def test_record_for_fixed_seconds(prefect_api_url: str, demo_adb: DemoAdbServer, demo_device: DemoPhone) -> None:
    gestures = record_gesture(SERIAL, seconds=2.5)
    assert [len(g["points"]) > 2 for g in gestures] == [True, True]
    assert demo_device.commands.index("input keyevent 224") < demo_device.commands.index(
        "getevent -lt /dev/input/event2"
    )


def test_run_steps_reports_each_step_and_leaves_a_screenshot_when_one_fails(
    prefect_api_url: str, demo_adb: DemoAdbServer, demo_device: DemoPhone
) -> None:
    with pytest.raises(StepError, match=r"step 2 \(click\): selector: missing required parameter"):
        run_steps(SERIAL, [{"kind": "wait", "seconds": 0}, {"kind": "click"}])
    assert demo_device.commands == []  # refused before touching the phone

    with pytest.raises(StepsFailed, match=r"device fake-1: step 2 \(click\) failed: no element with text='Buy'"):
        run_steps(
            SERIAL,
            [
                {"kind": "click", "selector": {"text": "OK"}},
                {"kind": "click", "selector": {"text": "Buy"}, "timeout_s": 1},
                {"kind": "press_key", "key": "home"},
            ],
        )
    with get_client(sync_client=True) as client:
        shots = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["failure-screenshot-fake-1"])),
            sort=ArtifactSort.CREATED_DESC,
        )
        tables = client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["steps-fake-1"])), sort=ArtifactSort.CREATED_DESC
        )
    assert shots and "data:image/jpeg;base64,/9j/" in str(shots[0].data)
    assert "Step 2 (click) failed" in str(shots[0].data)
    assert tables and '"status": "skipped"' in str(tables[0].data) and "text='Buy'" in str(tables[0].data)
