"""Runs validated steps on a `Phone`: a result per step, the gesture replays it made.

The first failing step that is not `optional` stops the task; the steps after it are
reported as skipped. A screenshot is taken when a step fails (if the phone can still
take one), so the person reading the result sees what the phone showed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from rlauto_core.gesture.model import Screen
from rlauto_core.gesture.timing import SwipeCall, swipe_call
from rlauto_core.steps import models as m
from rlauto_core.steps.phone import Element, Phone

StepStatus = Literal["ok", "failed", "skipped"]


class StepFailed(Exception):
    """A step's check did not hold (element missing, wrong text, bad exit code)."""


class StepResult(BaseModel):
    index: int = Field(description="1-based position in the task")
    kind: str
    name: str | None = None
    status: StepStatus
    optional: bool = False
    message: str = ""
    duration_ms: float = 0.0
    screenshot: str | None = Field(default=None, description="key in RunReport.screenshots")


class RunReport(BaseModel):
    serial: str
    results: list[StepResult]
    replays: list[SwipeCall] = Field(default_factory=list, description="one per gesture step run")
    screenshots: dict[str, bytes] = Field(default_factory=dict, exclude=True)

    @property
    def failed(self) -> StepResult | None:
        """The step that stopped the task (an optional step's failure does not)."""
        return next((r for r in self.results if r.status == "failed" and not r.optional), None)

    @property
    def ok(self) -> bool:
        return self.failed is None


def fit_to_screen(call: SwipeCall, recorded: Screen | None, actual: Screen) -> SwipeCall:
    """Scale a recorded path to a phone with another screen size (same aspect assumed)."""
    if recorded is None or (recorded.width, recorded.height) == (actual.width, actual.height):
        return call
    sx, sy = actual.width / recorded.width, actual.height / recorded.height
    points = [(round(x * sx), round(y * sy)) for x, y in call.points]
    return call.model_copy(update={"points": points})


