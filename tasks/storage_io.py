"""Storage I/O of the orchestration: uploads, snapshots, outcomes and the job's bundle.

Writes are atomic (rlauto_core.store); transient storage errors are retried there, once per
call: the tasks below do not retry storage errors again on top.
"""

from __future__ import annotations

import json
import shutil
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import fsspec
from prefect import task
from pydantic import BaseModel

from rlauto_core.pipeline import BatchOutcome, ItemOutcome, PlannedItem
from rlauto_core.store import BundleMember, Storage, copy_source, layout, open_storage, write_bundle
from tasks.retry import STORAGE_WRITE


@lru_cache(maxsize=8)
def get_storage(url: str) -> Storage:
    return open_storage(url)


def result_storage_for(url: str) -> Any:
    """Where Prefect keeps cached task results (model calls): next to the packages.

    A local folder is given as a Path; an object store as a RemoteFileSystem block (saved
    anonymously by Prefect), so every worker reads the same cache.
    """
    if url.startswith("file://") or "://" not in url:
        path = Path(fsspec.core.url_to_fs(url)[1]) / "prefect-results"
        path.mkdir(parents=True, exist_ok=True)
        return path
    from prefect.filesystems import RemoteFileSystem

    return RemoteFileSystem(basepath=f"{url.rstrip('/')}/prefect-results")


def put_upload_file(storage: Storage, staged: Path, item: PlannedItem) -> None:
    """Write `uploads/{job}/{item}.zip` from a local copy unless it is there (content-addressed),
    streamed into storage."""
    if not storage.exists(item.upload_path):
        storage.write_stream(item.upload_path, lambda out: _copy_into(staged, out))


def stage_upload(storage: Storage, source: str, item: PlannedItem, max_upload_mb: int) -> None:
    """`put_upload_file` straight from the recording's source (the batch stages many)."""
    if not storage.exists(item.upload_path):
        storage.write_stream(item.upload_path, lambda out: copy_source(source, out, max_upload_mb))


def _copy_into(path: Path, out: IO[bytes]) -> None:
    with path.open("rb") as src:
        shutil.copyfileobj(src, out, 1024 * 1024)


def json_bytes(model: BaseModel | dict[str, Any] | list[Any]) -> bytes:
    if isinstance(model, BaseModel):
        return model.model_dump_json(indent=2, by_alias=True).encode()
    return json.dumps(model, indent=2, ensure_ascii=False, default=str).encode()


def persist_snapshots(storage_url: str, files: dict[str, BaseModel | dict[str, Any]]) -> list[str]:
    """One iteration's snapshots, each written atomically. A plain function, not a task: a task
    run cost the Prefect server more than the writes, and the files are the record."""
    storage = get_storage(storage_url)
    for path, model in files.items():
        storage.write_bytes(path, json_bytes(model))
    return list(files)


def read_item_outcome(storage_url: str, job_id: str, item_id: str) -> ItemOutcome | None:
    storage = get_storage(storage_url)
    path = layout.item_outcome_path(job_id, item_id)
    if not storage.exists(path):
        return None
    return ItemOutcome.model_validate_json(storage.read_bytes(path))


@task(name="bundle-all-results", **STORAGE_WRITE)
def bundle_all_results(storage_url: str, batch: BatchOutcome) -> str | None:
    """`all-results-<job>.zip`: every passing item's package ZIP, named after its recording."""
    storage = get_storage(storage_url)
    members = [BundleMember(i.item_id, i.source_name, i.output_zip_path) for i in batch.completed if i.output_zip_path]
    if not members:
        return None
    path = layout.all_results_path(batch.job_id)
    # streamed: the bundle holds every package of the job, too much to build in memory
    storage.write_stream(path, lambda out: write_bundle(storage, members, out))
    return path
