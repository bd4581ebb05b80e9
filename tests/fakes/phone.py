"""A Phone that records every call, for the pure runner tests (the real one is U2Phone)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rlauto_core.gesture import Screen
from rlauto_core.steps import Element, PhoneError, Selector, ShellResult


class RecordingPhone:
    serial = "double-1"

    def __init__(self, screen: Screen | None = None, elements: dict[str, Element] | None = None) -> None:
        self._screen = screen or Screen(width=1080, height=2340)
        self.elements = elements or {}  # selector.describe() -> element
        self.calls: list[tuple[str, Any]] = []
        self.shell_result = ShellResult(exit_code=0, output="ok\n")
        self.offline_on: set[str] = set()  # call names that find the device gone

    def _log(self, name: str, *args: Any) -> None:
        if name in self.offline_on:
            raise PhoneError(f"device {self.serial} is offline")
        self.calls.append((name, args))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def wake(self) -> None:
        self._log("wake")

    def screen(self) -> Screen:
        self._log("screen")
        return self._screen

    def app_start(self, package: str, activity: str | None, stop_first: bool) -> None:
        self._log("app_start", package, activity, stop_first)

    def app_stop(self, package: str) -> None:
        self._log("app_stop", package)

    def find(self, selector: Selector, timeout_s: float) -> Element | None:
        self._log("find", selector.describe(), timeout_s)
        return self.elements.get(selector.describe())

    def wait_gone(self, selector: Selector, timeout_s: float) -> bool:
        self._log("wait_gone", selector.describe(), timeout_s)
        return selector.describe() not in self.elements

    def click(self, x: int, y: int) -> None:
        self._log("click", x, y)

    def long_click(self, x: int, y: int, duration_s: float) -> None:
        self._log("long_click", x, y, duration_s)

    def double_click(self, x: int, y: int) -> None:
        self._log("double_click", x, y)

    def swipe(self, start: tuple[int, int], end: tuple[int, int], duration_s: float) -> None:
        self._log("swipe", start, end, duration_s)

    def swipe_points(self, points: Sequence[tuple[int, int]], interval_s: float) -> None:
        self._log("swipe_points", list(points), interval_s)

    def input_text(self, text: str) -> None:
        self._log("input_text", text)

    def clear_text(self) -> None:
        self._log("clear_text")

    def press_key(self, key: str | int) -> None:
        self._log("press_key", key)

    def screenshot(self) -> bytes:
        self._log("screenshot")
        return b"\xff\xd8fake-jpeg"

    def dump_hierarchy(self) -> str:
        self._log("dump_hierarchy")
        return '<?xml version="1.0" ?><hierarchy rotation="0" />'

    def shell(self, command: str, timeout_s: float) -> ShellResult:
        self._log("shell", command, timeout_s)
        return self.shell_result

    def keep_screen(self, on: bool) -> None:
        self._log("keep_screen", on)

    def open_url(self, url: str) -> None:
        self._log("open_url", url)

    def sleep(self, seconds: float) -> None:
        self._log("sleep", seconds)