class StepRunner:
    def __init__(self, phone: Phone, clock: Callable[[], float] = time.monotonic) -> None:
        self.phone = phone
        self.clock = clock
        self._screen: Screen | None = None
        self.report = RunReport(serial=phone.serial, results=[])

    def run(self, steps: Sequence[m.Step]) -> RunReport:
        self.phone.wake()
        stopped = False
        for index, step in enumerate(steps, start=1):
            if stopped:
                self.report.results.append(StepResult(index=index, kind=step.kind, name=step.name, status="skipped"))
                continue
            started = self.clock()
            result = StepResult(index=index, kind=step.kind, name=step.name, status="ok", optional=step.optional)
            try:
                result.message = self._do(index, step) or ""
            except Exception as exc:  # any device or check failure becomes this step's result
                result.status = "failed"
                result.message = _one_line(exc)
                result.screenshot = self._capture(f"{index:02d}-failed")
                stopped = not step.optional
            result.duration_ms = round((self.clock() - started) * 1000, 1)
            self.report.results.append(result)
        return self.report

    @property
    def screen(self) -> Screen:
        if self._screen is None:
            self._screen = self.phone.screen()
        return self._screen

    def _capture(self, label: str) -> str | None:
        try:
            self.report.screenshots[label] = self.phone.screenshot()
        except Exception:
            return None  # the phone may be gone; the step's own error says why
        return label

    def _point(self, x: float, y: float) -> tuple[int, int]:
        # Below 1 means a fraction of the screen (uiautomator2's convention).
        px = x * self.screen.width if x < 1 else x
        py = y * self.screen.height if y < 1 else y
        return round(px), round(py)

    def _find(self, selector: m.Selector, timeout_s: float) -> Element:
        element = self.phone.find(selector, timeout_s)
        if element is None:
            raise StepFailed(f"no element with {selector.describe()} after {timeout_s:g}s")
        return element

    def _target(self, step: m._Target) -> tuple[int, int]:
        if step.selector is not None:
            return self._find(step.selector, step.timeout_s).center
        assert step.x is not None and step.y is not None
        return self._point(step.x, step.y)

    def _swipe_ends(self, direction: str, scale: float) -> tuple[tuple[int, int], tuple[int, int]]:
        w, h = self.screen.width, self.screen.height
        cx, cy = w // 2, h // 2
        dx = round(w * scale / 2) if direction in ("left", "right") else 0
        dy = round(h * scale / 2) if direction in ("up", "down") else 0
        sign = -1 if direction in ("up", "left") else 1  # the way the finger travels
        return (cx - sign * dx, cy - sign * dy), (cx + sign * dx, cy + sign * dy)

    def _do(self, index: int, step: m.Step) -> str | None:
        phone = self.phone
        if isinstance(step, m.AppStart):
            phone.app_start(step.package, step.activity, step.stop_first)
        elif isinstance(step, m.AppStop):
            phone.app_stop(step.package)
        elif isinstance(step, m.Click):
            phone.click(*self._find(step.selector, step.timeout_s).center)
        elif isinstance(step, m.ClickXY):
            phone.click(*self._point(step.x, step.y))
        elif isinstance(step, m.LongClick):
            phone.long_click(*self._target(step), step.duration_s)
        elif isinstance(step, m.DoubleClick):
            phone.double_click(*self._target(step))
        elif isinstance(step, m.InputText | m.ClearText):
            if step.selector is not None:
                phone.click(*self._find(step.selector, step.timeout_s).center)
            if isinstance(step, m.ClearText) or step.clear:
                phone.clear_text()
            if isinstance(step, m.InputText):
                phone.input_text(step.text)
        elif isinstance(step, m.Swipe):
            phone.swipe(*self._swipe_ends(step.direction, step.scale), step.duration_s)
        elif isinstance(step, m.GestureStep):
            call = fit_to_screen(swipe_call(step.gesture), step.gesture.screen, self.screen)
            phone.swipe_points(call.points, call.interval_s)
            self.report.replays.append(call)
            return f"{len(call.points)} points, {call.duration_ms} ms in one call"
        elif isinstance(step, m.PressKey):
            phone.press_key(step.key)
        elif isinstance(step, m.Wait):
            phone.sleep(step.seconds)
        elif isinstance(step, m.WaitElement | m.AssertExists):
            self._find(step.selector, step.timeout_s)
        elif isinstance(step, m.WaitGone):
            if not phone.wait_gone(step.selector, step.timeout_s):
                raise StepFailed(f"element with {step.selector.describe()} still there after {step.timeout_s:g}s")
        elif isinstance(step, m.AssertText):
            return _check_text(step, self._find(step.selector, step.timeout_s).text)
        elif isinstance(step, m.Screenshot):
            label = f"{index:02d}-{step.label}"
            self.report.screenshots[label] = phone.screenshot()
            return label
        elif isinstance(step, m.ScrollTo):
            return self._scroll_to(step)
        elif isinstance(step, m.Shell):
            outcome = phone.shell(step.command, step.timeout_s)
            tail = outcome.output.strip()[-300:]
            if step.expect_exit_code is not None and outcome.exit_code != step.expect_exit_code:
                raise StepFailed(f"exit code {outcome.exit_code} (expected {step.expect_exit_code}): {tail}")
            return tail
        elif isinstance(step, m.KeepScreen):
            phone.keep_screen(step.on)
        elif isinstance(step, m.OpenUrl):
            phone.open_url(step.url)
        return None

    def _scroll_to(self, step: m.ScrollTo) -> str:
        start, end = self._swipe_ends(step.direction, 0.5)
        for swipes in range(step.max_swipes + 1):
            if self.phone.find(step.selector, 1.0) is not None:
                return f"found after {swipes} swipes"
            if swipes < step.max_swipes:
                self.phone.swipe(start, end, 0.3)
        raise StepFailed(f"no element with {step.selector.describe()} after {step.max_swipes} swipes")


def _check_text(step: m.AssertText, actual: str) -> str:
    if step.match == "equals":
        ok = actual == step.expected
    elif step.match == "contains":
        ok = step.expected in actual
    else:
        ok = re.search(step.expected, actual) is not None
    if not ok:
        raise StepFailed(f"text {actual[:200]!r} does not {step.match} {step.expected[:200]!r}")
    return f"text {actual[:200]!r}"


def _one_line(exc: BaseException) -> str:
    text = str(exc).replace("\n", " ").strip() or type(exc).__name__
    return text[:500]


def run_steps(phone: Phone, steps: Sequence[m.Step]) -> RunReport:
    """Wake the phone, run the steps in order, return a result per step."""
    return StepRunner(phone).run(steps)
