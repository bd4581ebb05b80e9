"""The order of one recording's steps, run inside the `package-recording` flow run.

stage upload -> parse -> rules -> iterations (offline: analyze, build, judge once; with a model:
`run_iterations` whose every model call is a cached task) -> snapshots -> output.zip or
error.txt -> item.json -> index -> artifacts. A stop request (the batch was cancelled) is
honoured between steps and between iterations; what was written so far stays.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.errors import RlautoError
from rlauto_core.llm.factory import ModelClients, analyzer_configured, open_clients
from rlauto_core.llm.types import Role, UsageLedger
from rlauto_core.package.judgement import JudgeResult
from rlauto_core.package.models import TaskPackage
from rlauto_core.pipeline.loop import IterationOutcome, IterationRecord, run_iterations
from rlauto_core.pipeline.memory import IterationMemory
from rlauto_core.prompts import PROMPT_VERSION
from rlauto_core.rules.flags import Flag
from rlauto_core.store import layout
from tasks import recording_tasks as steps
from tasks.index_tasks import IndexExtras, index_item
from tasks.model_calls import CachedModelClient, ensure_llm_limit, llm_gate
from tasks.models import ItemResult, IterationSummary, UploadRef
from tasks.storage_io import (
    get_storage,
    persist_bytes,
    persist_snapshots,
    result_storage_for,
    stage_source,
)


class ItemStopped(Exception):
    """The batch this item belongs to was cancelled: stop at the next step boundary."""


# the batch was cancelled? `fresh`: ask now rather than trust the last answer
StopCheck = Callable[[bool], bool]
StateHook = Callable[[str], None]


def summarize(
    iteration: int, judge: JudgeResult, passed: bool, usage: UsageLedger, paths: dict[str, str], ms: float
) -> IterationSummary:
    total = usage.total
    return IterationSummary(
        iteration=iteration,
        scores={s.dimension.value: s.score for s in judge.scores},
        total=judge.total,
        verdict=judge.verdict,
        passed=passed,
        judge_source=judge.source,
        rationale=judge.rationale,
        explanations={s.dimension.value: s.explanation for s in judge.scores},
        tokens_prompt=total.prompt_tokens,
        tokens_completion=total.completion_tokens,
        duration_ms=ms,
        paths=paths,
    )


class ItemRun:
    """One recording's run; `run()` returns its `ItemResult` (also written to `item.json`)."""

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
    ) -> None:
        self.source, self.source_name, self.options = source, source_name, options
        self.job_id, self.storage_url, self.settings = job_id, storage_url, settings
        self.flow_run_id, self.stop_requested, self.set_state = flow_run_id, stop_requested, set_state
        self.storage = get_storage(storage_url)
        self.started = datetime.now(UTC)
        self.clock = time.perf_counter()
        self.summaries: list[IterationSummary] = []
        self.flags: list[Flag] = []
        self.upload: UploadRef | None = None
        self.extras = IndexExtras(rule_profile=options.rule_profile, started_at=self.started)

    # -- steps -----------------------------------------------------------------------------------

    def run(self) -> ItemResult:
        options = self.options
        data, upload = stage_source(
            self.source, self.source_name, options.options_hash(), self.job_id, self.storage_url,
            self.settings.max_upload_mb,
        )  # fmt: skip
        self.upload = upload
        try:
            recording = steps.parse(upload, data, options, self.settings.max_upload_mb)
            del data
            findings = steps.rules(recording, options)
            self.flags = findings.flags
            self.extras.mode = recording.mode.value
            self.extras.flags_json = json.dumps([f.model_dump(mode="json") for f in findings.flags])
            self._check_stop(fresh=False)
            if analyzer_configured(self.settings, options) and not options.offline:
                outcome = self._model_path(recording, findings)
            else:
                outcome = self._offline_path(recording, findings)
            return self._finish(outcome, upload, recording)
        except ItemStopped:
            raise
        except RlautoError as exc:
            return self._fail(upload, str(exc))

    def _offline_path(
        self, recording: Any, findings: steps.Findings
    ) -> IterationOutcome | tuple[TaskPackage, JudgeResult]:
        started = time.perf_counter()
        draft = steps.analyze(recording, findings)
        package = steps.build(recording, findings, draft, self.options)
        self.set_state("Judging")
        try:
            result = steps.judge(recording, findings, package, self.options)
        finally:
            self.set_state("Running")
        package = steps.finalize_offline(package, result)
        memory = IterationMemory().updated(1, result)
        passed = self.options.pass_policy.satisfied(result)
        paths = self._snapshot(1, steps.slim_view(recording, findings), package, result, memory)
        self.summaries.append(
            summarize(1, result, passed, UsageLedger(), paths, (time.perf_counter() - started) * 1000)
        )
        self.extras.analyzer = "offline"
        return package, result

    def _model_path(self, recording: Any, findings: steps.Findings) -> IterationOutcome:
        limit = self.settings.global_llm_concurrency
        ensure_llm_limit(limit)
        self.extras.analyzer = self.options.model or self.settings.default_model
        assert self.upload is not None
        prefix = f"{self.upload.source_sha256[:20]}-{self.upload.options_hash}"
        results = result_storage_for(self.storage_url)
        iteration = {"n": 1, "started": time.perf_counter()}

        def on_call(role: Role, starting: bool) -> None:
            if role is Role.JUDGE:
                self.set_state("Judging" if starting else "Running")

        def wrap(client: Any) -> Any:
            if client is None:
                return None
            return CachedModelClient(
                client,
                key_prefix=prefix,
                prompt_version=PROMPT_VERSION,
                iteration=lambda: iteration["n"],
                on_call=on_call,
                result_storage=results,
            )

        def on_iteration(record: IterationRecord) -> None:
            paths = self._snapshot(
                record.iteration, record.evidence, record.package, record.judge_result, record.memory
            )
            ms = (time.perf_counter() - iteration["started"]) * 1000
            self.summaries.append(
                summarize(record.iteration, record.judge_result, record.passed, record.usage, paths, ms)
            )
            iteration["n"] = record.iteration + 1
            iteration["started"] = time.perf_counter()
            if not record.passed:  # another iteration is about to pay for model calls
                self._check_stop(fresh=True)

        with open_clients(self.settings, self.options, gate=llm_gate(limit)) as clients:
            cached = ModelClients(
                analyzer=wrap(clients.analyzer), judge=wrap(clients.judge), rubric=wrap(clients.rubric)
            )
            return run_iterations(
                recording, self.options, cached, evidence=findings.evidence, flags=findings.flags,
                on_iteration=on_iteration,
            )  # fmt: skip

    # -- storage -----------------------------------------------------------------------------------

    def _snapshot(
        self,
        iteration: int,
        evidence: dict[str, Any],
        package: TaskPackage,
        judge: JudgeResult,
        memory: IterationMemory,
    ) -> dict[str, str]:
        assert self.upload is not None
        job, item = self.upload.job_id, self.upload.item_id
        files: dict[str, Any] = {
            "evidence": evidence,
            "task-package": package,
            "judge-result": judge,
            "iteration-memory": memory,
        }
        paths = {snapshot: layout.iteration_path(job, item, snapshot, iteration) for snapshot in files}  # type: ignore[arg-type]
        persist_snapshots(self.storage_url, {paths[snapshot]: model for snapshot, model in files.items()})
        return paths

    def _finish(
        self, outcome: IterationOutcome | tuple[TaskPackage, JudgeResult], upload: UploadRef, recording: Any
    ) -> ItemResult:
        if isinstance(outcome, IterationOutcome):
            package, judge, passed = outcome.package, outcome.judge_result, outcome.passed
            best, message = outcome.best_iteration, outcome.message
        else:
            package, judge = outcome
            passed, best = self.options.pass_policy.satisfied(judge), 1
            message = "passed at iteration 1/1 (offline)" if passed else f"iterated 1/1, best {judge.total} (offline)"
        job, item = upload.job_id, upload.item_id
        best_paths = self.summaries[best - 1].paths if best <= len(self.summaries) else {}
        best_copies = {path: layout.best_path(job, item, snapshot) for snapshot, path in best_paths.items()}  # type: ignore[arg-type]
        check = package.validation.self_check
        self.extras.instruction = package.task.instruction
        if check is not None:
            self.extras.golden_full_marks = check.golden_full_marks
            self.extras.empty_attempt_score = check.empty_attempt_score
            self.extras.mutants_total, self.extras.mutants_caught = check.mutants_total, check.mutants_caught
        output_zip = steps.export(
            upload, recording, package, self.options, self.storage_url, best_copies, passed, message
        )
        return self._record(
            status="completed" if passed else "failed",
            verdict=judge.verdict,
            total=judge.total,
            best=best,
            package_path=layout.best_path(job, item, "task-package"),
            output_zip=output_zip,
            error=None if passed else message,
        )

    def _fail(self, upload: UploadRef, message: str) -> ItemResult:
        persist_bytes(self.storage_url, layout.error_path(upload.job_id, upload.item_id), f"{message}\n".encode())
        best = max(self.summaries, key=lambda s: s.total, default=None)
        return self._record(
            status="failed", verdict=None, total=best.total if best else None,
            best=best.iteration if best else None, package_path=None, output_zip=None, error=message,
        )  # fmt: skip

    def _record(
        self,
        *,
        status: str,
        verdict: str | None,
        total: int | None,
        best: int | None,
        package_path: str | None,
        output_zip: str | None,
        error: str | None,
    ) -> ItemResult:
        assert self.upload is not None
        upload = self.upload
        result = ItemResult(
            job_id=upload.job_id,
            item_id=upload.item_id,
            source=self.source,
            source_name=self.source_name,
            source_sha256=upload.source_sha256,
            options_hash=upload.options_hash,
            status=status,  # type: ignore[arg-type]
            verdict=verdict,
            total_score=total,
            best_iteration=best,
            iterations_used=len(self.summaries),
            iterations=self.summaries,
            flag_codes=sorted({f.code for f in self.flags}),
            storage_url=self.storage_url,
            export_dir=layout.export_dir(upload.job_id, upload.item_id),
            package_path=package_path,
            output_zip_path=output_zip,
            error=error,
            flow_run_id=self.flow_run_id,
            duration_ms=(time.perf_counter() - self.clock) * 1000,
        )
        index_item(result, self.extras)  # then item.json, last: the item is complete
        return result

    def _check_stop(self, *, fresh: bool) -> None:
        if self.stop_requested(fresh):
            raise ItemStopped("the batch was cancelled")
