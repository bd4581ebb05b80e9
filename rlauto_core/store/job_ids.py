"""Job ids, in one place: what they are made of, the content-derived id of a batch, a caller's
id made safe, and the check before any path is built from one (the dashboard's delete, a retry).

A job id is letters, digits, `.`, `_` and `-`, at most 80 characters, never `.`/`..` or a
separator: safe in a storage path, a URL and a Prefect run name.
"""

from __future__ import annotations

import hashlib
import re

from rlauto_core.errors import RlautoError

MAX_JOB_ID_CHARS = 80
_JOB_ID = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{MAX_JOB_ID_CHARS - 1}}}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_DOTS = re.compile(r"\.{2,}")


class JobIdError(RlautoError):
    """A text that is not a job id where one is needed."""


def batch_job_id(item_ids: list[str]) -> str:
    """Stable id of a batch: the same recordings with the same options give the same job."""
    digest = hashlib.sha256("\n".join(sorted(set(item_ids))).encode()).hexdigest()
    return f"job-{digest[:12]}"


def safe_job_id(job_id: str) -> str:
    """A caller-given job id, reduced to the characters a job id is made of."""
    cleaned = _DOTS.sub(".", _UNSAFE.sub("-", job_id)).strip("-.")  # never `..`: no way up a path
    if not cleaned:
        raise JobIdError(f"job id {job_id!r} has no usable character (letters, digits, '.', '_', '-')")
    return cleaned[:MAX_JOB_ID_CHARS].rstrip("-.")


def checked_job_id(job_id: str, error: type[RlautoError] = JobIdError) -> str:
    """The id itself when it is one a job can have; else `error` (the caller's domain error:
    deleting a job, retrying an item) saying why."""
    if not _JOB_ID.fullmatch(job_id) or ".." in job_id:
        raise error(f"job {job_id!r}: not a job id (letters, digits, '.', '_', '-'; no path)")
    return job_id
