"""Deleting a job: its index rows (items, iterations, reviews), its exports (snapshots, packages,
`output.zip`, bundle, `job.json`) and its uploads. What it removed is counted and returned.

The id is checked before any path is made from it: only the characters job ids are made of
(`rlauto_core.store.job_ids`), never `.`/`..` or a separator, so a crafted id cannot reach outside the
job's own folders. Inbox claims are kept: they are per recording and options, not per job, and
keep the inbox from packaging a deleted job's recordings again.
"""

from __future__ import annotations

import io

import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from rlauto_core.errors import RlautoError
from rlauto_core.store import layout
from rlauto_core.store.index_schema import ITEMS_DIR, ITERATIONS_DIR, REVIEWS_DIR
from rlauto_core.store.job_ids import checked_job_id
from rlauto_core.store.storage import Storage


class JobDeletionError(RlautoError):
    """A job cannot be deleted (a malformed id, nothing by that id)."""


class DeletedJob(BaseModel):
    job_id: str
    index_files: int = 0
    export_files: int = 0
    upload_files: int = 0
    kept: list[str] = Field(default_factory=list)  # review files that also hold other jobs' rows

    @property
    def total(self) -> int:
        return self.index_files + self.export_files + self.upload_files


def job_folders(job_id: str) -> dict[str, str]:
    job = checked_job_id(job_id, JobDeletionError)
    return {
        "items": f"{ITEMS_DIR}/job={job}",
        "iterations": f"{ITERATIONS_DIR}/job={job}",
        "exports": layout.job_exports_dir(job),
        "uploads": f"uploads/{job}",
    }


def _review_files_of(storage: Storage, job: str) -> tuple[list[str], list[str]]:
    """(review files holding only this job's rows, files that hold its rows among others')."""
    only, mixed = [], []
    for path in storage.list(REVIEWS_DIR):
        if not path.endswith(".parquet"):
            continue
        jobs = set(pq.read_table(io.BytesIO(storage.read_bytes(path)), columns=["job_id"]).column(0).to_pylist())
        if jobs == {job}:
            only.append(path)
        elif job in jobs:
            mixed.append(path)
    return only, mixed


def delete_job(storage: Storage, job_id: str) -> DeletedJob:
    """Remove everything stored for the job: the index rows first (readers stop showing it),
    then its exports and uploads. Refuses a job that has nothing stored."""
    folders = job_folders(job_id)
    files = {name: storage.list(folder) for name, folder in folders.items()}
    reviews, mixed = _review_files_of(storage, job_id)
    if not any(files.values()) and not reviews:
        raise JobDeletionError(f"job {job_id}: nothing is stored for it")
    for path in reviews:
        storage.delete(path)
    for name in ("items", "iterations", "exports", "uploads"):
        if files[name]:
            storage.delete(folders[name])
    return DeletedJob(
        job_id=job_id,
        index_files=len(files["items"]) + len(files["iterations"]) + len(reviews),
        export_files=len(files["exports"]),
        upload_files=len(files["uploads"]),
        kept=mixed,
    )
