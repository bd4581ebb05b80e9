"""`U2Phone`: the `Phone` protocol on a real device, through adbutils and uiautomator2.

adbutils covers everything a shell can do (wake, apps, keys, getevent); uiautomator2 is
started lazily, only for what needs its on-device agent (finding elements, clicks,
`swipe_points`, screenshots, text input).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from typing import Any

import adbutils

from rlauto_core.agent.tools import DeviceInfo
from rlauto_core.gesture import STEP_MS, Screen
from rlauto_core.steps import Element, PhoneError, Selector, ShellResult

KEYCODE_WAKEUP = 224  # wakes without toggling, unlike POWER


def adb_client(host: str | None = None, port: int | None = None) -> adbutils.AdbClient:
    """The ADB server to use: arguments, else ANDROID_ADB_SERVER_HOST/PORT, else 127.0.0.1:5037."""
    return adbutils.AdbClient(
        host=host or os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1"),
        port=port or int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")),
    )


def open_device(serial: str, client: adbutils.AdbClient | None = None) -> adbutils.AdbDevice:
    client = client or adb_client()
    try:
        serials = [d.serial for d in client.device_list()]
    except adbutils.AdbError as exc:
        raise PhoneError(f"device {serial}: ADB server at {client.host}:{client.port} unreachable: {exc}") from None
    if serial not in serials:
        listed = ", ".join(s for s in serials if s) or "none"
        raise PhoneError(f"device {serial} is not connected (connected: {listed})")
    return client.device(serial)


class AdbDirectory:
    """The phones the ADB server sees, for the agent's `list_devices` tool."""

    def __init__(self, client: adbutils.AdbClient | None = None) -> None:
        self._client = client or adb_client()

    def list_devices(self) -> list[DeviceInfo]:
        try:
            infos = self._client.list(extended=True)
        except adbutils.AdbError as exc:
            raise PhoneError(f"ADB server at {self._client.host}:{self._client.port} unreachable: {exc}") from None
        return [DeviceInfo(serial=i.serial, state=i.state, model=i.tags.get("model", "")) for i in infos]


def screen_of(device: adbutils.AdbDevice) -> Screen:
    """Display size as seen now (`wm size` is the natural size; rotation swaps it)."""
    size = device.window_size(landscape=False)
    rotation = device.rotation()
    width, height = (size.height, size.width) if rotation % 2 else (size.width, size.height)
    return Screen(width=width, height=height, rotation=rotation)


def wake(device: adbutils.AdbDevice) -> None:
    """Screen on and past a swipe-only keyguard: a dark screen makes UI dumps ~20x slower
    and screenshots black."""
    device.shell(["input", "keyevent", str(KEYCODE_WAKEUP)])
    device.shell(["wm", "dismiss-keyguard"])


class U2Phone:
    def __init__(self, serial: str, client: adbutils.AdbClient | None = None) -> None:
        self._device = open_device(serial, client)
        self._serial = serial
        self._u2: Any = None

    @property
    def serial(self) -> str:
        return self._serial

    @property
    def adb(self) -> adbutils.AdbDevice:
        return self._device

    @property
    def u2(self) -> Any:
        if self._u2 is None:
            import uiautomator2

            try:
                self._u2 = uiautomator2.connect(self._device)
            except Exception as exc:
                raise PhoneError(f"device {self._serial}: uiautomator2 agent did not start: {exc}") from None
        return self._u2

    def wake(self) -> None:
        wake(self._device)

    def screen(self) -> Screen:
        return screen_of(self._device)

    def app_start(self, package: str, activity: str | None, stop_first: bool) -> None:
        if stop_first:
            self._device.app_stop(package)
        self._device.app_start(package, activity)

    def app_stop(self, package: str) -> None:
        self._device.app_stop(package)

    def find(self, selector: Selector, timeout_s: float) -> Element | None:
        if selector.xpath is not None:
            query = self.u2.xpath(selector.xpath)
            if not query.wait(timeout=timeout_s):
                return None
            found = query.get_last_match()
            left, top, right, bottom = found.bounds
            return Element(bounds=(left, top, right, bottom), text=found.text or "")
        query = self.u2(**selector.model_dump(exclude_none=True))
        if not query.wait(timeout=timeout_s):
            return None
        info = query.info
        b = info["bounds"]
        return Element(bounds=(b["left"], b["top"], b["right"], b["bottom"]), text=info.get("text") or "")

    def wait_gone(self, selector: Selector, timeout_s: float) -> bool:
        if selector.xpath is not None:
            return bool(self.u2.xpath(selector.xpath).wait_gone(timeout=timeout_s))
        return bool(self.u2(**selector.model_dump(exclude_none=True)).wait_gone(timeout=timeout_s))

    def click(self, x: int, y: int) -> None:
        self.u2.click(x, y)

    def long_click(self, x: int, y: int, duration_s: float) -> None:
        self.u2.long_click(x, y, duration_s)

    def double_click(self, x: int, y: int) -> None:
        self.u2.double_click(x, y)

    def swipe(self, start: tuple[int, int], end: tuple[int, int], duration_s: float) -> None:
        self.u2.swipe(start[0], start[1], end[0], end[1], duration=duration_s)

    def swipe_points(self, points: Sequence[tuple[int, int]], interval_s: float) -> None:
        # uiautomator2 computes steps = int(duration / 0.005); half a step more keeps the
        # float division from rounding 0.015 / 0.005 down to 2 steps.
        self.u2.swipe_points([list(p) for p in points], interval_s + STEP_MS / 2000)

    def input_text(self, text: str) -> None:
        self.u2.send_keys(text)

    def clear_text(self) -> None:
        self.u2.clear_text()

    def press_key(self, key: str | int) -> None:
        self.u2.press(key)

    def screenshot(self) -> bytes:
        import base64

        data = self.u2.jsonrpc.takeScreenshot(1, 80)
        if not data:
            raise PhoneError(f"device {self._serial}: screenshot came back empty")
        return base64.b64decode(data)

    def dump_hierarchy(self) -> str:
        return str(self.u2.dump_hierarchy(compressed=False))

    def shell(self, command: str, timeout_s: float) -> ShellResult:
        result = self._device.shell2(command, timeout=timeout_s)
        return ShellResult(exit_code=result.returncode, output=result.output)

    def keep_screen(self, on: bool) -> None:
        self._device.shell(["svc", "power", "stayon", "true" if on else "false"])

    def open_url(self, url: str) -> None:
        self._device.shell(f"am start -a android.intent.action.VIEW -d {shlex.quote(url)}")

    def sleep(self, seconds: float) -> None:
        import time

        time.sleep(seconds)
