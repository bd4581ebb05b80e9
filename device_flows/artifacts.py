"""What device runs leave in the Prefect UI: gesture summaries, step results, screenshots."""

from __future__ import annotations

import base64
import io
import json

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from rlauto_core.gesture import Gesture
from rlauto_core.steps import RunReport

SCREENSHOT_WIDTH = 540  # small enough to embed in the artifact, big enough to read text


def _key(serial: str, what: str) -> str:
    safe = "".join(ch if ch.isalnum() else "-" for ch in serial.lower()).strip("-")
    return f"{what}-{safe}"[:100]


def gestures_artifact(serial: str, gestures: list[Gesture]) -> None:
    rows = [
        {"gesture": i, "points": len(g.points), "duration_ms": g.duration_ms, "other_fingers": len(g.other_fingers)}
        for i, g in enumerate(gestures, start=1)
    ]
    payload = json.dumps([g.model_dump(mode="json") for g in gestures], ensure_ascii=False)
    create_table_artifact(rows, key=_key(serial, "gestures"), description=f"gestures recorded on {serial}")
    create_markdown_artifact(
        "Paste one into a `gesture` step or the replay-gesture form:\n\n```json\n" + payload + "\n```\n",
        key=_key(serial, "gesture-json"),
        description=f"gesture JSON recorded on {serial}",
    )


def _small_jpeg(data: bytes) -> bytes:
    from PIL import Image

    image = Image.open(io.BytesIO(data)).convert("RGB")
    if image.width > SCREENSHOT_WIDTH:
        image = image.resize((SCREENSHOT_WIDTH, round(image.height * SCREENSHOT_WIDTH / image.width)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=70)
    return out.getvalue()


def report_artifacts(report: RunReport) -> None:
    rows = [
        r.model_dump(include={"index", "kind", "name", "status", "optional", "message", "duration_ms"})
        for r in report.results
    ]
    create_table_artifact(rows, key=_key(report.serial, "steps"), description=f"step results on {report.serial}")
    failed = report.failed
    if failed is None or failed.screenshot is None:
        return
    try:
        image = _small_jpeg(report.screenshots[failed.screenshot])
    except Exception:
        image = report.screenshots[failed.screenshot]  # not decodable here: embed as taken
    encoded = base64.b64encode(image).decode()
    create_markdown_artifact(
        f"### Step {failed.index} ({failed.kind}) failed\n\n{failed.message}\n\n"
        f"![screen when step {failed.index} failed](data:image/jpeg;base64,{encoded})\n",
        key=_key(report.serial, "failure-screenshot"),
        description=f"screen of {report.serial} when step {failed.index} failed",
    )
