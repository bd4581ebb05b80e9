"""The getevent parser on traces written the way Android prints them, and on hostile ones."""

from __future__ import annotations

import itertools
import time

import pytest

from rlauto_core.gesture import GestureError, Screen, choose_touchscreen, parse_capabilities, parse_trace
from rlauto_core.gesture.geometry import mapper_for
from tests.fakes.getevent_writer import CAPS_LP, CAPS_P, line_stroke, write_trace

SCREEN = Screen(width=1080, height=2340)
# Raw panel is 4320 x 9360 (4 raw units per pixel), see CAPS_LP.
STROKES = [
    line_stroke((400, 8000), (400, 2000), 50.0, 0.300),
    line_stroke((4000, 4000), (400, 4000), 51.0, 0.500),
]


@pytest.mark.parametrize("protocol", ["A", "B", "single"])
@pytest.mark.parametrize("labels", [True, False], ids=["labels", "hex"])
@pytest.mark.parametrize("device", ["/dev/input/event2", None], ids=["prefix", "no-prefix"])
@pytest.mark.parametrize("old_time", [False, True], ids=["bracket-time", "sec-usec"])
def test_every_protocol_and_print_format_gives_the_same_gestures(
    protocol: str, labels: bool, device: str | None, old_time: bool
) -> None:
    text = write_trace(STROKES, protocol, labels, device, old_time)
    trace = parse_trace(text)
    assert trace.protocol == protocol
    assert not trace.in_pixels
    assert [len(g.points) >= 2 for g in trace.gestures] == [True, True]
    first, second = trace.gestures
    assert first.points[0][:2] == (400, 8000) and first.points[-1][:2] == (400, 2000)
    assert second.points[0][:2] == (4000, 4000) and second.points[-1][:2] == (400, 4000)
    # down..up: the recorded move plus the 8 ms to the lift
    assert first.duration_ms == pytest.approx(308, abs=1)
    assert second.duration_ms == pytest.approx(508, abs=1)
    assert trace.skipped_lines == 0


def test_caps_turn_raw_units_into_pixels() -> None:
    trace = parse_trace(write_trace(STROKES, "B"), CAPS_LP)
    assert trace.in_pixels and trace.device is not None
    assert trace.device.path == "/dev/input/event2" and trace.device.name == "fts_ts"
    # caps alone: one raw unit per pixel
    assert trace.gestures[0].points[0][:2] == (400, 8000)
    assert trace.gestures[0].screen == Screen(width=4320, height=9360)
    # with the real screen: 4 raw units per pixel
    with_screen = parse_trace(write_trace(STROKES, "B"), CAPS_LP, SCREEN)
    assert with_screen.gestures[0].points[0][:2] == (100, 2000)
    assert with_screen.gestures[0].screen == SCREEN


def test_rotation_maps_the_panel_axes_onto_the_display() -> None:
    x_range, y_range = (0, 1079), (0, 2339)
    natural = mapper_for(x_range, y_range, Screen(width=1080, height=2340))
    left = mapper_for(x_range, y_range, Screen(width=2340, height=1080, rotation=1))
    upside = mapper_for(x_range, y_range, Screen(width=1080, height=2340, rotation=180))
    right = mapper_for(x_range, y_range, Screen(width=2340, height=1080, rotation=3))
    assert natural is not None and left is not None and upside is not None and right is not None
    # the panel's top-left corner (raw 0, 0)
    assert natural(0, 0) == (0, 0)
    assert left(0, 0) == (0, 1079)
    assert upside(0, 0) == (1079, 2339)
    assert right(0, 0) == (2339, 0)
    # a point near the panel's bottom (raw y large) is at the display's right when rotated left
    assert left(100, 2300)[0] > 2000


