"""Synchronous entry points for the CLI and scripts (the flows themselves are async)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from flows import runtime
from rlauto_core.config import RunContext, RunOptions
from rlauto_core.errors import RecordingError
from rlauto_core.package import package_file_name
from rlauto_core.pipeline import BatchOutcome, BatchPlan, plan_batch, stage_plan


def run_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
    items_in_flight: int | None = None,
) -> BatchOutcome:
    """`package_batch` run to the end in this process (a local server if one is up, else
    ephemeral): planned and staged here, once; `concurrency` model calls in flight, and
    `items_in_flight` recordings at once (None: twice `concurrency`)."""
    runtime.configure()  # before Prefect is imported: its settings are read once, at import
    context = RunContext.resolve(storage_url=storage_url)
    options = options or RunOptions()
    settings = context.settings
    plan = plan_batch(sources, options, max_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb,
                      job_id=job_id)  # fmt: skip
    if plan.missing or not plan.items:
        raise RecordingError("batch", "; ".join(plan.missing) or "the batch names no recording")
    return run_plan(plan, options, context, concurrency, items_in_flight)


def run_plan(
    plan: BatchPlan, options: RunOptions, context: RunContext, concurrency: int = 3, items_in_flight: int | None = None
) -> BatchOutcome:
    """A batch the caller planned (the CLI shows its items first), staged and run to the end."""
    runtime.configure()
    from flows.pipeline import package_batch
    from tasks.storage_io import get_storage

    staged = stage_plan(get_storage(context.storage_url), plan, context.settings.max_upload_mb)

    async def batch() -> BatchOutcome:
        state = await package_batch(
            [i.source for i in staged.items], options, concurrency, staged.job_id, context.storage_url, None,
            items_in_flight, staged,
            return_state=True,
        )  # fmt: skip
        return await state.aresult(raise_on_failure=True)

    try:
        return asyncio.run(batch())
    finally:
        runtime.ship_logs()  # the batch's last lines reach the server before this returns


def copy_packages(batch: BatchOutcome, out_dir: Path) -> dict[str, Path]:
    """Each passing package copied to `out_dir/<recording>.task-package.zip`; item id -> where."""
    from tasks.storage_io import get_storage

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
