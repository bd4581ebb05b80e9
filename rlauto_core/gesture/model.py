"""The recorded Gesture (formats.md section 4) and the small models around it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rlauto_core.errors import RlautoError

Number = int | float
Point = tuple[Number, Number, Number]
"""One sample of a finger: x, y (pixels, or raw units when no geometry is known) and t_ms."""

Protocol = Literal["A", "B", "single"]


class GestureError(RlautoError):
    """A trace, capability dump or gesture cannot be used: `file` names it, `problem` says why."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class Screen(BaseModel):
    """The display the points refer to: size in pixels as seen in `rotation` (quarter turns)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    width: int = Field(gt=0, le=100_000)
    height: int = Field(gt=0, le=100_000)
    rotation: int = 0

    @field_validator("rotation", mode="before")
    @classmethod
    def _quarter_turns(cls, value: Any) -> Any:
        # Android reports quarter turns (Surface.ROTATION_*); people often write degrees.
        if value in (90, 180, 270):
            return value // 90
        if value not in (0, 1, 2, 3):
            raise ValueError("rotation must be 0, 1, 2, 3 (quarter turns) or 90, 180, 270 (degrees)")
        return value

    @property
    def natural_size(self) -> tuple[int, int]:
        """Width and height of the panel in its natural orientation (where raw axes live)."""
        if self.rotation % 2:
            return self.height, self.width
        return self.width, self.height


class Gesture(BaseModel):
    """A recorded touch path replayed as-is: points `[x, y, t_ms]`, t from the first touch."""

    model_config = ConfigDict(extra="forbid")

    points: list[Point] = Field(min_length=1, max_length=200_000)
    screen: Screen | None = None
    source: Literal["phone", "web"] = "phone"
    device: dict[str, Any] = Field(default_factory=dict)
    other_fingers: list[list[Point]] = Field(
        default_factory=list, description="paths of fingers that touched while the primary one was down"
    )

    @field_validator("points")
    @classmethod
    def _time_runs_forward(cls, points: list[Point]) -> list[Point]:
        if any(not all(abs(v) < 1e9 for v in p) for p in points):
            raise ValueError("point coordinates and times must be finite numbers below 1e9")
        t0 = points[0][2]
        previous = t0
        for index, (_, _, t) in enumerate(points):
            if t < previous:
                raise ValueError(f"point {index}: t_ms {t:g} goes back in time (previous {previous:g})")
            previous = t
        if t0 != 0:
            # The contract counts t_ms from the first touch; web recorders often start later.
            return [(x, y, t - t0) for x, y, t in points]
        return points

    @model_validator(mode="after")
    def _inside_screen(self) -> Gesture:
        if self.screen is None:
            return self
        for index, (x, y, _) in enumerate(self.points):
            if not (0 <= x <= self.screen.width and 0 <= y <= self.screen.height):
                raise ValueError(
                    f"point {index} ({x:g}, {y:g}) is outside the screen ({self.screen.width}x{self.screen.height})"
                )
        return self

    @property
    def duration_ms(self) -> float:
        return self.points[-1][2] - self.points[0][2]


class InputDevice(BaseModel):
    """One `/dev/input/eventN` node as a `getevent -p`/`-lp` dump describes it."""

    path: str
    name: str = ""
    keys: frozenset[int] = frozenset()
    abs_ranges: dict[int, tuple[int, int]] = Field(default_factory=dict)
    props: frozenset[int] | None = Field(default=None, description="None when the dump has no props")


class TouchTrace(BaseModel):
    """What a getevent trace yields: the touchscreen used, its protocol and the gestures."""

    device: InputDevice | None
    protocol: Protocol
    gestures: list[Gesture]
    in_pixels: bool
    skipped_lines: int = 0