def test_touchscreen_choice_skips_synthetic_and_non_touch_nodes() -> None:
    chosen = choose_touchscreen(parse_capabilities(CAPS_LP))
    assert chosen.path == "/dev/input/event2" and chosen.name == "fts_ts"
    assert chosen.abs_ranges[0x35] == (0, 4319)
    old = choose_touchscreen(parse_capabilities(CAPS_P))
    assert old.path == "/dev/input/event2" and old.props is None
    only_keys = CAPS_LP.split("add device 3:")[0].replace("add device 1", "add device 9")
    with pytest.raises(GestureError, match="no touchscreen among 2 devices"):
        choose_touchscreen(parse_capabilities(only_keys))
    with pytest.raises(GestureError, match="no `add device` block"):
        parse_capabilities("hello\nworld\n")


def test_without_caps_the_real_panel_wins_over_an_injecting_uinput_node() -> None:
    real = write_trace(STROKES[:1], "B", device="/dev/input/event2", announce="fts_ts")
    injected = write_trace(
        [line_stroke((0, 0), (900, 900), 49.0, 2.0)], "B", device="/dev/input/event7", announce="uinput-scrcpy"
    )
    trace = parse_trace(injected + real)
    assert trace.device is not None and trace.device.path == "/dev/input/event2"
    assert len(trace.gestures) == 1
    with pytest.raises(GestureError, match="no events from the touchscreen /dev/input/event2"):
        parse_trace(injected, CAPS_LP)


B_TWO_FINGERS = """\
[   10.000000] /dev/input/event2: EV_ABS       ABS_MT_TRACKING_ID   00000010
[   10.000000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_X    00000064
[   10.000000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_Y    000000c8
[   10.000000] /dev/input/event2: EV_KEY       BTN_TOUCH            DOWN
[   10.000000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
[   10.016000] /dev/input/event2: EV_ABS       ABS_MT_SLOT          00000001
[   10.016000] /dev/input/event2: EV_ABS       ABS_MT_TRACKING_ID   00000011
[   10.016000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_X    000001f4
[   10.016000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_Y    000001f4
[   10.016000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
[   10.032000] /dev/input/event2: EV_ABS       ABS_MT_SLOT          00000000
[   10.032000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_Y    0000012c
[   10.032000] /dev/input/event2: EV_ABS       ABS_MT_SLOT          00000001
[   10.032000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_X    00000258
[   10.032000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
[   10.048000] /dev/input/event2: EV_ABS       ABS_MT_SLOT          00000000
[   10.048000] /dev/input/event2: EV_ABS       ABS_MT_TRACKING_ID   ffffffff
[   10.048000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
[   10.064000] /dev/input/event2: EV_ABS       ABS_MT_SLOT          00000001
[   10.064000] /dev/input/event2: EV_ABS       ABS_MT_POSITION_X    000002bc
[   10.064000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
[   10.080000] /dev/input/event2: EV_ABS       ABS_MT_TRACKING_ID   ffffffff
[   10.080000] /dev/input/event2: EV_KEY       BTN_TOUCH            UP
[   10.080000] /dev/input/event2: EV_SYN       SYN_REPORT           00000000
"""


def test_protocol_b_primary_finger_makes_the_gesture_and_the_second_is_kept() -> None:
    trace = parse_trace(B_TWO_FINGERS)
    assert trace.protocol == "B"
    assert len(trace.gestures) == 1  # the second finger lifting later starts nothing new
    gesture = trace.gestures[0]
    # frame 16 ms reported no move of the primary: it held still until then
    assert gesture.points == [(100, 200, 0), (100, 200, 16), (100, 300, 32), (100, 300, 48)]
    assert gesture.other_fingers == [[(500, 500, 16), (600, 500, 32)]]


