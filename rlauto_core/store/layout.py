"""Where things live in storage (architecture.md "Storage"), and the ids that name them.

```
uploads/{job}/{item}.zip
exports/{job}/{item}/{evidence,task-package,judge-result,iteration-memory}-iter-N.json
exports/{job}/{item}/{evidence,task-package,judge-result,iteration-memory}.json   (best)
exports/{job}/{item}/item.json                     (the item's outcome, written last)
exports/{job}/{item}/output.zip | error.txt
exports/{job}/all-results-{job}.zip
exports/{job}/job.json                             (the batch's outcome)
claims/{options_hash}/{source_sha256}/{generation}.json   (inbox: leases on a recording)
index/items/..., index/iterations/..., index/reviews/...
```
Item ids are stable for the same bytes and options, so a re-run finds its work; job ids of
batches are stable for the same set of items unless the caller names the job.
"""

from __future__ import annotations

import hashlib
import re
from typing import Literal

# job ids have their own module; named here too, where paths are made from them
from rlauto_core.store.job_ids import batch_job_id as batch_job_id
from rlauto_core.store.job_ids import safe_job_id as safe_job_id

Snapshot = Literal["evidence", "task-package", "judge-result", "iteration-memory"]
SNAPSHOTS: tuple[Snapshot, ...] = ("evidence", "task-package", "judge-result", "iteration-memory")


def item_id(source_sha256: str, options_hash: str) -> str:
    """Stable id of one recording packaged with one set of options."""
    digest = hashlib.sha256(f"{source_sha256}:{options_hash}".encode()).hexdigest()
    return f"it-{digest[:16]}"


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


def claims_dir(options_hash: str, source_sha256: str) -> str:
    return f"claims/{options_hash}/{source_sha256}"


def claim_path(options_hash: str, source_sha256: str, generation: int) -> str:
    """One lease on a recording; a scan taking over an expired lease creates the next generation."""
    if generation < 1:
        raise ValueError("claim generations are numbered from 1")
    return f"{claims_dir(options_hash, source_sha256)}/{generation:06d}.json"


def claim_generation(path: str) -> int | None:
    """The generation a claim file's name holds, None for any other file."""
    name = path.rsplit("/", 1)[-1]
    stem = name.removesuffix(".json")
    return int(stem) if name.endswith(".json") and stem.isdigit() else None


_ITERATION_FILE = re.compile(r"(?:" + "|".join(SNAPSHOTS) + r")-iter-(\d+)\.json")
_BEST_FILES = frozenset(f"{snapshot}.json" for snapshot in SNAPSHOTS)


def stale_exports(
    job: str, item: str, listed: list[str], *, iterations_reached: int, passed: bool, has_best: bool
) -> list[str]:
    """The files in `listed` that an earlier run of the item left and this run did not replace:
    snapshots of iterations past the ones this run reached, `error.txt` beside a new
    `output.zip` (or the reverse), best copies when this run has no best iteration. Deleted
    before the item's `item.json` is written, so nothing reads them as the current run's."""
    folder = export_dir(job, item) + "/"
    stale: list[str] = []
    for path in listed:
        name = path.removeprefix(folder)
        if name == path or "/" in name:
            continue  # not a file of this item's folder
        iteration = _ITERATION_FILE.fullmatch(name)
        if (
            (iteration is not None and int(iteration.group(1)) > iterations_reached)
            or (name == "error.txt" and passed)
            or (name == "output.zip" and not passed)
            or (name in _BEST_FILES and not has_best)
        ):
            stale.append(path)
    return sorted(stale)
