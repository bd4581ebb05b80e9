"""The demo phone's shopping list (com.example.shopping): items to add and tick off.

An "Add an item" field with an "Add" button (Enter adds too), then one row per item, a checkbox
`checked` once bought; a tap on a row ticks it or unticks it.
"""

from __future__ import annotations

from device_flows.demo.screen import Element, box

PACKAGE = "com.example.shopping"
_ID = PACKAGE + ":id/"
MAX_ITEMS = 10


class ShoppingApp:
    package = PACKAGE
    label = "Shopping"

    def __init__(self) -> None:
        self.items: list[str] = ["Bread"]
        self.bought: set[str] = set()
        self.entry = ""
        self.focused = False

    def open(self) -> None:
        self.focused = False

    def elements(self, width: int) -> list[Element]:
        rows: list[Element] = [
            {"text": item, "resourceId": _ID + "item", "className": "android.widget.CheckBox",
             "bounds": box(40, 700 + 140 * i, width - 40, 820 + 140 * i), "clickable": True, "checkable": True,
             "checked": item in self.bought}
            for i, item in enumerate(self.items[:MAX_ITEMS])
        ]  # fmt: skip
        return [
            {"text": "Shopping list", "resourceId": _ID + "title", "bounds": box(0, 80, width, 200)},
            {"text": self.entry or "Add an item", "resourceId": _ID + "new_item", "className": "android.widget.EditText",
             "bounds": box(40, 240, width - 300, 360), "clickable": True, "focused": self.focused},
            {"text": "Add", "resourceId": _ID + "add", "className": "android.widget.Button",
             "bounds": box(width - 260, 240, width - 40, 360), "clickable": True},
            *rows,
        ]  # fmt: skip

    def activate(self, element: Element) -> None:
        rid = element.get("resourceId", "").removeprefix(_ID)
        self.focused = rid == "new_item"
        if rid == "add":
            self._add()
        elif rid == "item":
            item = element.get("text", "")
            self.bought ^= {item}

    def _add(self) -> None:
        item = " ".join(self.entry.split())
        if item and item not in self.items:
            self.items.append(item)
        self.entry = ""

    def type(self, text: str) -> bool:
        if not self.focused:
            return False
        self.entry += text
        return True

    def clear(self) -> None:
        if self.focused:
            self.entry = ""

    def key(self, key: str) -> bool:
        if key == "enter" and self.focused:
            self._add()
            return True
        self.focused = False
        return key != "back"

    def restore(self, items: list[str], bought: list[str]) -> None:
        self.items, self.bought, self.entry, self.focused = list(items), set(bought), "", False

    def state(self) -> dict[str, object]:
        return {"items": list(self.items), "bought": sorted(self.bought)}
