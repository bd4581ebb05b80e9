"""Step-based phone tasks: 21 step kinds, validated before anything touches the phone.

A task is a JSON list of steps, each `{"kind": ..., <parameters>}`. Unknown kinds, unknown
keys, missing parameters and out-of-range values are refused with the step's position.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from rlauto_core.errors import RlautoError
from rlauto_core.gesture.model import Gesture

MAX_STEPS = 500
Timeout = Annotated[float, Field(gt=0, le=300, description="seconds")]
Coordinate = Annotated[float, Field(ge=0, le=100_000, description="pixels; below 1 a fraction of the screen")]
_PACKAGE = r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$"
KEY_NAMES = frozenset(
    {
        "home", "back", "left", "right", "up", "down", "center", "menu", "search", "enter",
        "delete", "del", "recent", "volume_up", "volume_down", "volume_mute", "camera", "power",
    }
)  # fmt: skip


class StepError(RlautoError):
    """A task's steps are invalid: `file` names the task, `problem` the step and the fix."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class Selector(BaseModel):
    """How to find one UI element: uiautomator fields, or an xpath alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Field names are uiautomator's own, so a selector copied from its inspector just works.
    text: str | None = Field(default=None, min_length=1)
    resourceId: str | None = Field(default=None, min_length=1)
    description: str | None = Field(default=None, min_length=1)
    className: str | None = Field(default=None, min_length=1)
    xpath: str | None = Field(default=None, min_length=1)
    instance: int | None = Field(default=None, ge=0, le=1000, description="the n-th match, from 0")

    @model_validator(mode="after")
    def _one_way_to_find(self) -> Selector:
        fields = [self.text, self.resourceId, self.description, self.className]
        if self.xpath is not None and (any(f is not None for f in fields) or self.instance is not None):
            raise ValueError("xpath cannot be combined with other selector fields")
        if self.xpath is None and all(f is None for f in fields):
            raise ValueError("give at least one of text, resourceId, description, className, xpath")
        return self

    def describe(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self.model_dump(exclude_none=True).items())


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=200, description="label shown in results")
    optional: bool = Field(default=False, description="a failure is recorded and the task goes on")


class _Target(_Step):
    """A step that acts on an element (selector) or on a point (x, y): exactly one of them."""

    selector: Selector | None = None
    x: Coordinate | None = None
    y: Coordinate | None = None
    timeout_s: Timeout = 10.0

    @model_validator(mode="after")
    def _element_or_point(self) -> _Target:
        point = (self.x is not None) + (self.y is not None)
        if point == 1:
            raise ValueError("give both x and y")
        if (self.selector is None) == (point == 0):
            raise ValueError("give either a selector or x and y, not both")
        return self


class AppStart(_Step):
    kind: Literal["app_start"]
    package: str = Field(pattern=_PACKAGE)
    activity: str | None = Field(default=None, min_length=1)
    stop_first: bool = False


class AppStop(_Step):
    kind: Literal["app_stop"]
    package: str = Field(pattern=_PACKAGE)


class Click(_Step):
    kind: Literal["click"]
    selector: Selector
    timeout_s: Timeout = 10.0


class ClickXY(_Step):
    kind: Literal["click_xy"]
    x: Coordinate
    y: Coordinate


class LongClick(_Target):
    kind: Literal["long_click"]
    duration_s: float = Field(default=1.0, ge=0.1, le=30)


class DoubleClick(_Target):
    kind: Literal["double_click"]


class InputText(_Step):
    kind: Literal["input_text"]
    text: str = Field(max_length=10_000)
    selector: Selector | None = Field(default=None, description="focus this field first")
    clear: bool = False
    timeout_s: Timeout = 10.0


class ClearText(_Step):
    kind: Literal["clear_text"]
    selector: Selector | None = None
    timeout_s: Timeout = 10.0


class Swipe(_Step):
    kind: Literal["swipe"]
    direction: Literal["up", "down", "left", "right"]
    scale: float = Field(default=0.6, gt=0, le=1, description="share of the screen the finger travels")
    duration_s: float = Field(default=0.3, ge=0.05, le=10)


class GestureStep(_Step):
    """A recorded gesture, replayed as recorded (one device call), never re-shaped."""

    kind: Literal["gesture"]
    gesture: Gesture


class PressKey(_Step):
    kind: Literal["press_key"]
    key: str | int

    @model_validator(mode="after")
    def _known_key(self) -> PressKey:
        if isinstance(self.key, int):
            if not 0 <= self.key <= 400:
                raise ValueError("key code must be between 0 and 400")
        elif self.key.lower() not in KEY_NAMES:
            raise ValueError(f"unknown key {self.key!r}: use a key code or one of {sorted(KEY_NAMES)}")
        return self


class Wait(_Step):
    kind: Literal["wait"]
    seconds: float = Field(ge=0, le=600)


class WaitElement(_Step):
    kind: Literal["wait_element"]
    selector: Selector
    timeout_s: Timeout = 10.0


class WaitGone(_Step):
    kind: Literal["wait_gone"]
    selector: Selector
    timeout_s: Timeout = 10.0


class AssertExists(_Step):
    kind: Literal["assert_exists"]
    selector: Selector
    timeout_s: Timeout = 5.0


class AssertText(_Step):
    kind: Literal["assert_text"]
    selector: Selector
    expected: str
    match: Literal["equals", "contains", "regex"] = "equals"
    timeout_s: Timeout = 5.0

    @model_validator(mode="after")
    def _valid_regex(self) -> AssertText:
        if self.match == "regex":
            try:
                re.compile(self.expected)
            except re.error as exc:
                raise ValueError(f"expected is not a valid regex: {exc}") from None
        return self


class Screenshot(_Step):
    kind: Literal["screenshot"]
    label: str = Field(default="screenshot", pattern=r"^[\w.-]{1,80}$")


class ScrollTo(_Step):
    kind: Literal["scroll_to"]
    selector: Selector
    direction: Literal["up", "down", "left", "right"] = "up"
    max_swipes: int = Field(default=10, ge=1, le=50)


class Shell(_Step):
    kind: Literal["shell"]
    command: str = Field(min_length=1, max_length=4000)
    timeout_s: Timeout = 30.0
    expect_exit_code: int | None = Field(default=0, description="None accepts any exit code")

    @model_validator(mode="after")
    def _one_line(self) -> Shell:
        if "\n" in self.command or "\r" in self.command:
            raise ValueError("command must be one line")
        return self


class KeepScreen(_Step):
    kind: Literal["keep_screen"]
    on: bool = True


class OpenUrl(_Step):
    kind: Literal["open_url"]
    url: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9+.-]*://\S+$", max_length=4000)


Step = Annotated[
    AppStart
    | AppStop
    | Click
    | ClickXY
    | LongClick
    | DoubleClick
    | InputText
    | ClearText
    | Swipe
    | GestureStep
    | PressKey
    | Wait
    | WaitElement
    | WaitGone
    | AssertExists
    | AssertText
    | Screenshot
    | ScrollTo
    | Shell
    | KeepScreen
    | OpenUrl,
    Field(discriminator="kind"),
]
STEP_KINDS = (
    "app_start", "app_stop", "click", "click_xy", "long_click", "double_click", "input_text",
    "clear_text", "swipe", "gesture", "press_key", "wait", "wait_element", "wait_gone",
    "assert_exists", "assert_text", "screenshot", "scroll_to", "shell", "keep_screen", "open_url",
)  # fmt: skip
_STEP: TypeAdapter[Step] = TypeAdapter(Step)


def _explain(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"][1:])  # loc[0] is the kind's model
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    elif first["type"] == "missing":
        message = "missing required parameter"
    suffix = f" (+{error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{where}: {message}{suffix}" if where else f"{message}{suffix}"


def parse_steps(data: Any, file: str = "steps") -> list[Step]:
    """Validate a task's steps (a list, or its JSON text); the first problem is the error."""
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise StepError(file, f"not JSON: {exc}") from None
    if isinstance(data, dict) and set(data) == {"steps"}:
        data = data["steps"]
    if not isinstance(data, list):
        raise StepError(file, f"expected a list of steps, got {type(data).__name__}")
    if not data:
        raise StepError(file, "no steps")
    if len(data) > MAX_STEPS:
        raise StepError(file, f"{len(data)} steps: at most {MAX_STEPS}")
    steps: list[Step] = []
    for position, raw in enumerate(data, start=1):
        if isinstance(raw, BaseModel):
            raw = raw.model_dump()
        if not isinstance(raw, dict):
            raise StepError(file, f"step {position}: expected an object, got {type(raw).__name__}")
        kind = raw.get("kind")
        if kind not in STEP_KINDS:
            known = ", ".join(STEP_KINDS)
            raise StepError(file, f"step {position}: unknown kind {kind!r} (known: {known})")
        try:
            steps.append(_STEP.validate_python(raw))
        except ValidationError as exc:
            raise StepError(file, f"step {position} ({kind}): {_explain(exc)}") from None
    return steps
