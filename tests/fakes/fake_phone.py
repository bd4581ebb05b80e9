"""One fake phone: what it answers to shell commands, its screen, and optionally a simulated app."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.phone_app import NotesApp


@dataclass
class FakePhone:
    """What one device answers: its screen, input devices, canned touch trace and UI."""

    serial: str
    caps: str = ""
    trace: str = ""
    trace_speed: float = 1.0  # 2.0 replays the trace twice as fast as recorded
    size: tuple[int, int] = (1080, 2340)
    rotation: int = 0
    screen_on: bool = False
    elements: list[dict[str, Any]] = field(default_factory=list)  # {"text", "resourceId", "bounds"}
    app: NotesApp | None = None  # a simulated app: then its screens are the UI, not `elements`
    commands: list[str] = field(default_factory=list)
    rpc_calls: list[tuple[str, Any]] = field(default_factory=list)
    streams_closed_by_client: int = 0
    clipboard: str = ""
    typed: list[str] = field(default_factory=list)

    def visible(self) -> list[dict[str, Any]]:
        return self.app.elements() if self.app is not None else self.elements

    def shell_output(self, command: str) -> bytes:
        """Output of a short shell command (anything not listed succeeds silently)."""
        if self.app is not None:
            self._app_command(command)
        if command.startswith("getevent") and ("-lp" in command or "-p" in command.split()):
            return self.caps.encode()
        if command == "wm size":
            return f"Physical size: {self.size[0]}x{self.size[1]}\n".encode()
        if command == "dumpsys display":
            return f"  mOverrideDisplayInfo=DisplayInfo{{real 1080 x 2340, orientation={self.rotation}}}\n".encode()
        if command.startswith("dumpsys power"):
            state = "Awake" if self.screen_on else "Asleep"
            return f"mWakefulness={state}\nmHoldingDisplaySuspendBlocker={str(self.screen_on).lower()}\n".encode()
        if command in ("input keyevent 224", "input keyevent WAKEUP", "input keyevent KEYCODE_WAKEUP"):
            self.screen_on = True
            return b""
        if command.startswith("toybox md5sum ") or command.startswith("md5 "):
            return self._md5(command.split()[-1])
        if command.startswith("getprop"):
            return b"fake\n"
        return b""

    def _app_command(self, command: str) -> None:
        assert self.app is not None
        words = command.split()
        if words[:2] == ["monkey", "-p"] and len(words) > 2:
            self.app.start(words[2])
        elif words[:2] == ["am", "force-stop"] and len(words) > 2:
            self.app.stop(words[2])
        elif words[:2] == ["am", "start"] and "-n" in words:
            self.app.start(words[words.index("-n") + 1].split("/")[0])

    def _md5(self, remote: str) -> bytes:
        # The agent "is installed": answer with the hash of the jar uiautomator2 would push.
        import uiautomator2

        jar = Path(uiautomator2.__file__).parent / "assets" / "u2.jar"
        digest = hashlib.md5(jar.read_bytes()).hexdigest() if jar.exists() else "0" * 32
        return f"{digest}  {remote}\n".encode()
