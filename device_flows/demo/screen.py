"""What an emulated app shows and how a screen is drawn: elements (what uiautomator's dump and
finds see) and a JPEG rendering of them (what a screenshot shows)."""

from __future__ import annotations

import io
from typing import Protocol, TypedDict

from PIL import Image, ImageDraw


class Element(TypedDict, total=False):
    """One view on screen, in uiautomator's words; `bounds` is [left, top, right, bottom] in pixels."""

    text: str
    resourceId: str
    description: str
    className: str
    bounds: list[int]
    clickable: bool
    checkable: bool
    checked: bool
    focused: bool
    password: bool


def box(left: int, top: int, right: int, bottom: int) -> list[int]:
    return [left, top, right, bottom]


class App(Protocol):
    """An app of the emulated phone: its screens, what a tap, typing and keys do, its state."""

    package: str
    label: str

    def open(self) -> None:
        """Brought to the front by a launch: show its first screen."""

    def elements(self, width: int) -> list[Element]: ...

    def activate(self, element: Element) -> None:
        """A tap on one of its clickable elements."""

    def type(self, text: str) -> bool:
        """Text into the focused field; False when no field has the focus (it goes nowhere)."""

    def clear(self) -> None: ...

    def key(self, key: str) -> bool:
        """A key (back, enter); False when the app leaves it to the phone (back on its first screen)."""

    def state(self) -> dict[str, object]:
        """What a checker reads back (`dumpsys rlauto-demo`)."""


def render(elements: list[Element], size: tuple[int, int]) -> bytes:
    """A JPEG of the screen: a photo-like wallpaper band (so a screenshot is as heavy as a real
    phone's and has to be scaled), then every element with its text and its check state."""
    width, height = size
    image = Image.new("RGB", (width, height), (250, 250, 250))
    image.paste(Image.effect_noise((width, 640), 90).convert("RGB"), (0, 160))
    draw = ImageDraw.Draw(image)
    for element in elements:
        left, top, right, bottom = element["bounds"]
        fill = (220, 232, 255) if element.get("clickable") else (240, 240, 240)
        draw.rectangle((left, top, right, bottom), fill=fill, outline=(60, 60, 60), width=3)
        label = element.get("text") or element.get("description", "")
        if element.get("password"):
            label = "•" * len(label)
        draw.text((left + 16, top + 16), label, fill=(0, 0, 0))
        if element.get("checkable"):
            mark = (right - 90, top + 16, right - 30, top + 76)
            draw.rectangle(mark, fill=(40, 160, 70) if element.get("checked") else (200, 200, 200), outline=(0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=90)
    return buffer.getvalue()
