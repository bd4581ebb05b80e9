"""Input events of one touchscreen to finger strokes (protocol A, B or single touch).

Events are grouped into frames (up to SYN_REPORT); each frame becomes contact changes
(down / move / up per finger), and a `StrokeBuilder` turns the primary finger's
down..up into one `Stroke`, keeping the other fingers' paths beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlauto_core.gesture.getevent import (
    ABS_MT_POSITION_X,
    ABS_MT_POSITION_Y,
    ABS_MT_SLOT,
    ABS_MT_TRACKING_ID,
    ABS_X,
    ABS_Y,
    BTN_TOUCH,
    EV_ABS,
    EV_KEY,
    EV_SYN,
    SYN_DROPPED,
    SYN_MT_REPORT,
    SYN_REPORT,
    InputEvent,
)
from rlauto_core.gesture.model import Protocol

RawPoint = tuple[int, int, float]  # raw x, raw y, seconds (device clock)
HOLD_MS = 16.0
_MT_CODES = frozenset({ABS_MT_SLOT, ABS_MT_TRACKING_ID, ABS_MT_POSITION_X, ABS_MT_POSITION_Y})
_MAX_SLOTS = 64
_MAX_FRAME = 4096  # events without a SYN_REPORT: a real frame has a few dozen


@dataclass
class Stroke:
    """The primary finger from down to up (raw units), and any other finger meanwhile."""

    points: list[RawPoint]
    others: list[list[RawPoint]] = field(default_factory=list)
    lifted: bool = True


@dataclass
class _Slot:
    x: int | None = None
    y: int | None = None
    tracking_id: int | None = None
    seen: bool = False


class StrokeBuilder:
    """Primary finger = the first one down when no finger is down; its up ends the stroke."""

    def __init__(self) -> None:
        self.strokes: list[Stroke] = []
        self._primary: object | None = None
        self._points: list[RawPoint] = []
        self._others: dict[object, list[RawPoint]] = {}

    def down(self, finger: object, x: int, y: int, t: float) -> None:
        if self._primary is None:
            self._primary, self._points, self._others = finger, [(x, y, t)], {}
        elif finger != self._primary:
            self._others[finger] = [(x, y, t)]

    def move(self, finger: object, x: int, y: int, t: float) -> None:
        if finger == self._primary:
            last_x, last_y, last_t = self._points[-1]
            if (x, y) == (last_x, last_y):
                return
            # No report means the finger stood still: keep the hold instead of smearing it.
            if (t - last_t) * 1000 > 2 * HOLD_MS:
                self._points.append((last_x, last_y, t - HOLD_MS / 1000))
            self._points.append((x, y, t))
        elif finger in self._others:
            self._others[finger].append((x, y, t))

    def up(self, finger: object, t: float) -> None:
        if finger != self._primary:
            return
        x, y, last_t = self._points[-1]
        if t > last_t:
            self._points.append((x, y, t))
        self._close(lifted=True)

    def finish(self) -> None:
        if self._primary is not None:
            self._close(lifted=False)

    def _close(self, lifted: bool) -> None:
        self.strokes.append(Stroke(self._points, list(self._others.values()), lifted))
        self._primary, self._points, self._others = None, [], {}


class TouchDecoder:
    """Feeds one device's events; detects the protocol from what the frames contain."""

    def __init__(self) -> None:
        self.builder = StrokeBuilder()
        self.protocol: Protocol | None = None
        self.touch_events = 0
        self._frame: list[InputEvent] = []
        self._last_t = 0.0
        self._dropping = False
        # protocol B state
        self._slots: dict[int, _Slot] = {}
        self._slot = 0
        self._active_b: set[int] = set()
        # protocol A state
        self._active_a: dict[object, tuple[int, int]] = {}
        # single touch state
        self._st_x: int | None = None
        self._st_y: int | None = None
        self._st_down = False

    def feed(self, event: InputEvent) -> None:
        if event.type == EV_SYN:
            if event.code == SYN_REPORT:
                t = max(event.time_s, self._last_t)
                self._last_t = t
                if self._dropping:
                    self._dropping = False  # the kernel resynced: drop the torn frame
                    self._frame = []
                    return
                self._apply(self._frame, t)
                self._frame = []
                return
            if event.code == SYN_DROPPED:
                self._dropping = True
                return
        if len(self._frame) >= _MAX_FRAME:
            self._dropping = True  # no frame end in sight: drop it like the kernel would
            self._frame = []
        self._frame.append(event)

    def finish(self) -> list[Stroke]:
        self.builder.finish()
        return self.builder.strokes

    def _apply(self, frame: list[InputEvent], t: float) -> None:
        if not frame:
            return
        has_mt_report = has_mt = False
        for e in frame:
            if e.type == EV_ABS:
                if e.code in _MT_CODES:
                    has_mt = True
            elif e.type == EV_SYN and e.code == SYN_MT_REPORT:
                has_mt_report = True
        if has_mt_report or self.protocol == "A":
            if self.protocol in (None, "single"):
                self.protocol = "A"
            if self.protocol == "A":
                self._apply_a(frame, t)
        elif has_mt:
            if self.protocol in (None, "single"):
                self.protocol = "B"
            if self.protocol == "B":
                self._apply_b(frame, t)
        elif self.protocol in (None, "single"):
            self._apply_single(frame, t)

    def _apply_b(self, frame: list[InputEvent], t: float) -> None:
        touched: set[int] = set()
        for e in frame:
            if e.type != EV_ABS:
                continue
            if e.code == ABS_MT_SLOT:
                if 0 <= e.value < _MAX_SLOTS:
                    self._slot = e.value
                continue
            slot = self._slots.setdefault(self._slot, _Slot())
            if e.code == ABS_MT_TRACKING_ID:
                self.touch_events += 1
                slot.seen = True
                if e.value < 0:
                    if self._slot in self._active_b:  # a lift without a down is ignored
                        self._active_b.discard(self._slot)
                        self.builder.up(("B", self._slot), t)
                    slot.tracking_id = None
                else:
                    if self._slot in self._active_b and slot.tracking_id != e.value:
                        self._active_b.discard(self._slot)  # a new id in a busy slot ends the old finger
                        self.builder.up(("B", self._slot), t)
                    slot.tracking_id = e.value
                    touched.add(self._slot)
            elif e.code in (ABS_MT_POSITION_X, ABS_MT_POSITION_Y):
                self.touch_events += 1
                if e.code == ABS_MT_POSITION_X:
                    slot.x = e.value
                else:
                    slot.y = e.value
                if not slot.seen:
                    # Recording began mid-touch: a finger with no tracking id yet is down.
                    slot.seen = True
                    slot.tracking_id = -2
                touched.add(self._slot)
        for index in sorted(touched):
            slot = self._slots[index]
            if slot.tracking_id is None or slot.x is None or slot.y is None:
                continue
            if index in self._active_b:
                self.builder.move(("B", index), slot.x, slot.y, t)
            else:
                self._active_b.add(index)
                self.builder.down(("B", index), slot.x, slot.y, t)

    def _apply_a(self, frame: list[InputEvent], t: float) -> None:
        contacts: dict[object, tuple[int, int]] = {}
        x: int | None = None
        y: int | None = None
        tracking: int | None = None
        for e in frame:
            if e.type == EV_ABS:
                if e.code == ABS_MT_POSITION_X:
                    x = e.value
                elif e.code == ABS_MT_POSITION_Y:
                    y = e.value
                elif e.code == ABS_MT_TRACKING_ID:
                    tracking = e.value
            elif e.type == EV_SYN and e.code == SYN_MT_REPORT:
                if x is not None and y is not None and (tracking is None or tracking >= 0):
                    # Without tracking ids the report order is the only identity protocol A has.
                    key: object = ("A", tracking) if tracking is not None else ("A#", len(contacts))
                    contacts[key] = (x, y)
                    self.touch_events += 1
                x = y = tracking = None
        for key in [k for k in self._active_a if k not in contacts]:
            del self._active_a[key]
            self.builder.up(key, t)
        for key, (cx, cy) in contacts.items():
            if key in self._active_a:
                self.builder.move(key, cx, cy, t)
            else:
                self.builder.down(key, cx, cy, t)
            self._active_a[key] = (cx, cy)

    def _apply_single(self, frame: list[InputEvent], t: float) -> None:
        button: int | None = None
        moved = False
        for e in frame:
            if e.type == EV_ABS and e.code in (ABS_X, ABS_Y):
                if e.code == ABS_X:
                    self._st_x = e.value
                else:
                    self._st_y = e.value
                moved = True
            elif e.type == EV_KEY and e.code == BTN_TOUCH and e.value in (0, 1):
                button = e.value
        if not moved and button is None:
            return
        self.protocol = "single"
        self.touch_events += 1
        if button == 0:
            if self._st_down:
                self._st_down = False
                self.builder.up("ST", t)
            return
        if self._st_x is None or self._st_y is None:
            return
        if self._st_down:
            self.builder.move("ST", self._st_x, self._st_y, t)
        elif button == 1:
            self._st_down = True
            self.builder.down("ST", self._st_x, self._st_y, t)
