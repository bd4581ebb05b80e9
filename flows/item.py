"""The order of one recording's steps, run inside the `package-recording` flow run.

stage (only for a recording not staged by its batch) -> parse (the staged copy, read once) ->
run (the core judge loop: evidence and rules once, then offline or with models; each
iteration's snapshots recorded as it ends) -> export (best copies, output.zip or error.txt, then
the record: index rows, item.json). A stop request (the batch was cancelled) is honoured after
the parse and before another iteration; what was written so far stays.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import IO, Any

from rlauto_core.config import RunContext, RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.importers import import_path
from rlauto_core.llm import Role
from rlauto_core.pipeline import ItemOutcome, IterationSnapshot, PlannedItem, plan_staged, read_memory, run_item
from rlauto_core.store import copy_source, layout, open_staged
from tasks.analysis import open_analysis
from tasks.recording_tasks import export
from tasks.storage_io import get_recorder, get_storage


class ItemStopped(Exception):
    """The batch this item belongs to was cancelled: stop at the next step boundary."""


# the batch was cancelled? `fresh`: ask now rather than trust the last answer
StopCheck = Callable[[bool], bool]
StateHook = Callable[[str], None]
Gate = Callable[[], AbstractContextManager[Any]]


class ItemRun:
    """One recording's run; `run()` returns its `ItemOutcome` (also recorded as `item.json`)."""

    def __init__(
        self,
        *,
        source: str,
        source_name: str,
        options: RunOptions,
        job_id: str | None,
        context: RunContext,
        flow_run_id: str | None,
        stop_requested: StopCheck,
        set_state: StateHook,
        memory_path: str | None = None,
        staged: PlannedItem | None = None,
        model_gate: Gate | None = None,
    ) -> None:
        self.source, self.source_name, self.options = source, source_name, options
        self.job_id, self.context = job_id, context
        self.flow_run_id, self.stop_requested, self.set_state = flow_run_id, stop_requested, set_state
        self.memory_path = memory_path  # a regenerate continues from this iteration memory
        self.staged = staged  # planned and staged by the batch: read from its upload, never hashed again
        self.model_gate = model_gate  # the batch's limit of model calls in flight
        self.recorder = get_recorder(context.storage_url)
        self.iteration = 1  # the loop's current iteration, for the model calls' cache keys
        self._ids = ("", "")  # job, item: known once the recording is staged
        self.judging = False  # the run's state is "Judging"

    def run(self) -> ItemOutcome:
        storage = get_storage(self.context.storage_url)
        item = self.staged or self._stage()
        with open_staged(storage, item.upload_path) as staged:
            return self._run(item, staged)

    def _stage(self) -> PlannedItem:
        """A recording run on its own (the Prefect UI, a retry): hashed as it is copied into
        `uploads/` (a local temporary copy on the way, so the source is read once)."""
        storage = get_storage(self.context.storage_url)
        with tempfile.TemporaryDirectory(prefix="rlauto-stage-") as tmp:
            copy = Path(tmp) / "recording"
            with copy.open("wb") as out:
                sha, size = copy_source(self.source, out, self.context.settings.max_upload_mb)
            item = plan_staged(self.source, sha, size, self.options.options_hash(), self.job_id, self.source_name)
            if not storage.exists(item.upload_path):
                storage.write_stream(item.upload_path, lambda out: _copy_file(copy, out))
        return item

    def _run(self, item: PlannedItem, staged: Path) -> ItemOutcome:
        clock = time.perf_counter()
        settings = self.context.settings
        self._ids = (item.job_id, item.item_id)
        outcome = ItemOutcome(
            job_id=item.job_id,
            item_id=item.item_id,
            source=self.source,
            source_name=item.source_name,
            source_sha256=item.source_sha256,
            options_hash=self.options.options_hash(),
            status="running",
            rule_profile=self.options.rule_profile,
            storage_url=self.context.storage_url,
            export_dir=layout.export_dir(item.job_id, item.item_id),
            flow_run_id=self.flow_run_id,
        )
        package, root_prefix = None, ""
        try:
            recording = import_path(staged, self.options.requested_mode, settings.max_upload_mb, name=item.source_name)
            outcome.mode = recording.mode.value
            self._check_stop(fresh=False)
            root_prefix = recording.root_prefix
            storage = get_storage(self.context.storage_url)
            memory = read_memory(storage, self.memory_path) if self.memory_path else None
            with open_analysis(self.context, self.options, item, iteration=lambda: self.iteration,
                               on_call=self._on_call, model_gate=self.model_gate) as (analyzer, judge):  # fmt: skip
                outcome, package, _ = run_item(recording, self.options, analyzer, judge, outcome=outcome,
                                               on_iteration=self._snapshot, memory=memory)  # fmt: skip
        except ItemStopped:
            raise
        except RlautoError as exc:
            outcome = outcome.model_copy(update={"status": "failed", "error": str(exc)})
        outcome = outcome.model_copy(update={"duration_ms": (time.perf_counter() - clock) * 1000})
        # best copies, output.zip or error.txt, the index rows, then item.json: the item is complete
        return export(item, outcome, package, root_prefix, self.options.redact_secrets, self.iteration - 1)

    def _snapshot(self, snapshot: IterationSnapshot) -> dict[str, str]:
        job, item = self._ids
        paths = self.recorder.log_iteration(job, item, snapshot.iteration, snapshot.files())
        self.iteration = snapshot.iteration + 1
        if not snapshot.passed:  # another iteration is about to pay for model calls
            self._check_stop(fresh=True)
        return paths

    def _on_call(self, role: Role, starting: bool) -> None:
        # "Judging" from the judge's call until another role's: after the last judge the run ends
        # (Completed or Failed) without a state write back to Running, one API write per item less
        if not starting or (role is Role.JUDGE) == self.judging:
            return
        self.judging = role is Role.JUDGE
        self.set_state("Judging" if self.judging else "Running")

    def _check_stop(self, *, fresh: bool) -> None:
        if self.stop_requested(fresh):
            raise ItemStopped("the batch was cancelled")


def _copy_file(path: Path, out: IO[bytes]) -> None:
    with path.open("rb") as src:
        shutil.copyfileobj(src, out, 1024 * 1024)
