"""Reading an export back, and the store's own files to compare it with."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from rlauto_core.dataset import ExportOptions, ExportSummary, export_dataset
from rlauto_core.store import Storage, layout


def export(storage: Storage, out: Path, **options: Any) -> ExportSummary:
    return export_dataset(storage, str(out), ExportOptions(**options))


def parquet_rows(out: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(out / "tasks.parquet").to_pylist()
    return rows


def jsonl_rows(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "tasks.jsonl").read_text(encoding="utf-8").split("\n") if line]


def by_name(rows: list[dict[str, Any]], job: str = "job-main") -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["job_id"] == job:
            assert row["source_name"] not in found, f"two rows for {row['source_name']}"
            found[row["source_name"]] = row
    return found


def stored_package(storage: Storage, job: str, item: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(storage.read_bytes(layout.best_path(job, item, "task-package")))
    return data


def everything(out: Path) -> str:
    """Every value the export holds, decoded (parquet pages are compressed: bytes would hide them)."""
    parts = [p.read_text(encoding="utf-8") for p in out.iterdir() if p.suffix in (".md", ".jsonl")]
    if (out / "tasks.parquet").exists():
        parts.append(json.dumps(parquet_rows(out), default=str, ensure_ascii=False))
        parts.append(str(pq.read_schema(out / "tasks.parquet")))
    return "\n".join(parts)
