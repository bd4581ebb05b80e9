"""A whole getevent trace (text or streamed lines) to the gestures of the real touchscreen."""

from __future__ import annotations

from pydantic import ValidationError

from rlauto_core.gesture.capabilities import choose_touchscreen, is_synthetic, parse_capabilities
from rlauto_core.gesture.geometry import PixelMapper, mapper_for
from rlauto_core.gesture.getevent import (
    ABS_MT_POSITION_X,
    ABS_MT_POSITION_Y,
    ABS_X,
    ABS_Y,
    DeviceName,
    InputEvent,
    parse_line,
)
from rlauto_core.gesture.model import Gesture, GestureError, InputDevice, Point, Screen, TouchTrace
from rlauto_core.gesture.timing import thin
from rlauto_core.gesture.touch import RawPoint, Stroke, TouchDecoder

MAX_LINE = 4096


class TraceReader:
    """Feed lines as they come (a live `getevent` stream or a file); one decoder per device."""

    def __init__(self, file: str = "trace") -> None:
        self.file = file
        self.lines = 0
        self.skipped = 0
        self.events = 0
        self.names: dict[str | None, str] = {}
        self.decoders: dict[str | None, TouchDecoder] = {}
        self._announced: str | None = None

    def feed(self, line: str) -> None:
        self.lines += 1
        if len(line) > MAX_LINE:
            self.skipped += 1
            return
        item = parse_line(line)
        if isinstance(item, InputEvent):
            self.events += 1
            decoder = self.decoders.get(item.device)
            if decoder is None:
                decoder = self.decoders[item.device] = TouchDecoder()
            decoder.feed(item)
        elif isinstance(item, DeviceName):
            if self._announced is not None:
                self.names[self._announced] = item.name
        elif isinstance(item, str):
            self._announced = item
        elif line.strip():
            self.skipped += 1

    def feed_text(self, text: str) -> None:
        for line in text.splitlines():
            self.feed(line)

    def result(
        self,
        caps: list[InputDevice] | None = None,
        screen: Screen | None = None,
        caps_file: str = "capabilities",
    ) -> TouchTrace:
        """The chosen touchscreen's gestures; pixels when caps or a screen say how."""
        if self.events == 0:
            raise GestureError(
                self.file,
                f"no input events in {self.lines} lines: expected `getevent -lt` or `getevent -t` output",
            )
        device_path, decoder = self._pick(caps, caps_file)
        if decoder.protocol is None:
            raise GestureError(self.file, f"no touch events from {device_path or 'the device'}")
        device = _device_info(caps, device_path, self.names.get(device_path, ""))
        axes = (ABS_X, ABS_Y) if decoder.protocol == "single" else (ABS_MT_POSITION_X, ABS_MT_POSITION_Y)
        ranges = device.abs_ranges if device is not None else {}
        mapper = mapper_for(ranges.get(axes[0]), ranges.get(axes[1]), screen)
        gestures = []
        for number, stroke in enumerate(decoder.finish(), start=1):
            try:
                gestures.append(_gesture(stroke, mapper, device, decoder.protocol))
            except ValidationError as exc:
                problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
                raise GestureError(self.file, f"gesture {number}: {problem}") from None
        return TouchTrace(
            device=device,
            protocol=decoder.protocol,
            gestures=gestures,
            in_pixels=mapper is not None,
            skipped_lines=self.skipped,
        )

    def _pick(self, caps: list[InputDevice] | None, caps_file: str) -> tuple[str | None, TouchDecoder]:
        if caps is not None:
            chosen = choose_touchscreen(caps, caps_file)
            if chosen.path in self.decoders:
                return chosen.path, self.decoders[chosen.path]
            if set(self.decoders) == {None}:  # `getevent -lt /dev/input/eventN`: no prefix
                return chosen.path, self.decoders[None]
            seen = ", ".join(sorted(str(d) for d in self.decoders))
            raise GestureError(
                self.file, f"no events from the touchscreen {chosen.path} ({chosen.name}); trace has {seen}"
            )
        usable = {
            path: decoder
            for path, decoder in self.decoders.items()
            if decoder.touch_events and not is_synthetic(self.names.get(path, ""))
        }
        if not usable:
            raise GestureError(self.file, "no touch events from any real touchscreen in the trace")
        # Several touch nodes and no caps: the one a finger used most is the panel.
        path = max(usable, key=lambda p: (usable[p].protocol != "single", usable[p].touch_events))
        return path, usable[path]


def _device_info(caps: list[InputDevice] | None, path: str | None, name: str) -> InputDevice | None:
    if caps is not None:
        for device in caps:
            if device.path == path:
                return device
    if path is None and not name:
        return None
    return InputDevice(path=path or "", name=name)


def _convert(points: list[RawPoint], t0: float, mapper: PixelMapper | None) -> list[Point]:
    converted: list[Point] = []
    for raw_x, raw_y, t in points:
        t_ms = round((t - t0) * 1000)
        if mapper is None:
            converted.append((raw_x, raw_y, t_ms))
        else:
            px, py = mapper(raw_x, raw_y)
            converted.append((px, py, t_ms))
    return converted


def _gesture(stroke: Stroke, mapper: PixelMapper | None, device: InputDevice | None, protocol: str) -> Gesture:
    t0 = stroke.points[0][2]
    info: dict[str, object] = {"protocol": protocol, "lifted": stroke.lifted}
    if device is not None:
        info.update(path=device.path, name=device.name)
    return Gesture(
        points=thin(_convert(stroke.points, t0, mapper)),
        screen=mapper.screen if mapper is not None else None,
        source="phone",
        device=info,
        other_fingers=[thin(_convert(path, t0, mapper)) for path in stroke.others],
    )


def parse_trace(
    text: str,
    caps_text: str | None = None,
    screen: Screen | None = None,
    file: str = "trace",
    caps_file: str = "capabilities",
) -> TouchTrace:
    """Parse a saved trace (and optionally its `getevent -lp` dump) into gestures."""
    caps = parse_capabilities(caps_text, caps_file) if caps_text is not None else None
    reader = TraceReader(file)
    reader.feed_text(text)
    return reader.result(caps, screen, caps_file)
