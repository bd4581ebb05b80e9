"""Screenshots as the model sees them: a scaled JPEG under a byte cap, and a thumbnail.

A phone screen (1080x2340 and up) is scaled so its longer side is at most 1280 px: vision
models resize larger images anyway, and every pixel kept is upload time and tokens. Then JPEG
quality steps down, then the size, until the bytes fit the cap (200 KB by default).
"""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel

from rlauto_core.errors import RlautoError

MAX_SIDE = 1280
THUMB_WIDTH = 240
_QUALITIES = (80, 70, 60, 50, 40)
# a decompression bomb from a hostile device must not take the host's memory
_MAX_PIXELS = 40_000_000


class ImageError(RlautoError):
    """A screenshot that is not an image."""


class ScaledImage(BaseModel):
    data: bytes
    width: int
    height: int
    source_width: int
    source_height: int


def _open(data: bytes, max_side: int | None = None) -> tuple[Image.Image, tuple[int, int]]:
    """The decoded image (RGB) and its size as stored."""
    if not data:
        raise ImageError("the screenshot is empty")
    try:
        image = Image.open(io.BytesIO(data))
        if image.width * image.height > _MAX_PIXELS:
            raise ImageError(f"the screenshot is {image.width}x{image.height}, too large to be a screen")
        size = image.size
        if max_side is not None and image.format == "JPEG":
            # decode a large JPEG at 1/2, 1/4 or 1/8 scale when that still covers `max_side`:
            # most of the time of scaling a screenshot is its full-size decode
            scale = max_side / max(image.width, image.height)
            image.draft("RGB", (max(1, round(image.width * scale)), max(1, round(image.height * scale))))
        image.load()
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise ImageError(f"the screenshot is not a readable image ({type(exc).__name__})") from None
    return (image.convert("RGB") if image.mode != "RGB" else image), size


def _fit(image: Image.Image, max_side: int) -> Image.Image:
    longest = max(image.width, image.height)
    if longest <= max_side:
        return image
    scale = max_side / longest
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)


def _jpeg(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=quality, optimize=False)
    return buffer.getvalue()


def scale_screenshot(data: bytes, max_bytes: int, max_side: int = MAX_SIDE) -> ScaledImage:
    """`data` (PNG or JPEG) as a JPEG of at most `max_bytes`."""
    decoded, source = _open(data, max_side)
    image = _fit(decoded, max_side)
    while True:
        for quality in _QUALITIES:
            encoded = _jpeg(image, quality)
            if len(encoded) <= max_bytes:
                return ScaledImage(
                    data=encoded,
                    width=image.width,
                    height=image.height,
                    source_width=source[0],
                    source_height=source[1],
                )
        if max(image.width, image.height) <= 64:
            raise ImageError(f"the screenshot does not fit in {max_bytes} bytes even at 64 px")
        image = image.resize((max(1, image.width * 3 // 4), max(1, image.height * 3 // 4)), Image.Resampling.BILINEAR)


def thumbnail(data: bytes, width: int = THUMB_WIDTH) -> bytes:
    """A small JPEG of a screenshot for step cards."""
    image, _ = _open(data)
    height = max(1, round(image.height * width / image.width))
    return _jpeg(image.resize((width, height), Image.Resampling.BILINEAR), 70)
