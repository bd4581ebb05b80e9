"""The `Phone` the step runner drives: the device verbs, nothing about how they are done.

`device_flows.phone.U2Phone` implements it with uiautomator2 + adbutils; tests use a
recording double. Coordinates are screen pixels in the current rotation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic import BaseModel

from rlauto_core.errors import RlautoError
from rlauto_core.gesture.model import Screen
from rlauto_core.steps.models import Selector


class PhoneError(RlautoError):
    """The phone could not do what a step asked (not found, app missing, device gone)."""


class Element(BaseModel):
    """A UI element as found on screen: its bounds (left, top, right, bottom) and text."""

    bounds: tuple[int, int, int, int]
    text: str = ""

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.bounds
        return (left + right) // 2, (top + bottom) // 2


class ShellResult(BaseModel):
    exit_code: int
    output: str


class Phone(Protocol):
    @property
    def serial(self) -> str: ...

    def wake(self) -> None:
        """Screen on and unlocked-to-swipe: a dark screen makes UI dumps ~20x slower."""

    def screen(self) -> Screen: ...

    def app_start(self, package: str, activity: str | None, stop_first: bool) -> None: ...

    def app_stop(self, package: str) -> None: ...

    def find(self, selector: Selector, timeout_s: float) -> Element | None:
        """The first element matching `selector` within `timeout_s`, or None."""

    def wait_gone(self, selector: Selector, timeout_s: float) -> bool: ...

    def click(self, x: int, y: int) -> None: ...

    def long_click(self, x: int, y: int, duration_s: float) -> None: ...

    def double_click(self, x: int, y: int) -> None: ...

    def swipe(self, start: tuple[int, int], end: tuple[int, int], duration_s: float) -> None: ...

    def swipe_points(self, points: Sequence[tuple[int, int]], interval_s: float) -> None:
        """ONE device call: the device walks the points, `interval_s` per segment."""

    def input_text(self, text: str) -> None: ...

    def clear_text(self) -> None: ...

    def press_key(self, key: str | int) -> None: ...

    def screenshot(self) -> bytes:
        """JPEG or PNG bytes of the current screen."""

    def dump_hierarchy(self) -> str:
        """The UI hierarchy as uiautomator's XML dump (the agent's `ui_tree` compresses it)."""

    def shell(self, command: str, timeout_s: float) -> ShellResult: ...

    def keep_screen(self, on: bool) -> None: ...

    def open_url(self, url: str) -> None: ...

    def sleep(self, seconds: float) -> None: ...
