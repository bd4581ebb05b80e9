"""Thinning and the one-call replay, as properties over arbitrary paths."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlauto_core.gesture import Gesture, GestureError, Screen, replay_plan, swipe_call, thin
from rlauto_core.gesture.timing import THIN_MS
from rlauto_core.steps import parse_steps, run_steps
from tests.fakes.phone import RecordingPhone


@st.composite
def paths(draw: st.DrawFn, min_size: int = 1) -> list[tuple[int, int, float]]:
    gaps = draw(st.lists(st.floats(0, 200, allow_nan=False), min_size=min_size - 1, max_size=300))
    xs = draw(st.lists(st.integers(0, 1079), min_size=len(gaps) + 1, max_size=len(gaps) + 1))
    ys = draw(st.lists(st.integers(0, 2339), min_size=len(gaps) + 1, max_size=len(gaps) + 1))
    t = 0.0
    times = [t]
    for gap in gaps:
        t += gap
        times.append(round(t, 3))
    return list(zip(xs, ys, times, strict=True))


@settings(deadline=None)  # timing-free: a loaded CI machine must not fail a pure property
@given(paths())
def test_thinning_keeps_the_ends_spacing_and_order(points: list[tuple[int, int, float]]) -> None:
    kept = thin(points)
    assert kept[0] == points[0] and kept[-1] == points[-1]
    times = [p[2] for p in kept]
    assert times == sorted(times)
    assert all(p in points for p in kept)
    if points[-1][2] - points[0][2] >= THIN_MS:
        assert all(b - a >= THIN_MS for a, b in itertools.pairwise(times))
    elif len(points) >= 2:
        assert kept == [points[0], points[-1]]  # shorter than one interval: just the ends


@settings(deadline=None)
@given(paths(min_size=2))
def test_one_call_reproduces_the_recorded_duration_within_5_percent(points: list[tuple[int, int, float]]) -> None:
    gesture = Gesture(points=thin(points), screen=Screen(width=1080, height=2340))
    call = swipe_call(gesture)
    duration = gesture.duration_ms
    if duration > 0:
        # one 5 ms injection step is the finest the device can do
        assert abs(call.duration_ms - duration) <= max(0.05 * duration, 2.5) or call.duration_ms == 5
        assert call.points[0] == (round(points[0][0]), round(points[0][1]))
        assert call.points[-1] == (round(points[-1][0]), round(points[-1][1]))
        if len(call.points) > 2:
            assert call.interval_ms >= THIN_MS
    else:
        assert call.fallback and len(call.points) == 2


@settings(max_examples=50, deadline=None)
@given(st.lists(paths(), min_size=1, max_size=8))
def test_the_replay_plan_makes_exactly_one_device_call_per_gesture(
    recorded: list[list[tuple[int, int, float]]],
) -> None:
    gestures = [Gesture(points=thin(p)) for p in recorded]
    assert len(replay_plan(gestures)) == len(gestures)
    steps = parse_steps([{"kind": "gesture", "gesture": g.model_dump()} for g in gestures])
    phone = RecordingPhone()
    report = run_steps(phone, steps)
    assert report.ok
    motion = [name for name in phone.names() if name not in ("wake", "screen")]
    assert motion == ["swipe_points"] * len(gestures)
    assert len(report.replays) == len(gestures)


def test_fewer_than_two_points_falls_back_to_a_straight_line() -> None:
    tap = swipe_call(Gesture(points=[(10, 20, 0)]))
    assert tap.fallback and tap.points == [(10, 20), (10, 20)] and tap.duration_ms == 100
    instant = swipe_call(Gesture(points=[(10, 20, 5), (300, 400, 5)]))
    assert instant.fallback and instant.points == [(10, 20), (300, 400)]


def test_a_605_ms_web_drag_replays_as_one_uniform_call() -> None:
    # 14 points over 605 ms, as the seed's headless-browser check recorded
    points = [(100 + i * 30, 900 - i * 20, round(i * 605 / 13)) for i in range(14)]
    call = swipe_call(Gesture(points=points, source="web"))
    assert call.duration_ms == 600 and call.interval_ms == 20 and len(call.points) == 31
    with pytest.raises(GestureError, match="nothing to replay"):
        replay_plan([])


def test_gesture_model_rejects_time_going_back_and_points_off_screen() -> None:
    with pytest.raises(ValueError, match="goes back in time"):
        Gesture(points=[(1, 1, 0), (2, 2, 50), (3, 3, 40)])
    with pytest.raises(ValueError, match="outside the screen"):
        Gesture(points=[(1, 1, 0), (2000, 2, 50)], screen=Screen(width=1080, height=2340))
    shifted = Gesture(points=[(1, 1, 120), (2, 2, 170)])
    assert shifted.points[0][2] == 0 and shifted.duration_ms == 50
    assert Screen(width=2340, height=1080, rotation=90).rotation == 1
