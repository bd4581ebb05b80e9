"""Synchronous entry points for the CLI and scripts (the flows themselves are async)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from flows import runtime
from rlauto_core.config.options import RunOptions
from tasks.models import BatchResult, ItemResult


def run_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
) -> BatchResult:
    """`package_batch` run to the end in this process (a local server if one is up, else ephemeral)."""
    runtime.configure()
    from flows.pipeline import package_batch

    state = asyncio.run(
        package_batch(sources, options, concurrency, job_id, storage_url, return_state=True)  # type: ignore[call-overload]
    )
    return state.result(raise_on_failure=True)  # type: ignore[no-any-return]


def run_batch_for_cli(
    paths: list[str], options: RunOptions | None = None, out_dir: str | Path | None = None, concurrency: int = 3
) -> list[ItemResult]:
    """What `rlauto package` runs: the batch on the embedded default (offline analyzer unless a
    model key is set, local storage, ephemeral Prefect or the local stack), then each passing
    package copied to `out_dir` as `<recording>.task-package.zip`. Print `where(...)` for the rest."""
    batch = run_batch(paths, options, concurrency)
    if out_dir is not None:
        copy_packages(batch, Path(out_dir))
    return batch.items


def copy_packages(batch: BatchResult, out_dir: Path) -> list[Path]:
    from rlauto_core.store.layout import package_file_name
    from tasks.storage_io import get_storage

    storage = get_storage(batch.storage_url)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for item in batch.completed:
        if item.output_zip_path is None:
            continue
        target = out_dir / package_file_name(item.source_name)
        tmp = target.with_suffix(".tmp")
        tmp.write_bytes(storage.read_bytes(item.output_zip_path))
        shutil.move(tmp, target)
        written.append(target)
    return written


def where(batch: BatchResult) -> dict[str, str | None]:
    """Where a user finds the results: packages, the index, the bundle and the UI."""
    base = batch.storage_url.rstrip("/")
    return {
        "job": batch.job_id,
        "packages": f"{base}/exports/{batch.job_id}/",
        "all_results": f"{base}/{batch.all_results_path}" if batch.all_results_path else None,
        "index": f"{base}/index/",
        "ui": runtime.ui_url_for(batch.flow_run_id),
    }
