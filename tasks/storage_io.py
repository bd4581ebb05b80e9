"""Storage I/O tasks: stage a recording into `uploads/`, write snapshots, outcomes and bundles.

Writes are atomic (rlauto_core.store.storage); transient storage errors are retried there first and
then by Prefect (the same named retry condition as model calls).
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import fsspec
from prefect import task
from pydantic import BaseModel

from rlauto_core.config.settings import Settings
from rlauto_core.errors import RecordingError
from rlauto_core.store import layout
from rlauto_core.store.storage import FsspecStorage, open_storage, with_storage_retry
from tasks.models import ItemResult, UploadRef
from tasks.retry import STORAGE_WRITE


def storage_url_or_default(url: str | None) -> str:
    return url or Settings().rlauto_storage_url


@lru_cache(maxsize=8)
def get_storage(url: str) -> FsspecStorage:
    return open_storage(url)


def result_storage_for(url: str) -> Any:
    """Where Prefect keeps cached task results (model calls): next to the packages.

    A local folder is given as a Path; an object store as a RemoteFileSystem block (saved
    anonymously by Prefect), so every worker reads the same cache.
    """
    storage = get_storage(url)
    if url.startswith("file://") or "://" not in url:
        path = Path(storage.root) / "prefect-results"
        path.mkdir(parents=True, exist_ok=True)
        return path
    from prefect.filesystems import RemoteFileSystem

    return RemoteFileSystem(basepath=f"{url.rstrip('/')}/prefect-results")


def source_name_of(source: str) -> str:
    return source.rstrip("/").rsplit("/", 1)[-1] or source


def read_source(source: str, max_upload_mb: int) -> bytes:
    """The bytes of a recording given as a path or an fsspec URL; too big or missing is the user's error."""
    name = source_name_of(source)
    try:
        fs, path = fsspec.core.url_to_fs(source)
        size = with_storage_retry(lambda: fs.size(path))
        if size is not None and size > max_upload_mb * 1024 * 1024:
            raise RecordingError(name, f"is {size / 1048576:.1f} MB, over MAX_UPLOAD_MB={max_upload_mb}")
        return bytes(with_storage_retry(lambda: fs.cat_file(path)))
    except FileNotFoundError:
        raise RecordingError(source, "not found") from None
    except IsADirectoryError:
        raise RecordingError(source, "is a folder, not a recording") from None


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stage(
    source: str, options_hash: str, max_upload_mb: int, source_name: str | None = None
) -> tuple[bytes, UploadRef]:
    """Read one source and describe its upload (content-derived item id); the caller fills in
    the job and, once written, the upload path."""
    data = read_source(source, max_upload_mb)
    sha = sha256_of(data)
    return data, UploadRef(
        job_id="",
        item_id=layout.item_id(sha, options_hash),
        source=source,
        source_name=source_name or source_name_of(source),
        source_sha256=sha,
        options_hash=options_hash,
        size=len(data),
        upload_path="",
    )


def stage_source(
    source: str, source_name: str, options_hash: str, job_id: str | None, storage_url: str, max_upload_mb: int
) -> tuple[bytes, UploadRef]:
    """Copy a recording into `uploads/{job}/{item}.zip` (once) and return its bytes and where it is.

    A plain function, not a task: it runs first in every item, before parse, and a task run of
    its own cost the Prefect server more than the copy (bench_orchestration); storage errors are
    retried inside `FsspecStorage`."""
    data, ref = stage(source, options_hash, max_upload_mb, source_name)
    return data, put_upload(get_storage(storage_url), data, ref, job_id or layout.batch_job_id([ref.item_id]))


def put_upload(storage: FsspecStorage, data: bytes, ref: UploadRef, job_id: str) -> UploadRef:
    """Write `uploads/{job}/{item}.zip` unless it is there (content-addressed) and say where."""
    path = layout.upload_path(job_id, ref.item_id)
    if not storage.exists(path):
        storage.write_bytes(path, data)
    return ref.model_copy(update={"job_id": job_id, "upload_path": path})


def json_bytes(model: BaseModel | dict[str, Any] | list[Any]) -> bytes:
    if isinstance(model, BaseModel):
        return model.model_dump_json(indent=2, by_alias=True).encode()
    return json.dumps(model, indent=2, ensure_ascii=False, default=str).encode()


@task(name="persist-snapshots", **STORAGE_WRITE)
def persist_snapshots(storage_url: str, files: dict[str, BaseModel | dict[str, Any]]) -> list[str]:
    """One iteration's snapshots in one task (each file still written atomically)."""
    storage = get_storage(storage_url)
    for path, model in files.items():
        storage.write_bytes(path, json_bytes(model))
    return list(files)


@task(name="persist-bytes", task_run_name="persist-{path}", **STORAGE_WRITE)
def persist_bytes(storage_url: str, path: str, data: bytes) -> str:
    get_storage(storage_url).write_bytes(path, data)
    return path


def read_item_outcome(storage_url: str, job_id: str, item_id: str) -> ItemResult | None:
    storage = get_storage(storage_url)
    path = layout.item_outcome_path(job_id, item_id)
    if not storage.exists(path):
        return None
    return ItemResult.model_validate_json(storage.read_bytes(path))


@task(name="bundle-all-results", **STORAGE_WRITE)
def bundle_all_results(storage_url: str, job_id: str, items: list[ItemResult]) -> str | None:
    """`all-results-<job>.zip`: every passing item's package ZIP, named after its recording."""
    storage = get_storage(storage_url)
    passing = [i for i in items if i.status == "completed" and i.output_zip_path]
    if not passing:
        return None
    buffer = io.BytesIO()
    used: set[str] = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for item in sorted(passing, key=lambda i: i.source_name):
            name = layout.package_file_name(item.source_name)
            if name in used:  # two recordings with one name: keep both
                name = f"{item.item_id}-{name}"
            used.add(name)
            bundle.writestr(name, storage.read_bytes(str(item.output_zip_path)))
    path = layout.all_results_path(job_id)
    storage.write_bytes(path, buffer.getvalue())
    return path
