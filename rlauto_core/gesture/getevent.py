"""Lines of `getevent -t` / `-lt` output to input events.

Accepted shapes (Android's getevent, old and new):
    [   12345.678901] /dev/input/event2: EV_ABS       ABS_MT_POSITION_X    0000021c
    [   12345.678901] 0003 0035 0000021c                 (one device given, no prefix)
    12345-678901: /dev/input/event2: 0003 0035 0000021c  (old builds: sec-usec, usec unpadded)
Lines that are not events (`add device`, `name:`, blank, noise) are classified, not fatal.
"""

from __future__ import annotations

from typing import NamedTuple

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
SYN_REPORT, SYN_MT_REPORT, SYN_DROPPED = 0, 2, 3
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT = 0x2F
ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x35, 0x36
ABS_MT_TRACKING_ID = 0x39
BTN_TOUCH = 0x14A
INPUT_PROP_DIRECT = 0x01

EVENT_TYPES = {"EV_SYN": 0, "EV_KEY": 1, "EV_REL": 2, "EV_ABS": 3, "EV_MSC": 4, "EV_SW": 5}
EVENT_CODES: dict[str, int] = {
    "SYN_REPORT": SYN_REPORT,
    "SYN_CONFIG": 1,
    "SYN_MT_REPORT": SYN_MT_REPORT,
    "SYN_DROPPED": SYN_DROPPED,
    "ABS_X": ABS_X,
    "ABS_Y": ABS_Y,
    "ABS_PRESSURE": 0x18,
    "ABS_MT_SLOT": ABS_MT_SLOT,
    "ABS_MT_TOUCH_MAJOR": 0x30,
    "ABS_MT_TOUCH_MINOR": 0x31,
    "ABS_MT_WIDTH_MAJOR": 0x32,
    "ABS_MT_WIDTH_MINOR": 0x33,
    "ABS_MT_ORIENTATION": 0x34,
    "ABS_MT_POSITION_X": ABS_MT_POSITION_X,
    "ABS_MT_POSITION_Y": ABS_MT_POSITION_Y,
    "ABS_MT_TOOL_TYPE": 0x37,
    "ABS_MT_BLOB_ID": 0x38,
    "ABS_MT_TRACKING_ID": ABS_MT_TRACKING_ID,
    "ABS_MT_PRESSURE": 0x3A,
    "ABS_MT_DISTANCE": 0x3B,
    "BTN_TOUCH": BTN_TOUCH,
    "BTN_TOOL_FINGER": 0x145,
    "BTN_TOOL_PEN": 0x140,
    "INPUT_PROP_POINTER": 0x00,
    "INPUT_PROP_DIRECT": INPUT_PROP_DIRECT,
}
# getevent -l prints key values and MT tool types as words instead of numbers.
VALUE_LABELS = {"UP": 0, "DOWN": 1, "REPEAT": 2, "MT_TOOL_FINGER": 0, "MT_TOOL_PEN": 1, "MT_TOOL_PALM": 2}
_UNKNOWN = -1  # a label this parser does not need (KEY_POWER...): the event is ignored
_GARBAGE = -2  # not a label, not hex: the line is not an event


class InputEvent(NamedTuple):
    time_s: float
    device: str | None
    type: int
    code: int
    value: int


class DeviceName(NamedTuple):
    """`add device N: PATH` followed by `name: "..."` inside an event trace."""

    device: str
    name: str


def parse_number(token: str, table: dict[str, int]) -> int:
    """A hex field or a getevent label; unknown labels give -1 (kept out of the touch logic)."""
    if token in table:
        return table[token]
    try:
        return int(token, 16)
    except ValueError:
        return _UNKNOWN if token[:1].isalpha() and token.replace("_", "").isalnum() else _GARBAGE


def parse_value(token: str) -> int | None:
    label = VALUE_LABELS.get(token)
    if label is not None:
        return label
    try:
        value = int(token, 16)
    except ValueError:
        return None
    if value > 0xFFFFFFFF:
        return None
    # 32-bit two's complement: a lift is printed as ffffffff.
    return value - 0x1_0000_0000 if value & 0x8000_0000 else value


def _timestamp(line: str) -> tuple[float | None, str]:
    if line.startswith("["):
        end = line.find("]")
        if end < 0:
            return None, line
        try:
            return float(line[1:end]), line[end + 1 :]
        except ValueError:
            return None, line
    colon = line.find(": ")
    dash = line.find("-")
    if 0 < dash < colon and line[:dash].isdigit() and line[dash + 1 : colon].isdigit():
        return int(line[:dash]) + int(line[dash + 1 : colon]) / 1e6, line[colon + 1 :]
    return None, line


def parse_line(line: str) -> InputEvent | DeviceName | str | None:
    """One line: an event, a device name, the path of an `add device` line, or None (noise)."""
    time_s, rest = _timestamp(line.strip())
    fields = rest.split()
    if not fields:
        return None
    device: str | None = None
    if fields[0][0] == "/":
        # "/dev/input/event2:" is one token; a path glued to the type is noise
        if not fields[0].endswith(":"):
            return None
        device = fields[0][:-1]
        del fields[0]
    if time_s is None:
        if len(fields) == 4 and fields[0] == "add" and fields[1] == "device":
            return fields[3]  # the path; its `name:` line follows
        if fields and fields[0] == "name:":
            return DeviceName("", rest.split(":", 1)[1].strip().strip('"'))
        return None
    # `-r` appends "rate N" to SYN_REPORT lines; anything else must be exactly 3 fields.
    if len(fields) != 3:
        if len(fields) == 5 and fields[3] == "rate":
            del fields[3:]
        else:
            return None
    type_ = EVENT_TYPES.get(fields[0])
    if type_ is None:
        type_ = parse_number(fields[0], EVENT_TYPES)
    code = EVENT_CODES.get(fields[1])
    if code is None:
        code = parse_number(fields[1], EVENT_CODES)
    value = parse_value(fields[2])
    if type_ == _GARBAGE or code == _GARBAGE or value is None:
        return None
    return InputEvent(time_s, device, type_, code, value)
