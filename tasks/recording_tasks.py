"""Thin tasks around one recording's steps: parse, rules, export, and the index.

None of them is retried except on transient errors (they have none of their own: a bad ZIP or
a low score fails at once). Their results are not persisted: they are cheap to recompute, and
only model calls (tasks/model_calls.py) are worth caching.
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from prefect import task
from prefect.cache_policies import NONE as NO_CACHE
from pydantic import BaseModel, Field

from rlauto_core.evidence import Evidence, build_evidence
from rlauto_core.importers import import_path
from rlauto_core.package import TaskPackage, export_package
from rlauto_core.pipeline import ItemOutcome, PlannedItem, index_rows
from rlauto_core.recording import Mode, Recording
from rlauto_core.rules import Flag, run_rules
from rlauto_core.store import append_item, layout
from tasks.retry import STORAGE_WRITE
from tasks.storage_io import get_storage, json_bytes

_COPY_CHUNK = 1024 * 1024


class Findings(BaseModel):
    """Evidence and local-rule flags of one recording."""

    evidence: Evidence
    flags: list[Flag] = Field(default_factory=list)


@task(name="parse", task_run_name="parse-{item.source_name}", cache_policy=NO_CACHE, persist_result=False)
def parse(item: PlannedItem, staged: Path, requested_mode: Mode | None, max_upload_mb: int) -> Recording:
    """The recording (a local copy, read entry by entry) -> a Recording; a bad file is a RecordingError."""
    return import_path(staged, requested_mode, max_upload_mb, name=item.source_name)


@task(name="rules", cache_policy=NO_CACHE, persist_result=False, result_serializer="json")
def rules(recording: Recording, rule_profile: str) -> Findings:
    evidence = build_evidence(recording)
    return Findings(evidence=evidence, flags=run_rules(recording, evidence, rule_profile))


@task(name="export", task_run_name="export-{item.source_name}", **STORAGE_WRITE)
def export(
    item: PlannedItem, outcome: ItemOutcome, package: TaskPackage | None, root_prefix: str, redact_secrets: bool,
    iterations_reached: int = 0,
) -> ItemOutcome:  # fmt: skip
    """The item's final files, in one task: the best iteration's snapshots copied beside it,
    `output.zip` (the recording as uploaded, task.json rewritten; formats.md section 2) when it
    passed, else `error.txt` with why; what an earlier run left that this one did not replace
    (snapshots past `iterations_reached`, the other of output.zip/error.txt) deleted; then the
    index rows and, last, `item.json`."""
    done = _final_files(item, outcome, package, root_prefix, redact_secrets)
    _drop_stale(done, iterations_reached)
    done = done.model_copy(update={"finished_at": datetime.now(UTC)})
    index(done)
    return done


def _final_files(
    item: PlannedItem, outcome: ItemOutcome, package: TaskPackage | None, root_prefix: str, redact_secrets: bool
) -> ItemOutcome:
    storage = get_storage(outcome.storage_url)
    job, item_id = outcome.job_id, outcome.item_id
    best = outcome.best()
    for snapshot, source in (best.paths if best else {}).items():
        storage.write_bytes(layout.best_path(job, item_id, snapshot), storage.read_bytes(source))  # type: ignore[arg-type]
    if package is None or not outcome.passed:
        storage.write_bytes(layout.error_path(job, item_id), f"{outcome.error or outcome.message}\n".encode())
        package_path = layout.best_path(job, item_id, "task-package") if best else None
        return outcome.model_copy(update={"package_path": package_path})
    with tempfile.TemporaryDirectory(prefix="rlauto-export-") as tmp:
        # the recording under a fixed name: the source's own name may not fit in a path
        copy = Path(tmp) / ("recording.har" if item.source_name.lower().endswith(".har") else "recording.zip")
        with storage.open_read(item.upload_path) as src, copy.open("wb") as dst:
            shutil.copyfileobj(src, dst, _COPY_CHUNK)  # streamed both ways: a block in memory, not the ZIP
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


def _drop_stale(outcome: ItemOutcome, iterations_reached: int) -> None:
    storage = get_storage(outcome.storage_url)
    listed = storage.list(layout.export_dir(outcome.job_id, outcome.item_id))
    stale = layout.stale_exports(outcome.job_id, outcome.item_id, listed, iterations_reached=iterations_reached,
                                 passed=outcome.output_zip_path is not None, has_best=outcome.best() is not None)  # fmt: skip
    for path in stale:
        storage.delete(path)


def index(outcome: ItemOutcome) -> list[str]:
    """The item's index rows, then its `item.json`: the file whose presence says every other
    file of the item is in place (a crash between the two re-runs the item, and index readers
    keep the newest row)."""
    storage = get_storage(outcome.storage_url)
    written = append_item(storage, *index_rows(outcome))
    path = layout.item_outcome_path(outcome.job_id, outcome.item_id)
    storage.write_bytes(path, json_bytes(outcome))
    return [*written, path]
