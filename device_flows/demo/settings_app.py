"""The demo phone's settings (com.android.settings): switches a task turns on or off.

Each switch is one row (its label and a Switch, `checked` when on); a tap on either flips it.
`settings get global wifi_on` (and `bluetooth_on`, `airplane_mode_on`, `dark_theme_on`) reads a
switch back as 1 or 0, as on Android, and `settings put global NAME 1|0` sets it.
"""

from __future__ import annotations

from device_flows.demo.screen import Element, box

PACKAGE = "com.android.settings"
_ID = PACKAGE + ":id/"
# switch label -> the `settings` name it is read back under
SWITCHES = {
    "Wi-Fi": "wifi_on",
    "Bluetooth": "bluetooth_on",
    "Airplane mode": "airplane_mode_on",
    "Dark theme": "dark_theme_on",
}


class SettingsApp:
    package = PACKAGE
    label = "Settings"

    def __init__(self) -> None:
        self.on: dict[str, bool] = {"wifi_on": False, "bluetooth_on": True, "airplane_mode_on": False,
                                    "dark_theme_on": False}  # fmt: skip

    def open(self) -> None:
        return None

    def elements(self, width: int) -> list[Element]:
        out: list[Element] = [{"text": "Settings", "resourceId": _ID + "title", "bounds": box(0, 80, width, 200)}]
        for row, (label, name) in enumerate(SWITCHES.items()):
            top = 900 + 160 * row
            key = name.removesuffix("_on")
            out.append({"text": label, "resourceId": _ID + f"{key}_label", "bounds": box(40, top, width - 260, top + 120),
                        "clickable": True})  # fmt: skip
            out.append({"description": label, "resourceId": _ID + f"{key}_switch", "className": "android.widget.Switch",
                        "bounds": box(width - 240, top, width - 40, top + 120), "clickable": True, "checkable": True,
                        "checked": self.on[name]})  # fmt: skip
        return out

    def activate(self, element: Element) -> None:
        rid = element.get("resourceId", "").removeprefix(_ID)
        for name in self.on:
            if rid in (f"{name.removesuffix('_on')}_switch", f"{name.removesuffix('_on')}_label"):
                self.on[name] = not self.on[name]

    def type(self, text: str) -> bool:
        return False

    def clear(self) -> None:
        return None

    def key(self, key: str) -> bool:
        return key != "back"

    def read(self, name: str) -> str | None:
        """`settings get global NAME`: "1" or "0", None for a name the phone does not know."""
        return None if name not in self.on else str(int(self.on[name]))

    def write(self, name: str, value: str) -> bool:
        if name not in self.on or value not in ("0", "1"):
            return False
        self.on[name] = value == "1"
        return True

    def restore(self, on: dict[str, bool]) -> None:
        self.on = {name: bool(on.get(name, False)) for name in self.on}

    def state(self) -> dict[str, object]:
        return dict(self.on)
