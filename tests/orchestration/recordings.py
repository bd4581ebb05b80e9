"""Distinct small recordings for orchestration tests: copies of an example whose instruction
carries a marker `[rec-NN]`, so each has its own bytes (own item id) and the model server's
request log shows which recording a prompt belongs to."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from tests.conftest import EXAMPLES


def marker(n: int) -> str:
    return f"[rec-{n:02d}]"


def variant(example: str, n: int) -> bytes:
    source = zipfile.ZipFile(EXAMPLES / example)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename.endswith("task.json"):
                task = json.loads(data)
                task["task"]["instruction"] = f"{task['task']['instruction']} {marker(n)}"
                task["metadata"]["recordingId"] = f"rec-{n:02d}"
                data = json.dumps(task).encode()
            target.writestr(info.filename, data)
    return out.getvalue()


def write_variants(folder: Path, count: int, example: str = "discord_reply.zip", start: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(start, start + count):
        path = folder / f"rec-{n:02d}.zip"
        path.write_bytes(variant(example, n))
        paths.append(path)
    return paths
