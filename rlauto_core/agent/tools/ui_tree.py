"""The UI hierarchy as the model reads it: one line per element that matters, capped in size.

uiautomator's dump is XML with a dozen attributes per node and many empty layout containers.
The model needs, per element: class, text, resource-id, content-desc, whether it is clickable
(and scrollable, checked, focused), and bounds. Containers with nothing of that are skipped
(their children are kept), as are zero-area (invisible) nodes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from pydantic import BaseModel

from rlauto_core.errors import RlautoError

_TEXT_CHARS = 120
_MAX_INDENT = 10
_FLAGS = ("clickable", "long-clickable", "scrollable", "checkable", "checked", "focused", "selected")


class UiTreeError(RlautoError):
    """The device sent a hierarchy that cannot be read."""


class UiTree(BaseModel):
    text: str
    elements: int
    shown: int
    package: str


def _clip(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= _TEXT_CHARS else value[: _TEXT_CHARS - 1] + "…"


def _has_area(bounds: str) -> bool:
    try:
        left, top, right, bottom = (int(n) for n in bounds.replace("][", ",").strip("[]").split(","))
    except ValueError:
        return True  # unknown bounds: keep the element, the model can still tap it by text
    return right > left and bottom > top


def _line(node: ET.Element, depth: int) -> str | None:
    attrs = node.attrib
    text, desc, rid = attrs.get("text", ""), attrs.get("content-desc", ""), attrs.get("resource-id", "")
    flags = [name for name in _FLAGS if attrs.get(name) == "true"]
    if not (text or desc or rid or flags) or not _has_area(attrs.get("bounds", "")):
        return None
    parts = [attrs.get("class", "node").rsplit(".", 1)[-1]]
    if text:
        parts.append(f'text="{_clip(text)}"')
    if rid:
        parts.append(f"id={rid}")
    if desc:
        parts.append(f'desc="{_clip(desc)}"')
    if attrs.get("enabled") == "false":
        flags.append("disabled")
    parts += flags
    if attrs.get("bounds"):
        parts.append(attrs["bounds"])
    return "  " * min(depth, _MAX_INDENT) + "- " + " ".join(parts)


def compress_hierarchy(xml: str, max_chars: int = 8000) -> UiTree:
    """The hierarchy as lines, at most `max_chars` characters; what did not fit is counted."""
    try:
        root = ET.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    except ET.ParseError as exc:
        raise UiTreeError(f"the UI hierarchy is not XML ({exc})") from None
    lines: list[str] = []
    packages: dict[str, int] = {}

    def walk(node: ET.Element, depth: int) -> None:
        package = node.attrib.get("package")
        if package:
            packages[package] = packages.get(package, 0) + 1
        line = _line(node, depth)
        if line is not None:
            lines.append(line)
        for child in node:
            walk(child, depth + (line is not None))

    for child in root:
        walk(child, 0)
    package = max(packages, key=lambda p: packages[p]) if packages else "unknown"
    head = f"UI tree of {package} ({len(lines)} elements; tap by text, resource_id or description):"
    shown: list[str] = []
    used = len(head)
    for line in lines:
        if used + len(line) + 1 > max_chars - 80:
            break
        shown.append(line)
        used += len(line) + 1
    body = [head, *shown]
    if len(shown) < len(lines):
        body.append(
            f"… {len(lines) - len(shown)} more elements not shown (the tree is capped at {max_chars} characters)"
        )
    return UiTree(text="\n".join(body), elements=len(lines), shown=len(shown), package=package)
