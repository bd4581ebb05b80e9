"""Writes getevent text the way Android prints it, for the parser tests and the demo phone's ADB server."""

from __future__ import annotations

from collections.abc import Sequence

Sample = tuple[int, int, float]  # raw x, raw y, seconds

LABELS = {
    (0, 0): ("EV_SYN", "SYN_REPORT"),
    (0, 2): ("EV_SYN", "SYN_MT_REPORT"),
    (3, 0x00): ("EV_ABS", "ABS_X"),
    (3, 0x01): ("EV_ABS", "ABS_Y"),
    (3, 0x2F): ("EV_ABS", "ABS_MT_SLOT"),
    (3, 0x35): ("EV_ABS", "ABS_MT_POSITION_X"),
    (3, 0x36): ("EV_ABS", "ABS_MT_POSITION_Y"),
    (3, 0x39): ("EV_ABS", "ABS_MT_TRACKING_ID"),
    (3, 0x3A): ("EV_ABS", "ABS_MT_PRESSURE"),
    (1, 0x14A): ("EV_KEY", "BTN_TOUCH"),
}

CAPS_LP = """add device 1: /dev/input/event5
  name:     "uinput-goodix"
  events:
    KEY (0001): BTN_TOUCH
    ABS (0003): ABS_MT_POSITION_X     : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 2339, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
add device 2: /dev/input/event3
  name:     "vitural-sar"
  events:
    ABS (0003): ABS_MT_POSITION_X     : value 0, min 0, max 100, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 100, fuzz 0, flat 0, resolution 0
  input props:
    <none>
add device 3: /dev/input/event1
  name:     "gpio-keys"
  events:
    KEY (0001): KEY_VOLUMEDOWN        KEY_VOLUMEUP          KEY_POWER
  input props:
    <none>
add device 4: /dev/input/event2
  name:     "fts_ts"
  events:
    KEY (0001): KEY_WAKEUP            BTN_TOUCH             BTN_TOOL_FINGER
    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_TOUCH_MAJOR    : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 4319, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 9359, fuzz 0, flat 0, resolution 0
                ABS_MT_TRACKING_ID    : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
                ABS_MT_PRESSURE       : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
"""

# The same panel as `getevent -p` (hex codes, old builds without "resolution").
CAPS_P = """add device 1: /dev/input/event2
  name:     "fts_ts"
  events:
    KEY (0001): 0145  014a
    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0 flat 0
                0035  : value 0, min 0, max 4319, fuzz 0 flat 0
                0036  : value 0, min 0, max 9359, fuzz 0 flat 0
                0039  : value 0, min 0, max 65535, fuzz 0 flat 0
add device 2: /dev/input/event4
  name:     "uinput"
  events:
    ABS (0003): 0035  : value 0, min 0, max 1079, fuzz 0 flat 0
                0036  : value 0, min 0, max 2339, fuzz 0 flat 0
"""


def _line(t: float, device: str | None, type_: int, code: int, value: int, labels: bool, old_time: bool) -> str:
    stamp = f"{int(t)}-{round((t % 1) * 1e6)}: " if old_time else f"[{t:15.6f}] "
    prefix = f"{device}: " if device else ""
    hex_value = f"{value & 0xFFFFFFFF:08x}"
    if labels:
        type_label, code_label = LABELS[(type_, code)]
        if type_ == 1:
            hex_value = "DOWN" if value else "UP"
        body = f"{type_label:<12} {code_label:<20} {hex_value}"
    else:
        body = f"{type_:04x} {code:04x} {hex_value}"
    return stamp + prefix + body


def write_trace(
    strokes: Sequence[Sequence[Sample]],
    protocol: str = "B",
    labels: bool = True,
    device: str | None = "/dev/input/event2",
    old_time: bool = False,
    announce: str | None = "fts_ts",
) -> str:
    """One finger per stroke, strokes one after another (B also lifts with ffffffff)."""
    lines: list[str] = []
    if device and announce:
        lines += [f"add device 1: {device}", f'  name:     "{announce}"']

    def emit(t: float, type_: int, code: int, value: int) -> None:
        lines.append(_line(t, device, type_, code, value, labels, old_time))

    tracking = 100
    for stroke in strokes:
        for index, (x, y, t) in enumerate(stroke):
            if protocol == "B":
                if index == 0:
                    emit(t, 3, 0x39, tracking)
                    tracking += 1
                emit(t, 3, 0x35, x)
                emit(t, 3, 0x36, y)
                emit(t, 3, 0x3A, 40)
            elif protocol == "A":
                emit(t, 3, 0x35, x)
                emit(t, 3, 0x36, y)
                emit(t, 0, 2, 0)
            else:
                if index == 0:
                    emit(t, 1, 0x14A, 1)
                emit(t, 3, 0x00, x)
                emit(t, 3, 0x01, y)
            emit(t, 0, 0, 0)
        t_up = stroke[-1][2] + 0.008
        if protocol == "B":
            emit(t_up, 3, 0x39, -1)
        elif protocol == "A":
            emit(t_up, 0, 2, 0)
        else:
            emit(t_up, 1, 0x14A, 0)
        emit(t_up, 0, 0, 0)
    return "\n".join(lines) + "\n"


def line_stroke(
    start: tuple[int, int], end: tuple[int, int], t0: float, duration_s: float, hz: float = 120.0
) -> list[Sample]:
    """A straight finger move sampled at the panel's report rate."""
    count = max(2, int(duration_s * hz) + 1)
    return [
        (
            round(start[0] + (end[0] - start[0]) * i / (count - 1)),
            round(start[1] + (end[1] - start[1]) * i / (count - 1)),
            t0 + duration_s * i / (count - 1),
        )
        for i in range(count)
    ]
