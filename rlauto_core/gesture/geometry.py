"""Raw touchscreen units to screen pixels, the way Android's input reader does it."""

from __future__ import annotations

from dataclasses import dataclass

from rlauto_core.gesture.model import Screen


@dataclass(frozen=True)
class AxisRange:
    min: int
    max: int

    @property
    def span(self) -> int:
        return max(1, self.max - self.min + 1)


@dataclass(frozen=True)
class PixelMapper:
    """`px = (raw - min) * size / (max - min + 1)` on the natural axes, then the rotation.

    For rotation 1 (90 degrees) the display's x runs along the panel's y and its y runs
    back along the panel's x; 2 and 3 follow the same rule (TouchInputMapper).
    """

    x: AxisRange
    y: AxisRange
    screen: Screen

    def __call__(self, raw_x: float, raw_y: float) -> tuple[int, int]:
        width, height = self.screen.natural_size
        rx = min(max(raw_x, self.x.min), self.x.max)
        ry = min(max(raw_y, self.y.min), self.y.max)
        fwd_x = (rx - self.x.min) * width / self.x.span
        fwd_y = (ry - self.y.min) * height / self.y.span
        back_x = (self.x.max - rx) * width / self.x.span
        back_y = (self.y.max - ry) * height / self.y.span
        rotation = self.screen.rotation
        if rotation == 0:
            px, py = fwd_x, fwd_y
        elif rotation == 1:
            px, py = fwd_y, back_x
        elif rotation == 2:
            px, py = back_x, back_y
        else:
            px, py = back_y, fwd_x
        return int(px), int(py)


def mapper_for(
    x_range: tuple[int, int] | None, y_range: tuple[int, int] | None, screen: Screen | None
) -> PixelMapper | None:
    """A mapper when pixels can be known: caps give the raw ranges, a screen gives the size.

    Caps without a screen: one raw unit is taken as one pixel (true of most phones).
    A screen without caps: the raw range is taken as the panel's pixel range.
    """
    if x_range is None and y_range is None and screen is None:
        return None
    if screen is None:
        assert x_range is not None and y_range is not None
        screen = Screen(width=max(1, x_range[1] - x_range[0] + 1), height=max(1, y_range[1] - y_range[0] + 1))
    natural_w, natural_h = screen.natural_size
    x = AxisRange(*x_range) if x_range else AxisRange(0, natural_w - 1)
    y = AxisRange(*y_range) if y_range else AxisRange(0, natural_h - 1)
    return PixelMapper(x, y, screen)
