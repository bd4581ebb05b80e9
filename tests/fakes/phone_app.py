"""A small simulated app on the fake phone, so the real uiautomator2 client drives a real task.

`NotesApp` (package com.example.notes) behind a launcher: the note list (title, notes, "New note"),
the editor (a body field, "Save", "Cancel"), and, when `needs_login`, a sign-in gate that only a
person passes (`sign_in()`, what a takeover does). Writing a note takes several state changes:
start the app, tap "New note", tap the field, type, tap "Save". Keys: back goes one screen up,
home to the launcher. Screenshots are rendered JPEGs at the phone's size with a photo-like
banner, so a raw screenshot is well over 200 KB and the agent has to scale it.
"""

from __future__ import annotations

import io
import threading
from typing import Any

from PIL import Image, ImageDraw

LAUNCHER = "com.android.launcher"
PACKAGE = "com.example.notes"
_ID = PACKAGE + ":id/"


def _box(left: int, top: int, right: int, bottom: int) -> list[int]:
    return [left, top, right, bottom]


class NotesApp:
    def __init__(self, size: tuple[int, int] = (1080, 2340), *, needs_login: bool = False) -> None:
        self.width, self.height = size
        self.needs_login = needs_login
        self.signed_in = not needs_login
        self.package = LAUNCHER
        self.screen = "launcher"
        self.notes: list[str] = ["Buy milk"]
        self.draft = ""
        self.focused = False
        self.taps_ignored = 0
        self.typed_nowhere = 0
        self.swipes = 0
        self._lock = threading.RLock()
        self._rendered: dict[tuple[Any, ...], bytes] = {}

    # -- what is on screen ---------------------------------------------------------------
    def elements(self) -> list[dict[str, Any]]:
        with self._lock:
            w = self.width
            if self.screen == "launcher":
                return [
                    {"description": "Notes", "text": "Notes", "bounds": _box(60, 400, 300, 640), "clickable": True},
                    {
                        "description": "Settings",
                        "text": "Settings",
                        "bounds": _box(360, 400, 600, 640),
                        "clickable": True,
                    },
                ]
            if self.screen == "signin":
                return [
                    {"text": "Sign in to Notes", "resourceId": _ID + "signin_title", "bounds": _box(0, 900, w, 1000)},
                    {"text": "Sign in", "resourceId": _ID + "signin", "bounds": _box(340, 1100, 740, 1220),
                     "clickable": True, "className": "android.widget.Button"},
                ]  # fmt: skip
            if self.screen == "editor":
                return [
                    {"text": "New note", "resourceId": _ID + "editor_title", "bounds": _box(0, 80, w, 200)},
                    {"text": self.draft, "resourceId": _ID + "body", "bounds": _box(40, 240, w - 40, 1200),
                     "clickable": True, "focused": self.focused, "className": "android.widget.EditText"},
                    {"text": "Save", "resourceId": _ID + "save", "bounds": _box(600, 1260, 1040, 1380),
                     "clickable": True, "className": "android.widget.Button"},
                    {"text": "Cancel", "resourceId": _ID + "cancel", "bounds": _box(40, 1260, 480, 1380),
                     "clickable": True, "className": "android.widget.Button"},
                ]  # fmt: skip
            rows = [
                {"text": note, "resourceId": _ID + "note", "bounds": _box(40, 900 + 140 * i, w - 40, 1020 + 140 * i),
                 "clickable": True}
                for i, note in enumerate(self.notes[:8])
            ]  # fmt: skip
            return [
                {"text": "Notes", "resourceId": _ID + "title", "bounds": _box(0, 80, w, 200)},
                {"text": f"{len(self.notes)} notes", "resourceId": _ID + "count", "bounds": _box(40, 820, w - 40, 880)},
                *rows,
                {"text": "New note", "resourceId": _ID + "new", "description": "Write a new note",
                 "bounds": _box(700, 2100, 1040, 2240), "clickable": True, "className": "android.widget.Button"},
            ]  # fmt: skip

    # -- input ----------------------------------------------------------------------------
    def click(self, x: int, y: int) -> None:
        with self._lock:
            for element in reversed(self.elements()):
                left, top, right, bottom = element["bounds"]
                if element.get("clickable") and left <= x < right and top <= y < bottom:
                    self._activate(element)
                    return
            self.taps_ignored += 1

    def _activate(self, element: dict[str, Any]) -> None:
        name = element.get("resourceId", "").removeprefix(_ID) or element.get("description", "")
        self.focused = name == "body"
        if name == "Notes":
            self.start(PACKAGE)
        elif name == "new":
            self.screen, self.draft = "editor", ""
        elif name == "save" and self.draft.strip():
            self.notes.append(self.draft.strip())
            self.screen, self.draft = "list", ""
        elif name == "cancel":
            self.screen, self.draft = "list", ""

    def type(self, text: str) -> None:
        """Text pasted into the focused field; with nothing focused it goes nowhere, as on a phone."""
        with self._lock:
            if self.screen == "editor" and self.focused:
                self.draft += text
            else:
                self.typed_nowhere += 1

    def clear(self) -> None:
        with self._lock:
            if self.screen == "editor" and self.focused:
                self.draft = ""

    def press(self, key: str) -> None:
        with self._lock:
            if key == "home":
                self.package, self.screen = LAUNCHER, "launcher"
            elif key == "back":
                if self.screen == "editor":
                    self.screen, self.draft = "list", ""
                elif self.package != LAUNCHER:
                    self.package, self.screen = LAUNCHER, "launcher"
            self.focused = False

    def swipe(self) -> None:
        self.swipes += 1

    def start(self, package: str) -> None:
        with self._lock:
            if package != PACKAGE:
                return
            self.package = PACKAGE
            self.screen = "list" if self.signed_in else "signin"
            self.focused = False

    def stop(self, package: str) -> None:
        with self._lock:
            if package == PACKAGE and self.package == PACKAGE:
                self.package, self.screen, self.draft, self.focused = LAUNCHER, "launcher", "", False

    def sign_in(self) -> None:
        """What the person does during a takeover."""
        with self._lock:
            self.signed_in = True
            if self.screen == "signin":
                self.screen = "list"

    # -- pixels ---------------------------------------------------------------------------
    def render(self) -> bytes:
        with self._lock:
            key = (self.screen, self.draft, tuple(self.notes), self.focused)
            if key not in self._rendered:
                self._rendered[key] = self._draw()
            return self._rendered[key]

    def _draw(self) -> bytes:
        image = Image.new("RGB", (self.width, self.height), (250, 250, 250))
        banner = Image.effect_noise((self.width, 640), 90).convert("RGB")
        image.paste(banner, (0, 160))  # a photo-like header: JPEG cannot shrink noise much
        draw = ImageDraw.Draw(image)
        for element in self.elements():
            fill = (220, 232, 255) if element.get("clickable") else (240, 240, 240)
            draw.rectangle(element["bounds"], fill=fill, outline=(60, 60, 60), width=3)
            left, top, _, _ = element["bounds"]
            draw.text((left + 16, top + 16), element.get("text") or element.get("description", ""), fill=(0, 0, 0))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=90)
        return buffer.getvalue()
