"""Recorded gestures: getevent traces to thinned paths, and the one call that replays each."""

from rlauto_core.gesture.capabilities import choose_touchscreen, is_synthetic, parse_capabilities
from rlauto_core.gesture.geometry import PixelMapper, mapper_for
from rlauto_core.gesture.model import Gesture, GestureError, InputDevice, Point, Screen, TouchTrace
from rlauto_core.gesture.timing import STEP_MS, SwipeCall, replay_plan, swipe_call, thin
from rlauto_core.gesture.trace import TraceReader, parse_trace

__all__ = [
    "STEP_MS",
    "Gesture",
    "GestureError",
    "InputDevice",
    "PixelMapper",
    "Point",
    "Screen",
    "SwipeCall",
    "TouchTrace",
    "TraceReader",
    "choose_touchscreen",
    "is_synthetic",
    "mapper_for",
    "parse_capabilities",
    "parse_trace",
    "replay_plan",
    "swipe_call",
    "thin",
]
