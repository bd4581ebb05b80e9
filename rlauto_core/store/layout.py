"""Where things live in storage (architecture.md "Storage"), and the ids that name them.

```
uploads/{job}/{item}.zip
exports/{job}/{item}/{evidence,task-package,judge-result,iteration-memory}-iter-N.json
exports/{job}/{item}/{evidence,task-package,judge-result,iteration-memory}.json   (best)
exports/{job}/{item}/item.json                     (the item's outcome, written last)
exports/{job}/{item}/output.zip | error.txt
exports/{job}/all-results-{job}.zip
exports/{job}/job.json                             (the batch's outcome)
claims/{options_hash}/{source_sha256}.json         (inbox: who took a recording)
index/items/..., index/iterations/..., index/reviews/...
```
Item ids are stable for the same bytes and options, so a re-run finds its work; job ids of
batches are stable for the same set of items unless the caller names the job.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

Snapshot = Literal["evidence", "task-package", "judge-result", "iteration-memory"]
SNAPSHOTS: tuple[Snapshot, ...] = ("evidence", "task-package", "judge-result", "iteration-memory")

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def item_id(source_sha256: str, options_hash: str) -> str:
    """Stable id of one recording packaged with one set of options."""
    digest = hashlib.sha256(f"{source_sha256}:{options_hash}".encode()).hexdigest()
    return f"it-{digest[:16]}"


def batch_job_id(item_ids: list[str]) -> str:
    """Stable id of a batch: the same recordings with the same options give the same job."""
    digest = hashlib.sha256("\n".join(sorted(set(item_ids))).encode()).hexdigest()
    return f"job-{digest[:12]}"


def safe_job_id(job_id: str) -> str:
    """A caller-given job id, reduced to characters safe in a path and a URL."""
    cleaned = _SAFE.sub("-", job_id).strip("-.")
    if not cleaned:
        raise ValueError(f"job id {job_id!r} has no usable character")
    return cleaned[:80]


def upload_path(job: str, item: str) -> str:
    return f"uploads/{job}/{item}.zip"


def job_exports_dir(job: str) -> str:
    return f"exports/{job}"


def export_dir(job: str, item: str) -> str:
    return f"exports/{job}/{item}"


def iteration_path(job: str, item: str, snapshot: Snapshot, iteration: int) -> str:
    if iteration < 1:
        raise ValueError("iterations are numbered from 1")
    return f"{export_dir(job, item)}/{snapshot}-iter-{iteration}.json"


def best_path(job: str, item: str, snapshot: Snapshot) -> str:
    return f"{export_dir(job, item)}/{snapshot}.json"


def item_outcome_path(job: str, item: str) -> str:
    return f"{export_dir(job, item)}/item.json"


def output_zip_path(job: str, item: str) -> str:
    return f"{export_dir(job, item)}/output.zip"


def error_path(job: str, item: str) -> str:
    return f"{export_dir(job, item)}/error.txt"


def job_outcome_path(job: str) -> str:
    return f"{job_exports_dir(job)}/job.json"


def all_results_path(job: str) -> str:
    return f"{job_exports_dir(job)}/all-results-{job}.zip"


def claim_path(options_hash: str, source_sha256: str) -> str:
    return f"claims/{options_hash}/{source_sha256}.json"