A_HEX = """\
[  5.000000] 0003 0035 00000010
[  5.000000] 0003 0036 00000020
[  5.000000] 0000 0002 00000000
[  5.000000] 0000 0000 00000000
[  5.020000] 0003 0035 00000030
[  5.020000] 0003 0036 00000020
[  5.020000] 0000 0002 00000000
[  5.020000] 0003 0035 00000100
[  5.020000] 0003 0036 00000100
[  5.020000] 0000 0002 00000000
[  5.020000] 0000 0000 00000000
[  5.040000] 0000 0002 00000000
[  5.040000] 0000 0000 00000000
"""

SINGLE_LABELS = """\
1000-5: EV_KEY       BTN_TOUCH            DOWN
1000-5: EV_ABS       ABS_X                00000010
1000-5: EV_ABS       ABS_Y                00000010
1000-5: EV_SYN       SYN_REPORT           00000000
1000-40005: EV_ABS       ABS_X                00000050
1000-40005: EV_SYN       SYN_REPORT           00000000
1000-60005: EV_KEY       BTN_TOUCH            UP
1000-60005: EV_SYN       SYN_REPORT           00000000
"""


def test_protocol_a_hex_without_prefix_and_single_touch_with_old_timestamps() -> None:
    a = parse_trace(A_HEX)
    assert a.protocol == "A" and a.device is None
    assert a.gestures[0].points == [(16, 32, 0), (48, 32, 20), (48, 32, 40)]
    assert a.gestures[0].other_fingers == [[(256, 256, 20)]]
    single = parse_trace(SINGLE_LABELS)
    assert single.protocol == "single"
    # usec is printed unpadded in the old format: 1000-40005 is 1000.040005 s
    assert single.gestures[0].points == [(16, 16, 0), (16, 16, 24), (80, 16, 40), (80, 16, 60)]


def test_trace_starting_mid_touch_and_ending_with_the_finger_down() -> None:
    text = "".join(
        f"[ 3.{i * 16:03d}000] EV_ABS ABS_MT_POSITION_X {100 + i * 10:08x}\n[ 3.{i * 16:03d}000] EV_SYN SYN_REPORT 00000000\n"
        for i in range(5)
    )
    trace = parse_trace(text)
    assert len(trace.gestures) == 0  # no y ever known: nothing to place
    text = "[ 3.000000] EV_ABS ABS_MT_POSITION_Y 00000200\n" + text
    gesture = parse_trace(text).gestures[0]
    assert gesture.points[0][:2] == (100, 512) and gesture.points[-1][:2] == (140, 512)
    assert gesture.device["lifted"] is False


def test_a_long_still_hold_stays_a_hold_and_is_not_smeared() -> None:
    stroke = [(100, 100, 1.0), (100, 100, 1.0), (300, 100, 2.0), (320, 100, 2.008)]
    gesture = parse_trace(write_trace([stroke], "B")).gestures[0]
    # the finger stood at x=100 until just before it moved at t=1000 ms
    assert (100, 100, 984) in gesture.points
    assert gesture.points[-1] == (320, 100, 1016)


def test_syn_dropped_frame_is_discarded() -> None:
    lines = write_trace(STROKES[:1], "B", labels=True).splitlines()
    # tear the third frame: a dropped marker before its report
    index = next(i for i, line in enumerate(lines) if "50.016667" in line and "SYN_REPORT" in line)
    lines.insert(index, lines[index].replace("SYN_REPORT          ", "SYN_DROPPED         "))
    trace = parse_trace("\n".join(lines))
    assert len(trace.gestures) == 1
    assert all(abs(p[2] - 17) > 0.5 for p in trace.gestures[0].points)


