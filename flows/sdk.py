"""Synchronous entry points for the CLI and scripts (the flows themselves are async)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from flows import runtime
from rlauto_core.config import RunOptions
from rlauto_core.package import package_file_name
from rlauto_core.pipeline import BatchOutcome
from tasks.storage_io import get_storage


def run_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
) -> BatchOutcome:
    """`package_batch` run to the end in this process (a local server if one is up, else ephemeral)."""
    runtime.configure()
    from flows.pipeline import package_batch

    async def batch() -> BatchOutcome:
        state = await package_batch(sources, options, concurrency, job_id, storage_url, return_state=True)
        return await state.aresult(raise_on_failure=True)

    return asyncio.run(batch())


def copy_packages(batch: BatchOutcome, out_dir: Path) -> dict[str, Path]:
    """Each passing package copied to `out_dir/<recording>.task-package.zip`; item id -> where."""
    storage = get_storage(batch.storage_url)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for item in batch.completed:
        if item.output_zip_path is None:
            continue
        target = out_dir / package_file_name(item.source_name)
        tmp = target.with_name(f".{target.name}.tmp")
        with storage.open_read(item.output_zip_path) as src, tmp.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1024 * 1024)  # a block at a time: packages can be large
        tmp.replace(target)
        written[item.item_id] = target
    return written


def where(batch: BatchOutcome) -> dict[str, str | None]:
    """Where a user finds the results: packages, the index, the bundle and the UI."""
    base = batch.storage_url.rstrip("/")
    return {
        "job": batch.job_id,
        "packages": f"{base}/exports/{batch.job_id}/",
        "all_results": f"{base}/{batch.all_results_path}" if batch.all_results_path else None,
        "index": f"{base}/index/",
        "ui": runtime.ui_url_for(batch.flow_run_id),
    }
