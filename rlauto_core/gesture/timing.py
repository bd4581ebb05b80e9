"""Thinning a recorded path, and the ONE `swipe_points` call that replays it.

uiautomator2's `swipe_points(points, duration)` takes `duration` per segment and injects
one step every 5 ms, so a path replays in `(len(points) - 1) * steps * 5 ms`. Resampling
the path at a uniform interval lets a single call reproduce the recorded timing: a call
per point would cost one device round trip (~190 ms measured) per point.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, Field

from rlauto_core.gesture.model import Gesture, GestureError, Point

THIN_MS = 16.0
STEP_MS = 5
MIN_STEPS = 4  # 20 ms: no closer than the 16 ms thinning
MAX_SEGMENTS = 2000
FALLBACK_MS = 100.0
DURATION_TOLERANCE = 0.04


def thin(points: Sequence[Point], min_interval_ms: float = THIN_MS) -> list[Point]:
    """Keep points at least `min_interval_ms` apart; first and last are always kept.

    The last point is what a fast flick ends on; when it is too close to the one before,
    that earlier point goes instead. A path shorter than the interval keeps both ends.
    """
    if len(points) <= 2:
        return list(points)
    kept = [points[0]]
    for point in points[1:-1]:
        if point[2] - kept[-1][2] >= min_interval_ms:
            kept.append(point)
    last = points[-1]
    while len(kept) > 1 and last[2] - kept[-1][2] < min_interval_ms:
        kept.pop()
    kept.append(last)
    return kept


class SwipeCall(BaseModel):
    """One device call: `swipe_points(points, steps * 5 ms)`."""

    points: list[tuple[int, int]] = Field(min_length=2)
    steps: int = Field(ge=1, description="5 ms injection steps per segment")
    fallback: bool = Field(default=False, description="straight line: the path had under 2 timed points")

    @property
    def interval_ms(self) -> int:
        return self.steps * STEP_MS

    @property
    def interval_s(self) -> float:
        return self.interval_ms / 1000

    @property
    def duration_ms(self) -> int:
        return (len(self.points) - 1) * self.interval_ms


def _segments(duration_ms: float) -> tuple[int, int]:
    """(segments, steps): the finest interval whose total is within 4% (or 2.5 ms) of the
    duration; failing that, the closest total. Steps are whole 5 ms units, hence the search."""
    if duration_ms < MIN_STEPS * STEP_MS:
        return 1, max(1, round(duration_ms / STEP_MS))
    low = max(MIN_STEPS, math.ceil(duration_ms / (STEP_MS * MAX_SEGMENTS)))
    tolerance = max(STEP_MS / 2, DURATION_TOLERANCE * duration_ms)
    best: tuple[float, int, int] | None = None
    for steps in range(low, low + 40):
        segments = max(1, round(duration_ms / (steps * STEP_MS)))
        error = abs(segments * steps * STEP_MS - duration_ms)
        if error <= tolerance:
            return segments, steps
        if best is None or error < best[0]:
            best = (error, segments, steps)
    assert best is not None
    return best[1], best[2]


def _position(points: Sequence[Point], t: float, start: int) -> tuple[float, float, int]:
    """Linear position at time t, searching forward from index `start` (times are sorted)."""
    index = start
    while index + 1 < len(points) - 1 and points[index + 1][2] <= t:
        index += 1
    x0, y0, t0 = points[index]
    x1, y1, t1 = points[index + 1]
    if t1 <= t0:
        return x1, y1, index
    f = min(1.0, max(0.0, (t - t0) / (t1 - t0)))
    return x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, index


def swipe_call(gesture: Gesture) -> SwipeCall:
    """The single call replaying `gesture`; a straight line when it has under 2 timed points."""
    points = gesture.points
    duration = gesture.duration_ms
    if len(points) < 2 or duration <= 0:
        first, last = points[0], points[-1]
        return SwipeCall(
            points=[(round(first[0]), round(first[1])), (round(last[0]), round(last[1]))],
            steps=max(1, round(max(duration, FALLBACK_MS) / STEP_MS)),
            fallback=True,
        )
    segments, steps = _segments(duration)
    resampled: list[tuple[int, int]] = []
    index = 0
    for i in range(segments + 1):
        t = points[0][2] + duration * i / segments
        x, y, index = _position(points, t, index)
        resampled.append((round(x), round(y)))
    return SwipeCall(points=resampled, steps=steps)


def replay_plan(gestures: Sequence[Gesture]) -> list[SwipeCall]:
    """One call per gesture, in order."""
    if not gestures:
        raise GestureError("gesture", "nothing to replay: no gesture given")
    return [swipe_call(g) for g in gestures]
