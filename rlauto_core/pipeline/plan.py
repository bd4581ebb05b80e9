"""The plan of a batch: which recordings it holds, their content-derived item ids, and its job id.

Made once, by the entry point (the CLI, the SDK, the dashboard's launcher) with `plan_batch`,
and staged there (`stage_plan`): the batch flow is handed the staged plan and never plans again
(it plans only when started with bare `sources`, as from the Prefect UI's form). The job id a
caller shows is the one the flow uses: stable for the same recordings and options unless the
caller names the job.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from rlauto_core.config.options import RunOptions
from rlauto_core.errors import ConfigError
from rlauto_core.store import layout
from rlauto_core.store.job_ids import batch_job_id, safe_job_id
from rlauto_core.store.sources import copy_source, expand_sources, sha256_of, source_name_of
from rlauto_core.store.staging import stage_recording
from rlauto_core.store.storage import Storage


class PlannedItem(BaseModel):
    job_id: str
    source: str  # as the caller named it: a path or an fsspec URL
    source_name: str
    source_sha256: str
    item_id: str
    size: int
    upload_path: str  # where the batch copies it (`uploads/{job}/{item}.zip`)


class LaunchedRun(BaseModel):
    """A batch that was started and runs on: where to follow it."""

    job_id: str
    flow_run_id: str
    ui_url: str | None = None
    via: str  # "deployment" | "in-process"
    item_id: str | None = None  # a run of one item (retry, regenerate): the item it writes


class BatchPlan(BaseModel):
    job_id: str
    options_hash: str
    items: list[PlannedItem] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)  # "SOURCE: why" for sources naming no recording
    staged: bool = False  # every item is in storage at its `upload_path` (`stage_plan`)


def plan_item(
    source: str, data: bytes, options_hash: str, job_id: str | None = None, name: str | None = None
) -> PlannedItem:
    """One recording's place in a job; with no job named, the job of this recording alone."""
    return plan_staged(source, sha256_of(data), len(data), options_hash, job_id, name)


def plan_staged(
    source: str, sha: str, size: int, options_hash: str, job_id: str | None, name: str | None = None
) -> PlannedItem:
    """`plan_item` of a recording already hashed while it was copied (`copy_source`)."""
    item = layout.item_id(sha, options_hash)
    job = safe_job_id(job_id) if job_id else batch_job_id([item])
    return PlannedItem(
        job_id=job,
        source=source,
        source_name=name or source_name_of(source),
        source_sha256=sha,
        item_id=item,
        size=size,
        upload_path=layout.upload_path(job, item),
    )


def plan_batch(
    sources: list[str],
    options: RunOptions,
    *,
    max_files: int,
    max_upload_mb: int,
    job_id: str | None = None,
) -> BatchPlan:
    """Expand the sources, hash every recording, name the job. Sources that name nothing are
    listed in `missing` (the CLI reports them and goes on; the flow refuses the batch)."""
    expansion = expand_sources(sources)
    if len(expansion.files) > max_files:
        raise ConfigError(
            f"the batch names {len(expansion.files)} recordings; at most MAX_BATCH_FILES={max_files} per batch"
        )
    options_hash = options.options_hash()
    hashed = []
    for source in expansion.files:  # hashed as it streams: a block in memory, not a recording
        sha, size = copy_source(source, None, max_upload_mb)
        hashed.append((source, sha, size))
    ids = [layout.item_id(sha, options_hash) for _, sha, _ in hashed]
    job = safe_job_id(job_id) if job_id else batch_job_id(ids)
    items = [plan_staged(source, sha, size, options_hash, job) for source, sha, size in hashed]
    return BatchPlan(job_id=job, options_hash=options_hash, items=items, missing=expansion.missing)


def stage_plan(storage: Storage, plan: BatchPlan, max_upload_mb: int) -> BatchPlan:
    """Copy every planned recording into `uploads/{job}/{item}.zip` (once: content-addressed),
    so any worker reads it from there; the plan, marked staged."""
    for item in plan.items:
        stage_recording(storage, item.source, item.upload_path, item.source_sha256, max_upload_mb)
    return plan.model_copy(update={"staged": True})
