"""Device flows, deployed on work pool `phones` (the machine wired to the phones).

Each takes the phone's slot first: one device, one run at a time.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from uuid import UUID

from prefect import flow
from prefect.exceptions import NotPausedError
from prefect.flow_runs import pause_flow_run, resume_flow_run
from prefect.runtime import flow_run

from device_flows.artifacts import gestures_artifact, report_artifacts
from device_flows.phone import U2Phone, open_device
from device_flows.recorder import record_trace
from device_flows.slot import phone_slot
from rlauto_core.errors import RlautoError
from rlauto_core.gesture import Gesture, TouchTrace
from rlauto_core.steps import GestureStep, PhoneError, RunReport, parse_steps
from rlauto_core.steps import run_steps as run_on_phone


class StepsFailed(RlautoError):
    """A step-based task stopped at a failing step."""


def _record_until_resumed(serial: str, max_seconds: float) -> TouchTrace:
    """Record while the run sits Paused; Resume in the Prefect UI stops and keeps the gesture."""
    device = open_device(serial)
    run_id = flow_run.get_id()
    stop = threading.Event()
    outcome: dict[str, Any] = {}

    def record() -> None:
        try:
            outcome["trace"] = record_trace(device, max_seconds, stop.is_set)
        except Exception as exc:
            outcome["error"] = exc
        # Finished on its own (time up or failed): resume ourselves so the pause returns.
        while not stop.is_set() and run_id:
            try:
                resume_flow_run(UUID(str(run_id)))
                return
            except NotPausedError:
                time.sleep(0.2)

    recorder = threading.Thread(target=record, name=f"record-{serial}", daemon=True)
    recorder.start()
    pause_flow_run(timeout=int(max_seconds) + 120, poll_interval=1, key="stop-recording")
    stop.set()
    recorder.join(timeout=30)
    if recorder.is_alive():
        raise PhoneError(f"device {serial}: the getevent stream did not stop within 30 s")
    if "error" in outcome:
        raise outcome["error"]
    trace: TouchTrace = outcome["trace"]
    return trace


@flow(name="record-gesture")
def record_gesture(serial: str, seconds: float | None = 10.0, max_seconds: float = 600.0) -> list[dict[str, Any]]:
    """Record touches on the phone's real touchscreen: for `seconds`, or, with `seconds`
    empty, until the run is resumed from the Prefect UI (at most `max_seconds`)."""
    with phone_slot(serial):
        if seconds is not None:
            trace = record_trace(open_device(serial), seconds)
        else:
            trace = _record_until_resumed(serial, max_seconds)
    gestures_artifact(serial, trace.gestures)
    return [g.model_dump(mode="json") for g in trace.gestures]


@flow(name="replay-gesture")
def replay_gesture(serial: str, gesture: Gesture) -> dict[str, Any]:
    """Replay a recorded gesture as recorded, in ONE device call."""
    steps = parse_steps([GestureStep(kind="gesture", gesture=gesture)])
    with phone_slot(serial):
        report = run_on_phone(U2Phone(serial), steps)
    if not report.ok:
        raise StepsFailed(f"replay on {serial}: {report.results[0].message}")
    return report.replays[0].model_dump(mode="json")


def _summary(report: RunReport) -> str:
    failed = report.failed
    assert failed is not None
    return f"device {report.serial}: step {failed.index} ({failed.kind}) failed: {failed.message}"


@flow(name="run-steps")
def run_steps(serial: str, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """Validate the steps, then run them on the phone; a result per step, a screenshot
    artifact when one fails."""
    validated = parse_steps(steps, file="steps")
    with phone_slot(serial):
        report = run_on_phone(U2Phone(serial), validated)
    report_artifacts(report)
    if not report.ok:
        raise StepsFailed(_summary(report))
    return report.model_dump(mode="json")
