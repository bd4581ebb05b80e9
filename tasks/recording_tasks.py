"""An item's own files: its export (best copies, output.zip or error.txt), then its record
(index rows, item.json) through the recorder.

No step of an item is a task run: parsing, the rules, the model calls (cached in Prefect's
result store, tasks/model_calls.py) and this export. A task run cost the Prefect server three
events and a row apiece, about 30 ms of its one core (issue 21), to show a step nobody read; the
export is not retried on top of the storage's own retries, and the storage is its record. The
item's flow run keeps its states, logs and page.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from rlauto_core.package import TaskPackage, export_package
from rlauto_core.pipeline import ItemOutcome, PlannedItem
from rlauto_core.store import layout, local_copy
from tasks.storage_io import get_recorder, get_storage

_COPY_CHUNK = 1024 * 1024


def export(
    item: PlannedItem, outcome: ItemOutcome, package: TaskPackage | None, root_prefix: str, redact_secrets: bool,
    iterations_reached: int = 0,
) -> ItemOutcome:  # fmt: skip
    """The item's final files, in one task: the best iteration's snapshots copied beside it,
    `output.zip` (the recording as uploaded, task.json rewritten; formats.md section 2) when it
    passed, else `error.txt` with why; what an earlier run left that this one did not replace
    (snapshots past `iterations_reached`, the other of output.zip/error.txt) deleted; then the
    index rows and, last, `item.json`."""
    recorder = get_recorder(outcome.storage_url)
    recorder.log_best(outcome)
    done = _package_files(item, outcome, package, root_prefix, redact_secrets)
    recorder.drop_stale(done, iterations_reached)
    done = done.model_copy(update={"finished_at": datetime.now(UTC)})
    recorder.log_item(done)
    return done


def _package_files(
    item: PlannedItem, outcome: ItemOutcome, package: TaskPackage | None, root_prefix: str, redact_secrets: bool
) -> ItemOutcome:
    storage = get_storage(outcome.storage_url)
    job, item_id = outcome.job_id, outcome.item_id
    best = outcome.best()
    if package is None or not outcome.passed:
        storage.write_bytes(layout.error_path(job, item_id), f"{outcome.error or outcome.message}\n".encode())
        package_path = layout.best_path(job, item_id, "task-package") if best else None
        return outcome.model_copy(update={"package_path": package_path})
    with tempfile.TemporaryDirectory(prefix="rlauto-export-") as tmp:
        # the recording under a fixed name: the source's own name may not fit in a path
        copy = Path(tmp) / ("recording.har" if item.source_name.lower().endswith(".har") else "recording.zip")
        local_copy(storage, item.upload_path, copy)  # streamed both ways: a block in memory, not the ZIP
        written = export_package(copy, package, Path(tmp) / "out", root_prefix=root_prefix,
                                 redact_secrets=redact_secrets, source_name=item.source_name)  # fmt: skip
        path = layout.output_zip_path(job, item_id)
        storage.write_stream(path, lambda out: _copy_file(written, out))  # atomic: never a partial output.zip
    return outcome.model_copy(
        update={"package_path": layout.best_path(job, item_id, "task-package"), "output_zip_path": path}
    )


def _copy_file(path: Path, out: IO[bytes]) -> None:
    with path.open("rb") as src:
        shutil.copyfileobj(src, out, _COPY_CHUNK)
