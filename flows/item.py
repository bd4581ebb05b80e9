"""The order of one recording's steps, run inside the `package-recording` flow run.

stage -> parse -> rules -> run (the core judge loop, offline or with models; each iteration's
snapshots written as it ends) -> export (best copies, output.zip or error.txt) -> index (rows,
then item.json). A stop request (the batch was cancelled) is honoured after the rules and before
another iteration; what was written so far stays.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rlauto_core.config import RunOptions, Settings
from rlauto_core.errors import RlautoError
from rlauto_core.llm import Role
from rlauto_core.pipeline import ItemOutcome, IterationSnapshot, plan_staged, read_memory, run_item
from rlauto_core.store import copy_source, layout
from tasks import recording_tasks as steps
from tasks.analysis import open_analysis
from tasks.storage_io import get_storage, persist_snapshots, put_upload_file


class ItemStopped(Exception):
    """The batch this item belongs to was cancelled: stop at the next step boundary."""


# the batch was cancelled? `fresh`: ask now rather than trust the last answer
StopCheck = Callable[[bool], bool]
StateHook = Callable[[str], None]


class ItemRun:
    """One recording's run; `run()` returns its `ItemOutcome` (also written to `item.json`)."""

    def __init__(
        self,
        *,
        source: str,
        source_name: str,
        options: RunOptions,
        job_id: str | None,
        storage_url: str,
        settings: Settings,
        flow_run_id: str | None,
        stop_requested: StopCheck,
        set_state: StateHook,
        memory_path: str | None = None,
    ) -> None:
        self.source, self.source_name, self.options = source, source_name, options
        self.job_id, self.storage_url, self.settings = job_id, storage_url, settings
        self.flow_run_id, self.stop_requested, self.set_state = flow_run_id, stop_requested, set_state
        self.memory_path = memory_path  # a regenerate continues from this iteration memory
        self.iteration = 1  # the loop's current iteration, for the model calls' cache keys
        self._ids = ("", "")  # job, item: known once the recording is staged
        self.judging = False  # the run's state is "Judging"

    def run(self) -> ItemOutcome:
        # the recording is copied to a local file once and read from there entry by entry: a
        # 50 MB ZIP is never held whole, nor read again from its source for each step
        with tempfile.TemporaryDirectory(prefix="rlauto-item-") as tmp:
            return self._run(Path(tmp) / "recording")

    def _run(self, staged: Path) -> ItemOutcome:
        clock = time.perf_counter()
        with staged.open("wb") as copy:
            sha, size = copy_source(self.source, copy, self.settings.max_upload_mb)
        options_hash = self.options.options_hash()
        item = plan_staged(self.source, sha, size, options_hash, self.job_id, self.source_name)
        put_upload_file(get_storage(self.storage_url), staged, item)
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
            storage_url=self.storage_url,
            export_dir=layout.export_dir(item.job_id, item.item_id),
            flow_run_id=self.flow_run_id,
        )
        package, root_prefix = None, ""
        try:
            recording = steps.parse(item, staged, self.options.requested_mode, self.settings.max_upload_mb)
            findings = steps.rules(recording, self.options.rule_profile)
            outcome.mode, outcome.flags = recording.mode.value, findings.flags
            self._check_stop(fresh=False)
            root_prefix = recording.root_prefix
            memory = read_memory(get_storage(self.storage_url), self.memory_path) if self.memory_path else None
            with open_analysis(self.settings, self.options, item, self.storage_url,
                               iteration=lambda: self.iteration, on_call=self._on_call) as (analyzer, judge):  # fmt: skip
                outcome, package, _ = run_item(
                    recording, self.options, analyzer, judge, evidence=findings.evidence, flags=findings.flags,
                    outcome=outcome, on_iteration=self._snapshot, memory=memory,
                )  # fmt: skip
        except ItemStopped:
            raise
        except RlautoError as exc:
            outcome = outcome.model_copy(update={"status": "failed", "error": str(exc)})
        outcome = outcome.model_copy(update={"duration_ms": (time.perf_counter() - clock) * 1000})
        # best copies, output.zip or error.txt, the index rows, then item.json: the item is complete
        return steps.export(item, outcome, package, root_prefix, self.options.redact_secrets, self.iteration - 1)

    def _snapshot(self, snapshot: IterationSnapshot) -> dict[str, str]:
        job, item = self._ids
        paths = {name: layout.iteration_path(job, item, name, snapshot.iteration) for name in layout.SNAPSHOTS}
        files = snapshot.files()
        persist_snapshots(self.storage_url, {paths[name]: files[name] for name in layout.SNAPSHOTS})
        self.iteration = snapshot.iteration + 1
        if not snapshot.passed:  # another iteration is about to pay for model calls
            self._check_stop(fresh=True)
        return {str(name): path for name, path in paths.items()}

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
