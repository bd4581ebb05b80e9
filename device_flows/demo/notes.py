"""The demo phone's notes app (com.example.notes): a note list, an editor, and an optional
sign-in screen only a person passes.

Writing a note takes several state changes: start the app, tap "New note", tap the field, type,
tap "Save". The sign-in screen asks for a password the model is never given (`demo` unless
chosen otherwise): a person types it during a takeover (`rlauto phone shell "input text demo"`,
then Enter or "Sign in"), which is what `sign_in()` stands for in tests.
"""

from __future__ import annotations

from device_flows.demo.screen import Element, box

PACKAGE = "com.example.notes"
_ID = PACKAGE + ":id/"


class NotesApp:
    package = PACKAGE
    label = "Notes"

    def __init__(self, *, needs_login: bool = False, password: str = "demo") -> None:
        self.needs_login = needs_login
        self.password = password
        self.signed_in = not needs_login
        self.screen = "list"
        self.notes: list[str] = ["Buy milk"]
        self.draft = ""
        self.typed_password = ""
        self.focused = False
        self.wrong_passwords = 0

    def open(self) -> None:
        self.screen = "list" if self.signed_in else "signin"
        self.focused = self.screen == "signin"  # the password field has the focus, as on a phone

    def elements(self, width: int) -> list[Element]:
        if self.screen == "signin":
            return [
                {"text": "Sign in to Notes", "resourceId": _ID + "signin_title", "bounds": box(0, 900, width, 1000)},
                {"text": self.typed_password, "resourceId": _ID + "password", "className": "android.widget.EditText",
                 "bounds": box(140, 1010, width - 140, 1090), "clickable": True, "focused": self.focused,
                 "password": True},
                {"text": "Sign in", "resourceId": _ID + "signin", "bounds": box(340, 1100, 740, 1220),
                 "clickable": True, "className": "android.widget.Button"},
            ]  # fmt: skip
        if self.screen == "editor":
            return [
                {"text": "New note", "resourceId": _ID + "editor_title", "bounds": box(0, 80, width, 200)},
                {"text": self.draft, "resourceId": _ID + "body", "bounds": box(40, 240, width - 40, 1200),
                 "clickable": True, "focused": self.focused, "className": "android.widget.EditText"},
                {"text": "Save", "resourceId": _ID + "save", "bounds": box(600, 1260, 1040, 1380),
                 "clickable": True, "className": "android.widget.Button"},
                {"text": "Cancel", "resourceId": _ID + "cancel", "bounds": box(40, 1260, 480, 1380),
                 "clickable": True, "className": "android.widget.Button"},
            ]  # fmt: skip
        rows: list[Element] = [
            {"text": note, "resourceId": _ID + "note", "bounds": box(40, 900 + 140 * i, width - 40, 1020 + 140 * i),
             "clickable": True}
            for i, note in enumerate(self.notes[:8])
        ]  # fmt: skip
        return [
            {"text": "Notes", "resourceId": _ID + "title", "bounds": box(0, 80, width, 200)},
            {"text": f"{len(self.notes)} notes", "resourceId": _ID + "count", "bounds": box(40, 820, width - 40, 880)},
            *rows,
            {"text": "New note", "resourceId": _ID + "new", "description": "Write a new note",
             "bounds": box(700, 2100, 1040, 2240), "clickable": True, "className": "android.widget.Button"},
        ]  # fmt: skip

    def activate(self, element: Element) -> None:
        name = element.get("resourceId", "").removeprefix(_ID)
        self.focused = name in ("body", "password")
        if name == "new":
            self.screen, self.draft = "editor", ""
        elif name == "save" and self.draft.strip():
            self.notes.append(self.draft.strip())
            self.screen, self.draft = "list", ""
        elif name == "cancel":
            self.screen, self.draft = "list", ""
        elif name == "signin":
            self._try_password()

    def _try_password(self) -> None:
        if self.typed_password == self.password:
            self.sign_in()
        else:
            self.wrong_passwords += 1
            self.typed_password = ""

    def type(self, text: str) -> bool:
        if not self.focused:
            return False
        if self.screen == "editor":
            self.draft += text
        elif self.screen == "signin":
            self.typed_password += text
        else:
            return False
        return True

    def clear(self) -> None:
        if self.focused and self.screen == "editor":
            self.draft = ""
        elif self.focused and self.screen == "signin":
            self.typed_password = ""

    def key(self, key: str) -> bool:
        self.focused = False
        if key == "enter" and self.screen == "signin":
            self._try_password()
            return True
        if key == "back" and self.screen == "editor":
            self.screen, self.draft = "list", ""
            return True
        return key != "back"

    def restore(self, notes: list[str], signed_in: bool) -> None:
        """A task's start (the eval's reset): these notes, signed in or not, the list in front."""
        self.notes, self.signed_in, self.needs_login = list(notes), signed_in, not signed_in
        self.screen, self.draft, self.typed_password, self.focused = "list", "", "", False

    def sign_in(self) -> None:
        """What the person does during a takeover: the right password, accepted."""
        self.signed_in, self.typed_password, self.focused = True, "", False
        if self.screen == "signin":
            self.screen = "list"

    def state(self) -> dict[str, object]:
        return {"notes": list(self.notes), "screen": self.screen, "signed_in": self.signed_in, "draft": self.draft}
