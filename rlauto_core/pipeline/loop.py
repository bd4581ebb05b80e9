"""The judge loop of one recording: analyzer -> build -> validator -> model judge -> pass policy.

A pure function with injected clients: up to `options.max_iterations` (<= 5) iterations. When
the deterministic validator already scores a dimension 0, the model judge is skipped and the
validator's findings are fed back (a call saved). The iteration memory carries open problems
into the next prompt with the user's feedback. The best attempt is tracked; without a pass the
outcome keeps the best package and says "iterated N/M, best X".
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.analysis.model import analyze_with_model, complete_rubrics, settle_incomplete
from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.evidence import build_evidence, slim_evidence
from rlauto_core.evidence.models import Evidence
from rlauto_core.judging.model import judge_with_model
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.judging.validator import validate
from rlauto_core.llm.errors import PermanentModelError
from rlauto_core.llm.factory import Gate, ModelClients, open_clients
from rlauto_core.llm.types import Role, UsageLedger
from rlauto_core.package.builder import build_package
from rlauto_core.package.draft import PackageDraft
from rlauto_core.package.judgement import JudgeResult, PassPolicy
from rlauto_core.package.models import JudgeIteration, PackageValidation, TaskPackage
from rlauto_core.pipeline.memory import IterationMemory, judge_feedback
from rlauto_core.prompts import PROMPT_VERSION
from rlauto_core.prompts.answers import AnalyzerResult
from rlauto_core.recording import Recording
from rlauto_core.rules import run_rules
from rlauto_core.rules.flags import Flag


class IterationRecord(BaseModel):
    """Everything one iteration produced, for `*-iter-N.json` snapshots and the index."""

    iteration: int
    prompt_version: str = PROMPT_VERSION
    evidence: dict[str, Any]
    analyzer_result: AnalyzerResult
    draft: PackageDraft
    package: TaskPackage
    validator_result: JudgeResult
    judge_result: JudgeResult
    judge_skipped: str | None = None
    passed: bool
    memory: IterationMemory
    usage: UsageLedger
    notes: list[str] = Field(default_factory=list)


class IterationOutcome(BaseModel):
    passed: bool
    iterations_used: int
    max_iterations: int
    best_iteration: int
    package: TaskPackage
    judge_result: JudgeResult
    records: list[IterationRecord]
    usage: UsageLedger
    message: str
    error: str | None = None


def _verdict(result: JudgeResult, policy: PassPolicy) -> JudgeResult:
    return result.model_copy(update={"verdict": "PASS" if policy.satisfied(result) else "NEEDS_REVISION"})


def _judge(
    clients: ModelClients,
    package: TaskPackage,
    validator_result: JudgeResult,
    *,
    slim: dict[str, Any],
    options: RunOptions,
    ledger: UsageLedger,
) -> tuple[JudgeResult, str | None]:
    if validator_result.has_zeros:
        zeros = ", ".join(s.dimension.value for s in validator_result.scores if s.score == 0)
        return validator_result, f"validator scored 0 on {zeros}"
    if clients.judge is None:
        return validator_result, "no judge model configured (JUDGE_API_KEY)"
    result, usage = judge_with_model(
        clients.judge,
        package,
        slim=slim,
        policy=options.pass_policy,
        validator_result=validator_result,
        prompt_template=options.judge.prompt_template,
    )
    ledger.add(Role.JUDGE, usage)
    return result, None


def _better(record: IterationRecord, best: IterationRecord | None) -> bool:
    # a pass beats any fail; then the higher total; the earlier iteration wins a tie
    if best is None:
        return True
    return (record.passed, record.judge_result.total) > (best.passed, best.judge_result.total)


def _final_package(best: IterationRecord, records: list[IterationRecord], passed: bool) -> TaskPackage:
    validation = PackageValidation.model_validate(
        {
            **best.package.validation.model_dump(),
            "judge": [JudgeIteration(iteration=r.iteration, result=r.judge_result) for r in records],
            "iterations_used": len(records),
            "verdict": "PASS" if passed else "NEEDS_REVISION",
            "prompt_version": PROMPT_VERSION,
            "analyzer": "model",
            "best_iteration": best.iteration,
        }
    )
    return best.package.model_copy(update={"validation": validation})


def run_iterations(
    recording: Recording,
    options: RunOptions,
    clients: ModelClients,
    *,
    evidence: Evidence | None = None,
    flags: list[Flag] | None = None,
    offline_draft: PackageDraft | None = None,
    on_iteration: Callable[[IterationRecord], None] | None = None,
    generated_at: datetime | None = None,
) -> IterationOutcome:
    """Run the model path for one recording. Transient model errors propagate (the caller retries;
    cached calls are not paid twice); a permanent one in the first iteration propagates, later it
    ends the loop with the best attempt kept and the error in `outcome.error`."""
    if clients.analyzer is None:
        raise ConfigError("the model path needs an analyzer model: set DEFAULT_API_KEY or pass an API key")
    evidence = evidence or build_evidence(recording)
    flags = run_rules(recording, evidence, options.rule_profile) if flags is None else flags
    slim = slim_evidence(recording, evidence)
    offline = offline_draft or analyze_offline(recording, evidence, flags)
    memory = IterationMemory()
    feedback = ""
    records: list[IterationRecord] = []
    best: IterationRecord | None = None
    total_usage = UsageLedger()
    error: str | None = None
    for iteration in range(1, options.max_iterations + 1):
        ledger = UsageLedger()
        try:
            record = _one_iteration(
                recording, evidence, flags, slim, offline, options, clients,
                iteration=iteration, memory=memory, feedback=feedback, ledger=ledger, generated_at=generated_at,
            )  # fmt: skip
        except PermanentModelError as exc:
            if exc.usage is not None:
                ledger.add(exc.role, exc.usage)
            total_usage.merge(ledger)
            if best is None:
                raise
            error = str(exc)
            break
        total_usage.merge(ledger)
        records.append(record)
        if on_iteration is not None:
            on_iteration(record)
        if _better(record, best):
            best = record
        if record.passed:
            break
        memory = record.memory
        feedback = judge_feedback(record.judge_result)
    assert best is not None  # the first iteration either produced a record or raised
    passed = best.passed
    used = len(records)
    if passed:
        message = f"passed at iteration {best.iteration}/{options.max_iterations}, score {best.judge_result.total}/12"
    else:
        message = f"iterated {used}/{options.max_iterations}, best {best.judge_result.total}"
        if error:
            message += f"; stopped by: {error}"
    return IterationOutcome(
        passed=passed,
        iterations_used=used,
        max_iterations=options.max_iterations,
        best_iteration=best.iteration,
        package=_final_package(best, records, passed),
        judge_result=best.judge_result,
        records=records,
        usage=total_usage,
        message=message,
        error=error,
    )


def _one_iteration(
    recording: Recording,
    evidence: Evidence,
    flags: list[Flag],
    slim: dict[str, Any],
    offline: PackageDraft,
    options: RunOptions,
    clients: ModelClients,
    *,
    iteration: int,
    memory: IterationMemory,
    feedback: str,
    ledger: UsageLedger,
    generated_at: datetime | None,
) -> IterationRecord:
    assert clients.analyzer is not None
    step = analyze_with_model(
        clients.analyzer,
        evidence=evidence,
        slim=slim,
        flags=flags,
        offline=offline,
        memory=memory.render(),
        judge_feedback=feedback,
        user_feedback=options.feedback,
        iteration=iteration,
        max_iterations=options.max_iterations,
    )
    ledger.add(Role.ANALYZER, step.usage)
    notes: list[str] = []
    draft = step.draft
    if step.incomplete and clients.rubric is not None:
        try:
            draft, usage = complete_rubrics(clients.rubric, draft, step.incomplete, slim)
            ledger.add(Role.RUBRIC, usage)
        except PermanentModelError as exc:
            # rubric completion is a refinement: the offline checkers stand in when it fails
            if exc.usage is not None:
                ledger.add(Role.RUBRIC, exc.usage)
            notes.append(f"rubric completion failed: {exc}")
    draft = settle_incomplete(draft, offline)
    package = build_package(
        recording,
        evidence,
        draft,
        rule_profile=options.rule_profile,
        pass_policy=options.pass_policy,
        flags=flags,
        generated_at=generated_at,
    )
    # the self-check runs once and is stored in the package: validator and judge both read it
    check = self_check(package, recording)
    package = package.model_copy(update={"validation": package.validation.model_copy(update={"self_check": check})})
    validator_result = validate(package, recording, evidence=evidence, check=check, policy=options.pass_policy)
    judge_result, skipped = _judge(clients, package, validator_result, slim=slim, options=options, ledger=ledger)
    judge_result = _verdict(judge_result, options.pass_policy)
    return IterationRecord(
        iteration=iteration,
        evidence={"slim": slim, "flags": [f.model_dump(mode="json") for f in flags], "prompt_chars": step.prompt_chars},
        analyzer_result=step.result,
        draft=draft,
        package=package,
        validator_result=validator_result,
        judge_result=judge_result,
        judge_skipped=skipped,
        passed=options.pass_policy.satisfied(judge_result),
        memory=memory.updated(iteration, judge_result),
        usage=ledger,
        notes=notes,
    )


def run_with_settings(
    recording: Recording,
    options: RunOptions,
    settings: Settings,
    *,
    gate: Gate | None = None,
    evidence: Evidence | None = None,
    flags: list[Flag] | None = None,
    on_iteration: Callable[[IterationRecord], None] | None = None,
) -> IterationOutcome:
    """What the CLI and Prefect tasks call: real clients for every configured role, then the loop."""
    with open_clients(settings, options, gate=gate) as clients:
        return run_iterations(recording, options, clients, evidence=evidence, flags=flags, on_iteration=on_iteration)
