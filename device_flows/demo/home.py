"""The demo phone's home screen: a launcher with one icon per app, and which app is in front.

Taps, typing and keys go to the app in front (home and back to the launcher); a tap that hits
no clickable element changes nothing and is counted, as is text typed with no field focused.
Everything happens under one lock: the ADB server and the uiautomator agent serve on threads.
"""

from __future__ import annotations

import threading

from device_flows.demo.notes import NotesApp
from device_flows.demo.screen import App, Element, box, render
from device_flows.demo.settings_app import SettingsApp
from device_flows.demo.shopping import ShoppingApp
from rlauto_core.agent.suite import DemoFixture

LAUNCHER = "com.android.launcher"
_RENDERED_KEPT = 16  # screens drawn lately: a run goes back and forth between a few


class Home:
    """The apps of one emulated phone; `notes`, `settings`, `shopping` are the stock ones."""

    def __init__(self, size: tuple[int, int] = (1080, 2340), *, apps: list[App] | None = None) -> None:
        self.width, self.height = size
        self.apps: dict[str, App] = {app.package: app for app in (apps or [NotesApp(), SettingsApp(), ShoppingApp()])}
        self.package = LAUNCHER
        self.taps_ignored = 0
        self.typed_nowhere = 0
        self.swipes = 0
        self.lock = threading.RLock()
        self._rendered: dict[str, bytes] = {}

    def elements(self) -> list[Element]:
        with self.lock:
            if self.package == LAUNCHER:
                return [
                    {"description": app.label, "text": app.label, "bounds": box(60 + 300 * i, 400, 300 + 300 * i, 640),
                     "clickable": True}
                    for i, app in enumerate(self.apps.values())
                ]  # fmt: skip
            return self.apps[self.package].elements(self.width)

    def click(self, x: int, y: int) -> None:
        with self.lock:
            for element in reversed(self.elements()):
                left, top, right, bottom = element["bounds"]
                if element.get("clickable") and left <= x < right and top <= y < bottom:
                    self._activate(element)
                    return
            self.taps_ignored += 1

    def _activate(self, element: Element) -> None:
        if self.package != LAUNCHER:
            self.apps[self.package].activate(element)
            return
        label = element.get("text")
        package = next((p for p, app in self.apps.items() if app.label == label), None)
        if package is not None:
            self.start(package)

    def type(self, text: str) -> None:
        with self.lock:
            if self.package == LAUNCHER or not self.apps[self.package].type(text):
                self.typed_nowhere += 1

    def clear(self) -> None:
        with self.lock:
            if self.package != LAUNCHER:
                self.apps[self.package].clear()

    def press(self, key: str) -> None:
        """uiautomator's key names (home, back, enter, ...); back on an app's first screen goes home."""
        with self.lock:
            key = key.lower()
            if key == "home" or (self.package != LAUNCHER and not self.apps[self.package].key(key)):
                self.package = LAUNCHER

    def swipe(self) -> None:
        with self.lock:
            self.swipes += 1

    def start(self, package: str) -> bool:
        with self.lock:
            if package not in self.apps:
                return False
            self.package = package
            self.apps[package].open()
            return True

    def stop(self, package: str) -> None:
        with self.lock:
            if package == self.package:
                self.package = LAUNCHER

    def restore(self, fixture: DemoFixture) -> None:
        """Every app to a task's start state (those this phone has), the launcher in front."""
        with self.lock:
            for app in self.apps.values():
                if isinstance(app, NotesApp):
                    app.restore(fixture.notes.notes, fixture.notes.signed_in)
                elif isinstance(app, ShoppingApp):
                    app.restore(fixture.shopping.items, fixture.shopping.bought)
                elif isinstance(app, SettingsApp):
                    app.restore(fixture.settings.model_dump())
            self.package = LAUNCHER

    def render(self) -> bytes:
        with self.lock:
            elements = self.elements()
            key = repr(elements)
            if key not in self._rendered:
                if len(self._rendered) >= _RENDERED_KEPT:
                    self._rendered.pop(next(iter(self._rendered)))
                self._rendered[key] = render(elements, (self.width, self.height))
            return self._rendered[key]

    def state(self) -> dict[str, object]:
        with self.lock:
            return {"foreground": self.package, **{app.label.lower(): app.state() for app in self.apps.values()}}
