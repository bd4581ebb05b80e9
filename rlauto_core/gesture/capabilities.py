"""`getevent -p` / `-lp` capability dumps, and which node is the real touchscreen."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from rlauto_core.gesture.getevent import (
    ABS_MT_POSITION_X,
    ABS_MT_POSITION_Y,
    ABS_X,
    ABS_Y,
    BTN_TOUCH,
    EVENT_CODES,
    INPUT_PROP_DIRECT,
    parse_number,
)
from rlauto_core.gesture.model import GestureError, InputDevice

_ABS_LINE = re.compile(r"(\S+?)\*?\s*:\s*value\s+-?\d+,\s*min\s+(-?\d+),\s*max\s+(-?\d+)")
_SECTION = re.compile(r"^\s*([A-Z?]{2,3})\s*\(([0-9a-fA-F]{4})\):(.*)$")
# Nodes that carry injected or sensor events, never a person's finger (seen on real phones:
# "uinput-fpc", "vitural-sar" (sic), "virtual-touch", "sar_sensor").
_SYNTHETIC = re.compile(r"(?:^|[-_ .])(uinput|virtual|vitural|sar|fake|dummy)(?:$|[-_ .\d])", re.I)
_MAX_DEVICES = 256


@dataclass
class _Block:
    path: str
    name: str = ""
    keys: set[int] = field(default_factory=set)
    abs_ranges: dict[int, tuple[int, int]] = field(default_factory=dict)
    props: set[int] | None = None


def is_synthetic(name: str) -> bool:
    return bool(_SYNTHETIC.search(name)) or name.lower().startswith("uinput")


def parse_capabilities(text: str, file: str = "capabilities") -> list[InputDevice]:
    """Every device block of a dump; a dump with no `add device` block is an error."""
    devices: list[_Block] = []
    section = ""
    for raw in text.splitlines():
        line = raw.rstrip()
        stripped = line.strip()
        if stripped.startswith("add device"):
            path = stripped.split(":", 1)[1].strip() if ":" in stripped else ""
            if not path:
                continue
            if len(devices) >= _MAX_DEVICES:
                raise GestureError(file, f"more than {_MAX_DEVICES} devices: not a getevent -p dump")
            devices.append(_Block(path))
            section = ""
            continue
        if not devices:
            continue
        current = devices[-1]
        if stripped.startswith("name:"):
            current.name = stripped[5:].strip().strip('"')
            continue
        if stripped == "events:":
            section = "events"
            continue
        if stripped == "input props:":
            section = "props"
            current.props = set()
            continue
        if section == "props":
            _add_prop(current, stripped)
            continue
        if section.startswith("events") or section in ("KEY", "ABS"):
            match = _SECTION.match(line)
            if match:
                section = match.group(1)
                body = match.group(3)
            else:
                body = line
            _add_codes(current, section, body)
    if not devices:
        raise GestureError(file, "no `add device` block: expected the output of `getevent -p` or `-lp`")
    return [
        InputDevice(
            path=d.path,
            name=d.name,
            keys=frozenset(d.keys),
            abs_ranges=d.abs_ranges,
            props=None if d.props is None else frozenset(d.props),
        )
        for d in devices
    ]


def _add_prop(device: _Block, token: str) -> None:
    if device.props is not None and token and not token.startswith("<"):
        number = parse_number(token, EVENT_CODES)
        if number >= 0:
            device.props.add(number)


def _add_codes(device: _Block, section: str, body: str) -> None:
    if section == "ABS":
        match = _ABS_LINE.search(body)
        if match:
            code = parse_number(match.group(1), EVENT_CODES)
            if code >= 0:
                device.abs_ranges[code] = (int(match.group(2)), int(match.group(3)))
    elif section == "KEY":
        for token in body.split():
            code = parse_number(token.rstrip("*"), EVENT_CODES)
            if code >= 0:
                device.keys.add(code)


def touch_axes(device: InputDevice) -> tuple[int, int] | None:
    """The (x, y) ABS codes a touchscreen reports positions on, or None if it has none."""
    if ABS_MT_POSITION_X in device.abs_ranges and ABS_MT_POSITION_Y in device.abs_ranges:
        return ABS_MT_POSITION_X, ABS_MT_POSITION_Y
    if ABS_X in device.abs_ranges and ABS_Y in device.abs_ranges and BTN_TOUCH in device.keys:
        return ABS_X, ABS_Y
    return None


def choose_touchscreen(devices: Iterable[InputDevice], file: str = "capabilities") -> InputDevice:
    """The real touchscreen: touch axes, direct input when props are known, not synthetic.

    Ties go to multitouch, then to a node whose props say INPUT_PROP_DIRECT, then to the
    lowest event number (the panel is probed early at boot).
    """
    all_devices = list(devices)
    candidates = [
        d
        for d in all_devices
        if touch_axes(d) is not None and not is_synthetic(d.name) and (d.props is None or INPUT_PROP_DIRECT in d.props)
    ]
    if not candidates:
        names = ", ".join(f"{d.path} ({d.name or 'no name'})" for d in all_devices[:8])
        raise GestureError(file, f"no touchscreen among {len(all_devices)} devices: {names}")

    def rank(d: InputDevice) -> tuple[int, int, int]:
        digits = "".join(ch for ch in d.path if ch.isdigit())
        return (
            0 if touch_axes(d) == (ABS_MT_POSITION_X, ABS_MT_POSITION_Y) else 1,
            0 if d.props is not None else 1,
            int(digits[-6:]) if digits else 0,
        )

    return min(candidates, key=rank)
