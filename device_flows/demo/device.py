"""One emulated phone: what it answers to shell commands, what it shows, what it can record.

With a `Home` (the demo apps) its screens are the apps'; without one, a fixed list of
`elements` (what a step task's tests need). Shell commands a person or a checker uses work as on
Android: `input tap X Y | text TEXT | keyevent KEY | swipe ...`, `monkey -p PKG` and
`am start -n PKG/...` (launch), `am force-stop PKG`, `settings get|put global NAME [VALUE]`, and
`dumpsys rlauto-demo` (every app's state as one JSON object, for checkers), and
`cmd rlauto-demo restore BASE64` (every app set to a task suite's start state, a `DemoFixture` as
base64 JSON; it answers nothing, or `error: ...`). `getevent -lp`
answers `caps`, and `getevent -lt` streams `trace` (the ADB server replays it at its pace).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import shlex
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from device_flows.demo.home import Home
from device_flows.demo.screen import Element
from device_flows.demo.settings_app import PACKAGE as SETTINGS
from device_flows.demo.settings_app import SettingsApp
from rlauto_core.agent.suite import DEMO_RESTORE_COMMAND, DEMO_STATE_COMMAND, DemoFixture

STATE_COMMAND = DEMO_STATE_COMMAND
# Android's key codes for the keys a person sends with `input keyevent`
_KEYCODES = {"3": "home", "4": "back", "66": "enter", "67": "delete", "187": "recent"}


@dataclass
class DemoPhone:
    """What one device answers: its screen, input devices, canned touch trace and UI."""

    serial: str
    caps: str = ""
    trace: str = ""
    trace_speed: float = 1.0  # 2.0 replays the trace twice as fast as recorded
    size: tuple[int, int] = (1080, 2340)
    rotation: int = 0
    screen_on: bool = False
    elements: list[Element] = field(default_factory=list)  # the screen when there is no `home`
    home: Home | None = None
    model: str = "Demo_Phone"
    commands: list[str] = field(default_factory=list)
    rpc_calls: list[tuple[str, Any]] = field(default_factory=list)
    streams_closed_by_client: int = 0
    clipboard: str = ""
    typed: list[str] = field(default_factory=list)

    def visible(self) -> list[Element]:
        return self.home.elements() if self.home is not None else self.elements

    def state(self) -> dict[str, object]:
        return self.home.state() if self.home is not None else {}

    def shell_output(self, command: str) -> bytes:
        """Output of a shell command (`a; b` and `a && b` run in turn; anything else succeeds silently)."""
        parts = [p.strip() for chunk in command.split("&&") for p in chunk.split(";")]
        return b"".join(self._one(p) for p in parts if p)

    def _one(self, command: str) -> bytes:
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        if self.home is not None and self._app_command(words):
            return b""
        if command == STATE_COMMAND:
            return (json.dumps(self.state(), ensure_ascii=False) + "\n").encode()
        if command.startswith(DEMO_RESTORE_COMMAND + " "):
            return self._restore(command.removeprefix(DEMO_RESTORE_COMMAND).strip())
        if words[:2] == ["settings", "get"] or words[:2] == ["settings", "put"]:
            return self._settings(words)
        if command.startswith("getevent") and ("-lp" in command or "-p" in words):
            return self.caps.encode()
        if command == "wm size":
            return f"Physical size: {self.size[0]}x{self.size[1]}\n".encode()
        if command == "dumpsys display":
            return f"  mOverrideDisplayInfo=DisplayInfo{{real {self.size[0]} x {self.size[1]}, orientation={self.rotation}}}\n".encode()
        if command.startswith("dumpsys power"):
            awake = "Awake" if self.screen_on else "Asleep"
            return f"mWakefulness={awake}\nmHoldingDisplaySuspendBlocker={str(self.screen_on).lower()}\n".encode()
        if command in ("input keyevent 224", "input keyevent WAKEUP", "input keyevent KEYCODE_WAKEUP"):
            self.screen_on = True
            return b""
        if command.startswith(("toybox md5sum ", "md5 ")):
            return self._md5(words[-1])
        if command.startswith("getprop"):
            return b"demo\n"
        return b""

    def _app_command(self, words: list[str]) -> bool:
        """Launches, stops and input for the apps; True when `words` was one."""
        home = self.home
        assert home is not None
        if words[:2] == ["monkey", "-p"] and len(words) > 2:
            home.start(words[2])
        elif words[:2] == ["am", "force-stop"] and len(words) > 2:
            home.stop(words[2])
        elif words[:2] == ["am", "start"] and "-n" in words[:-1]:
            home.start(words[words.index("-n") + 1].split("/")[0])
        elif words[:2] == ["input", "tap"] and len(words) == 4 and all(w.isdigit() for w in words[2:]):
            home.click(int(words[2]), int(words[3]))
        elif words[:2] == ["input", "text"] and len(words) > 2:
            home.type(" ".join(words[2:]).replace("%s", " "))
        elif words[:2] == ["input", "keyevent"] and len(words) == 3 and words[2] != "224":
            key = words[2].removeprefix("KEYCODE_")
            home.press(_KEYCODES.get(key, key.lower()))
        elif words[:2] == ["input", "swipe"]:
            home.swipe()
        else:
            return False
        return True

    def _restore(self, encoded: str) -> bytes:
        if self.home is None:
            return b"error: this phone has no demo apps\n"
        try:
            fixture = DemoFixture.model_validate_json(base64.b64decode(encoded, validate=True))
        except (ValueError, binascii.Error) as exc:
            return f"error: not a start state: {str(exc).splitlines()[0][:200]}\n".encode()
        self.home.restore(fixture)
        return b""

    def _settings(self, words: list[str]) -> bytes:
        home = self.home
        settings = home.apps.get(SETTINGS) if home is not None else None
        if home is None or not isinstance(settings, SettingsApp) or len(words) < 4 or words[2] != "global":
            return b"null\n" if words[1] == "get" else b""
        with home.lock:
            if words[1] == "get":
                return ((settings.read(words[3]) or "null") + "\n").encode()
            settings.write(words[3], words[4] if len(words) > 4 else "")
        return b""

    def _md5(self, remote: str) -> bytes:
        # uiautomator2 checks its on-device agent by hash: answer with the jar it would push, so
        # it counts as installed and nothing is pushed
        spec = find_spec("uiautomator2")
        jar = Path(spec.origin).parent / "assets" / "u2.jar" if spec and spec.origin else None
        digest = hashlib.md5(jar.read_bytes()).hexdigest() if jar and jar.exists() else "0" * 32
        return f"{digest}  {remote}\n".encode()
