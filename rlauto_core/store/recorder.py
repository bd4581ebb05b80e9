"""The one writer of the record a run leaves: an item's iteration snapshots and best copies, its
index rows and `item.json`, and a batch's `job.json` (inspect_ai's `Recorder` is the model: one
object logs a sample as it ends and the eval as it finishes, and reads them back). Flows and
tasks call it; none of them builds those paths or writes those files itself.

Order is the contract: an item's rows, then its `item.json` (whose presence says every other
file of the item is in place); a crash between the two re-runs the item, and index readers keep
the newest row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from rlauto_core.store import layout
from rlauto_core.store.index import append_item
from rlauto_core.store.outcome import BatchOutcome, ItemOutcome
from rlauto_core.store.rows import index_rows
from rlauto_core.store.storage import Storage

SnapshotFiles = Mapping[layout.Snapshot, BaseModel | dict[str, Any]]


def json_bytes(model: BaseModel | dict[str, Any] | list[Any]) -> bytes:
    if isinstance(model, BaseModel):
        return model.model_dump_json(indent=2, by_alias=True).encode()
    return json.dumps(model, indent=2, ensure_ascii=False, default=str).encode()


class Recorder:
    """Writes and reads one storage's record of items and jobs (every write atomic)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    def log_iteration(self, job_id: str, item_id: str, iteration: int, files: SnapshotFiles) -> dict[str, str]:
        """One iteration's snapshots (`*-iter-N.json`) as it ends; snapshot name -> path."""
        paths = {name: layout.iteration_path(job_id, item_id, name, iteration) for name in files}
        for name, model in files.items():
            self.storage.write_bytes(paths[name], json_bytes(model))
        return {str(name): path for name, path in paths.items()}

    def log_best(self, outcome: ItemOutcome) -> None:
        """The best iteration's snapshots copied beside it, under their plain names."""
        best = outcome.best()
        for snapshot, source in (best.paths if best else {}).items():
            target = layout.best_path(outcome.job_id, outcome.item_id, snapshot)  # type: ignore[arg-type]
            self.storage.write_bytes(target, self.storage.read_bytes(source))

    def drop_stale(self, outcome: ItemOutcome, iterations_reached: int) -> None:
        """What an earlier run of the item left that this one did not replace."""
        listed = self.storage.list(layout.export_dir(outcome.job_id, outcome.item_id))
        stale = layout.stale_exports(outcome.job_id, outcome.item_id, listed, iterations_reached=iterations_reached,
                                     passed=outcome.output_zip_path is not None, has_best=outcome.best() is not None)  # fmt: skip
        for path in stale:
            self.storage.delete(path)

    def log_item(self, outcome: ItemOutcome) -> list[str]:
        """The item's index rows, then its `item.json`: the item is complete."""
        written = append_item(self.storage, *index_rows(outcome))
        path = layout.item_outcome_path(outcome.job_id, outcome.item_id)
        self.storage.write_bytes(path, json_bytes(outcome))
        return [*written, path]

    def read_item(self, job_id: str, item_id: str) -> ItemOutcome | None:
        """The item's `item.json`, or None when it never finished."""
        path = layout.item_outcome_path(job_id, item_id)
        if not self.storage.exists(path):
            return None
        return ItemOutcome.model_validate_json(self.storage.read_bytes(path))

    def log_job(self, batch: BatchOutcome) -> str:
        """The batch's `job.json`, written when it ends (completed or stopped)."""
        path = layout.job_outcome_path(batch.job_id)
        self.storage.write_bytes(path, json_bytes(batch))
        return path
