"""Records gestures from the phone's real touchscreen by streaming `getevent`.

`getevent -lp` picks the touchscreen (synthetic nodes excluded: injected events never
show up on the real panel, so only a person's finger is recorded); then
`getevent -lt <panel>` is read through adbutils' shell stream until the time is up or
`should_stop()` says so, and the stream is closed, which ends getevent on the phone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import adbutils

from device_flows.phone import screen_of, wake
from rlauto_core.gesture import GestureError, TouchTrace, TraceReader, choose_touchscreen, parse_capabilities
from rlauto_core.steps import PhoneError

POLL_S = 0.2


def record_trace(
    device: adbutils.AdbDevice,
    seconds: float,
    should_stop: Callable[[], bool] = lambda: False,
    on_line: Callable[[int], None] | None = None,
) -> TouchTrace:
    """Record for at most `seconds`; `should_stop` is polled every 0.2 s."""
    serial = device.serial or "device"
    wake(device)  # a dark panel may not report touches at all
    screen = screen_of(device)
    caps_file = f"getevent -lp on {serial}"
    caps = parse_capabilities(device.shell("getevent -lp"), caps_file)
    panel = choose_touchscreen(caps, caps_file)
    reader = TraceReader(f"getevent on {serial} {panel.path}")
    stream = device.shell(["getevent", "-lt", panel.path], stream=True)
    stream.conn.settimeout(POLL_S)
    pending = b""
    started = time.monotonic()
    deadline = started + seconds
    try:
        while time.monotonic() < deadline and not should_stop():
            try:
                chunk = stream.conn.recv(65536)
            except TimeoutError:
                continue
            except OSError as exc:
                raise PhoneError(f"device {serial}: getevent stream broke: {exc}") from None
            if not chunk:
                break  # the phone hung up (unplugged, rebooted)
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                reader.feed(line.decode("utf-8", "replace"))
            if on_line is not None:
                on_line(reader.lines)
    finally:
        stream.close()
    if pending:
        reader.feed(pending.decode("utf-8", "replace"))
    if reader.events == 0:
        waited = min(seconds, time.monotonic() - started)
        raise GestureError(reader.file, f"no touch in {waited:.1f}s: nobody touched the screen")
    trace = reader.result([panel], screen, caps_file)
    for gesture in trace.gestures:
        gesture.device["serial"] = serial
    return trace