def test_garbage_and_truncated_lines_are_skipped_and_counted() -> None:
    good = write_trace(STROKES, "B").splitlines()
    noisy = []
    for i, line in enumerate(good):
        noisy.append(line)
        if i % 7 == 0:
            noisy += ["\x00\xff garbage ☃", line[: len(line) // 2], "[ 12.5] /dev/input/event2: EV_ABS", "x" * 9000]
    trace = parse_trace("\n".join(noisy))
    assert len(trace.gestures) == 2
    assert trace.skipped_lines > 0
    assert trace.gestures[0].points[-1][:2] == (400, 2000)


def test_a_lift_without_a_down_gives_no_gesture_and_no_crash() -> None:
    text = (
        "[ 1.000000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID ffffffff\n"
        "[ 1.000000] /dev/input/event2: EV_SYN SYN_REPORT 00000000\n"
        "[ 1.100000] /dev/input/event2: EV_KEY BTN_TOUCH UP\n"
        "[ 1.100000] /dev/input/event2: EV_SYN SYN_REPORT 00000000\n"
    )
    trace = parse_trace(text)
    assert trace.protocol == "B" and trace.gestures == []


def test_absurd_values_and_endless_frames_are_clear_errors_not_crashes() -> None:
    huge = (
        "[ 1.000000] EV_ABS ABS_MT_TRACKING_ID 00000001\n"
        "[ 1.000000] EV_ABS ABS_MT_POSITION_X 7fffffff\n"
        "[ 1.000000] EV_ABS ABS_MT_POSITION_Y 7fffffff\n"
        "[ 1.000000] EV_SYN SYN_REPORT 00000000\n"
    )
    with pytest.raises(GestureError, match="gesture 1: point coordinates and times must be finite"):
        parse_trace(huge)
    assert parse_trace(huge, CAPS_LP).gestures[0].points[0][:2] == (4319, 9359)  # clamped to the panel
    endless = "[ 1.000000] EV_ABS ABS_MT_POSITION_X 00000010\n" * 20_000 + write_trace(STROKES[:1], "B", device=None)
    assert len(parse_trace(endless).gestures) == 1


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no input events in 0 lines"),
        ("hello\nworld\n" * 50, "no input events in 100 lines"),
        ("/dev/input/event2: EV_ABS ABS_MT_POSITION_X 00000010\n", "no input events"),  # no -t
        ("[ 1.0] /dev/input/event1: EV_KEY KEY_POWER DOWN\n[ 1.0] /dev/input/event1: EV_SYN SYN_REPORT 0\n",
         "no touch events from any real touchscreen"),
    ],
)  # fmt: skip
def test_unusable_traces_are_a_clear_error(text: str, problem: str) -> None:
    with pytest.raises(GestureError, match=problem) as info:
        parse_trace(text, file="t.txt")
    assert str(info.value).startswith("t.txt: ")


@pytest.mark.slow  # traces of many megabytes: about 3 s
def test_huge_traces_parse_cleanly_or_fail_clearly_in_bounded_time() -> None:
    frame = (
        "[ {t:.6f}] /dev/input/event2: EV_ABS ABS_MT_POSITION_X {x:08x}\n"
        "[ {t:.6f}] /dev/input/event2: EV_ABS ABS_MT_POSITION_Y 00000100\n"
        "[ {t:.6f}] /dev/input/event2: EV_ABS ABS_MT_PRESSURE 00000030\n"
        "[ {t:.6f}] /dev/input/event2: EV_SYN SYN_REPORT 00000000\n"
    )
    head = "[ 0.000000] /dev/input/event2: EV_ABS ABS_MT_TRACKING_ID 00000001\n"
    text = head + "".join(frame.format(t=i * 0.008, x=i % 2000) for i in range(50_000))
    started = time.monotonic()
    trace = parse_trace(text)
    assert len(trace.gestures) == 1 and trace.gestures[0].device["lifted"] is False
    points = trace.gestures[0].points
    assert all(b[2] - a[2] >= 16 for a, b in itertools.pairwise(points))
    # a million truncated event lines: every one is looked at, none is an event
    truncated = "[ 12.000000] /dev/input/event2: EV_ABS ABS_MT_POSI\n" * 1_000_000
    with pytest.raises(GestureError, match="no input events in 1000000 lines"):
        parse_trace(truncated)
    assert time.monotonic() - started < 120  # a hang guard, not a benchmark
