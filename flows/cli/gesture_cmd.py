"""`rlauto gesture parse TRACE`: a saved getevent trace to gestures, without a phone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer

from flows.cli.app import app, fail
from rlauto_core.gesture import GestureError, Screen, TouchTrace, parse_trace

MAX_BYTES = 256 * 1024 * 1024
gesture_app = typer.Typer(help="Recorded gestures (getevent traces).", no_args_is_help=True)
app.add_typer(gesture_app, name="gesture")


def _read(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            fail(f"{path}: {size} bytes is over the {MAX_BYTES // 2**20} MiB limit for a trace")
        return path.read_bytes().decode("utf-8", "replace")
    except IsADirectoryError:
        fail(f"{path}: is a directory, expected a getevent text file")
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


def _screen(value: str | None, rotation: int) -> Screen | None:
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d{1,6})\s*[xX*]\s*(\d{1,6})\s*", value)
    if not match or int(match.group(1)) == 0 or int(match.group(2)) == 0:
        fail(f"--screen: expected WIDTHxHEIGHT in pixels like 1080x2340, got {value!r}")
    if rotation not in (0, 1, 2, 3, 90, 180, 270):
        fail(f"--rotation: expected 0, 1, 2, 3 (quarter turns) or 90, 180, 270, got {rotation}")
    return Screen(width=int(match.group(1)), height=int(match.group(2)), rotation=rotation)


def _as_json(trace: TouchTrace) -> dict[str, object]:
    device = None if trace.device is None else {"path": trace.device.path or None, "name": trace.device.name or None}
    return {
        "device": device,
        "protocol": trace.protocol,
        "gestures": [{"points": [list(p) for p in g.points], "duration_ms": g.duration_ms} for g in trace.gestures],
        "in_pixels": trace.in_pixels,
        "skipped_lines": trace.skipped_lines,
    }


@gesture_app.command("parse")
def parse(
    trace: Annotated[Path, typer.Argument(help="output of `getevent -lt` or `getevent -t`, saved to a file")],
    caps: Annotated[
        Path | None, typer.Option("--caps", help="output of `getevent -lp` (picks the panel, gives raw ranges)")
    ] = None,
    screen: Annotated[
        str | None, typer.Option("--screen", help="screen size WxH in its natural orientation, e.g. 1080x2340")
    ] = None,
    rotation: Annotated[int, typer.Option("--rotation", help="display rotation: 0-3 or degrees")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON: device, protocol, gestures")] = False,
) -> None:
    """Parse a getevent trace into gestures; points in pixels when --screen or --caps is given."""
    size = _screen(screen, rotation)
    if size is not None and size.rotation % 2:
        size = Screen(width=size.height, height=size.width, rotation=size.rotation)  # as displayed
    trace_text = _read(trace)
    caps_text = _read(caps) if caps is not None else None
    try:
        result = parse_trace(trace_text, caps_text, size, file=str(trace), caps_file=str(caps))
    except GestureError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(_as_json(result), ensure_ascii=False))
        return
    device = result.device
    where = f"{device.path} ({device.name})" if device is not None else "one device (no prefix)"
    unit = "px" if result.in_pixels else "raw units"
    typer.echo(f"{where}, protocol {result.protocol}, {len(result.gestures)} gesture(s), in {unit}")
    for number, gesture in enumerate(result.gestures, start=1):
        (x0, y0, _), (x1, y1, _) = gesture.points[0], gesture.points[-1]
        extra = f", +{len(gesture.other_fingers)} finger(s)" if gesture.other_fingers else ""
        typer.echo(
            f"  {number}: {len(gesture.points)} points, {gesture.duration_ms:g} ms, "
            f"({x0:g}, {y0:g}) -> ({x1:g}, {y1:g}){extra}"
        )
    if result.skipped_lines:
        typer.echo(f"  ({result.skipped_lines} unreadable line(s) skipped)")
