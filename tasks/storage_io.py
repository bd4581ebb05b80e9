"""Storage of the orchestration: one `Storage` and one `Recorder` per storage URL in a process,
where Prefect keeps cached model answers, and the job's bundle.

Writes are atomic (rlauto_core.store); transient storage errors are retried there, once per
call: the tasks below do not retry storage errors again on top.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import fsspec
from prefect import task

from rlauto_core.pipeline import BatchOutcome
from rlauto_core.store import BundleMember, Recorder, Storage, layout, open_storage, write_bundle
from tasks.retry import STORAGE_WRITE


@lru_cache(maxsize=8)
def get_storage(url: str) -> Storage:
    return open_storage(url)


def get_recorder(url: str) -> Recorder:
    """The recorder of the storage at `url` (the one writer of snapshots, rows, item.json, job.json)."""
    return Recorder(get_storage(url))


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
