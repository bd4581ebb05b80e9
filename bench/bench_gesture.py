"""Gesture pipeline benchmark: parse + thin + resample a 100k-line getevent trace.

Prints, all measured in this run:
- time of the pipeline vs a plain line split of the same text (the ratio is the figure);
- device calls per gesture when the gestures are replayed through the real uiautomator2
  client against the fake ADB server (must be 1);
- the replayed duration's error vs the recorded one (target <= 5%).

Run: python bench/bench_gesture.py
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rlauto_core.gesture import Screen, parse_trace, replay_plan
from rlauto_core.steps import parse_steps, run_steps
from tests.fakes.getevent_writer import CAPS_LP, line_stroke, write_trace

LINES = 100_000


def build_trace(lines: int) -> str:
    """Swipes of 80 ms to 2 s at 120 Hz on the 4320x9360 panel, until `lines` lines."""
    rng = random.Random(7)
    strokes = []
    t = 100.0
    text = ""
    while text.count("\n") < lines:
        for _ in range(50):
            duration = rng.uniform(0.08, 2.0)
            start = (rng.randrange(200, 4100), rng.randrange(200, 9100))
            end = (rng.randrange(200, 4100), rng.randrange(200, 9100))
            strokes.append(line_stroke(start, end, t, duration, hz=rng.choice([60.0, 90.0, 120.0])))
            t += duration + rng.uniform(0.2, 1.0)
        text = write_trace(strokes, "B")
    return "\n".join(text.splitlines()[:lines]) + "\n"


def best_of(runs: int, fn: object) -> float:
    assert callable(fn)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def device_calls_per_gesture(gestures: list) -> float:
    import adbutils

    from device_flows.demo import DemoAdbServer, DemoPhone
    from device_flows.phone import U2Phone

    phone = DemoPhone("bench-1", caps=CAPS_LP)
    with DemoAdbServer([phone]) as server:
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        steps = parse_steps([{"kind": "gesture", "gesture": g.model_dump()} for g in gestures])
        report = run_steps(U2Phone("bench-1", client), steps)
        assert report.ok, report.failed
    swipes = sum(1 for method, _ in phone.rpc_calls if method == "swipePoints")
    return swipes / len(gestures)


def main() -> None:
    text = build_trace(LINES)
    screen = Screen(width=1080, height=2340)

    def baseline() -> None:
        for line in text.splitlines():
            line.split()

    def pipeline() -> None:
        replay_plan(parse_trace(text, CAPS_LP, screen).gestures)

    base_s = best_of(3, baseline)
    pipe_s = best_of(3, pipeline)
    gestures = parse_trace(text, CAPS_LP, screen).gestures
    calls = replay_plan(gestures)
    errors = [
        abs(call.duration_ms - g.duration_ms) / g.duration_ms * 100
        for g, call in zip(gestures, calls, strict=True)
        if g.duration_ms >= 100
    ]
    per_gesture = device_calls_per_gesture(gestures[:40])
    print(f"trace: {LINES} lines, {len(gestures)} gestures, {sum(len(g.points) for g in gestures)} thinned points")
    print(f"plain line split:          {base_s * 1000:8.1f} ms")
    print(f"parse + thin + resample:   {pipe_s * 1000:8.1f} ms  ({pipe_s / base_s:.1f}x the split)")
    print(f"per line:                  {pipe_s / LINES * 1e6:8.2f} us")
    print(f"device calls per gesture:  {per_gesture:8.2f}  (real uiautomator2 client, fake ADB, 40 gestures)")
    print(
        f"duration error (>=100 ms): mean {statistics.mean(errors):.2f}%, "
        f"p95 {statistics.quantiles(errors, n=20)[-1]:.2f}%, max {max(errors):.2f}% (target <= 5%)"
    )


if __name__ == "__main__":
    main()
