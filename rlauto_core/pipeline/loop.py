"""The judge loop of one recording, offline and with models alike.

analyzer -> build -> self-check -> validator -> judge -> pass policy, up to `max_iterations`
times (<= 5; the offline analyzer asks for one). The iteration memory carries open problems into
the next turn with the user's feedback. The best attempt is kept; without a pass the outcome
keeps the best package and says "iterated N/M, best X".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pydantic import BaseModel, Field

from rlauto_core.analysis.analyzers import AnalysisInput, Analyzer, ModelAnalyzer, OfflineAnalyzer, Turn
from rlauto_core.analysis.instruction_polish import with_polish
from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.config.options import RunOptions
from rlauto_core.evidence import build_evidence, slim_evidence
from rlauto_core.evidence.models import Evidence
from rlauto_core.judging.judges import Judge, ModelJudge, ValidatorJudge
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.judging.validator import validate
from rlauto_core.llm.errors import PermanentModelError
from rlauto_core.llm.factory import ModelClients
from rlauto_core.llm.types import Role, UsageLedger
from rlauto_core.package.builder import build_package
from rlauto_core.package.draft import PackageDraft
from rlauto_core.package.judgement import JudgeResult, PassPolicy
from rlauto_core.package.models import JudgeIteration, PackageValidation, TaskPackage
from rlauto_core.package.secret_checks import without_secret_comparisons
from rlauto_core.pipeline.memory import IterationMemory, judge_feedback
from rlauto_core.prompts import PROMPT_VERSION
from rlauto_core.prompts.answers import AnalyzerResult
from rlauto_core.recording import Recording
from rlauto_core.rules import run_rules
from rlauto_core.rules.flags import Flag
from rlauto_core.secret_values import recorded_secrets
from rlauto_core.store.layout import Snapshot
from rlauto_core.store.outcome import CheckFigures, ItemOutcome, IterationResult


class IterationSnapshot(BaseModel):
    """Everything one iteration produced: written to storage as its `*-iter-N.json` snapshots."""

    iteration: int
    prompt_version: str = PROMPT_VERSION
    evidence: dict[str, Any]
    analyzer_result: AnalyzerResult | None = None
    draft: PackageDraft
    package: TaskPackage
    validator_result: JudgeResult
    judge_result: JudgeResult
    judge_skipped: str | None = None
    passed: bool
    memory: IterationMemory
    usage: UsageLedger
    notes: list[str] = Field(default_factory=list)

    def files(self) -> dict[Snapshot, BaseModel | dict[str, Any]]:
        """The snapshot files of this iteration, by name (`rlauto_core.store.layout.SNAPSHOTS`)."""
        return {
            "evidence": self.evidence,
            "task-package": self.package,
            "judge-result": self.judge_result,
            "iteration-memory": self.memory,
        }


class Finished(NamedTuple):
    outcome: ItemOutcome
    package: TaskPackage  # the best iteration's package, its judge history in `validation`
    snapshots: list[IterationSnapshot]

    @property
    def best(self) -> IterationSnapshot:
        return next(s for s in self.snapshots if s.iteration == self.outcome.best_iteration)

    @property
    def usage(self) -> UsageLedger:
        """Tokens of every iteration, per role."""
        total = UsageLedger()
        for snapshot in self.snapshots:
            total.merge(snapshot.usage)
        return total


# Called after each iteration with its snapshot; returns where its files were written. It may
# raise to stop the item (a cancelled batch) before another iteration pays for model calls.
OnIteration = Callable[[IterationSnapshot], dict[str, str]]


def analysis_for(clients: ModelClients | None, options: RunOptions, model: str = "model") -> tuple[Analyzer, Judge]:
    """The analyzer and judge a run uses: offline unless an analyzer model is configured."""
    if clients is None or clients.analyzer is None or options.offline:
        return OfflineAnalyzer(), ValidatorJudge()
    analyzer = ModelAnalyzer(clients.analyzer, clients.rubric, model=model)
    if clients.judge is None:
        return analyzer, ValidatorJudge("no judge model configured (JUDGE_API_KEY)")
    return analyzer, ModelJudge(clients.judge, prompt_template=options.judge.prompt_template)


def run_item(
    recording: Recording,
    options: RunOptions,
    analyzer: Analyzer,
    judge: Judge,
    *,
    evidence: Evidence | None = None,
    flags: list[Flag] | None = None,
    outcome: ItemOutcome | None = None,
    on_iteration: OnIteration | None = None,
    generated_at: datetime | None = None,
    memory: IterationMemory | None = None,
) -> Finished:
    """Run the loop for one recording; `outcome` (identity, start time) is completed and returned.

    Transient model errors propagate (the caller retries; cached calls are not paid twice); a
    permanent one in the first iteration propagates, later it ends the loop with the best
    attempt kept and the error in the message. `memory`: an earlier run's iteration memory to
    continue from (a regenerate); its open problems reach the first prompt."""
    evidence = evidence or build_evidence(recording)
    flags = run_rules(recording, evidence, options.rule_profile) if flags is None else flags
    item = AnalysisInput(
        recording=recording,
        evidence=evidence,
        flags=flags,
        slim=slim_evidence(recording, evidence),
        offline=analyze_offline(recording, evidence, flags),
    )
    limit = min(options.max_iterations, analyzer.iterations or options.max_iterations)
    memory, feedback = memory or IterationMemory(), ""
    snapshots: list[IterationSnapshot] = []
    results: list[IterationResult] = []
    best: IterationSnapshot | None = None
    error: str | None = None
    for iteration in range(1, limit + 1):
        started = time.perf_counter()
        turn = Turn(iteration, limit, memory.render(), feedback, options.feedback)
        try:
            snapshot = _iteration(item, options, analyzer, judge, turn, memory, generated_at)
        except PermanentModelError as exc:
            if best is None:
                raise
            error = str(exc)
            break
        paths = on_iteration(snapshot) if on_iteration is not None else {}
        snapshots.append(snapshot)
        results.append(
            IterationResult.of(
                iteration, snapshot.judge_result, snapshot.passed, snapshot.usage,
                judge_skipped=snapshot.judge_skipped, notes=snapshot.notes, paths=paths,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
        )  # fmt: skip
        if best is None or (snapshot.passed, snapshot.judge_result.total) > (best.passed, best.judge_result.total):
            best = snapshot  # a pass beats any fail; then the higher total; a tie keeps the earlier
        if snapshot.passed:
            break
        memory, feedback = snapshot.memory, judge_feedback(snapshot.judge_result)
    assert best is not None  # the first iteration either produced a snapshot or raised
    package = _final_package(best, snapshots, analyzer.name)
    total = best.judge_result.total
    if best.passed:
        message = f"passed at iteration {best.iteration}/{limit}, score {total}/12"
    else:
        message = f"iterated {len(snapshots)}/{limit}, best {total}" + (f"; stopped by: {error}" if error else "")
        why = _first_sentence(best.judge_result.rationale)
        message += f": {why}" if why and not error else ""
    check = package.validation.self_check
    done = (outcome or ItemOutcome(job_id="", item_id="", source="", source_name="")).model_copy(
        update={
            "status": "completed" if best.passed else "failed",
            "mode": recording.mode.value,
            "rule_profile": options.rule_profile,
            "analyzer": analyzer.name,
            "verdict": best.judge_result.verdict,
            "total_score": total,
            "best_iteration": best.iteration,
            "max_iterations": limit,
            "iterations": results,
            "flags": flags,
            "instruction": package.task.instruction,
            "self_check": CheckFigures.of(check) if check is not None else None,
            "message": message,
            "error": None if best.passed else message,
            "finished_at": datetime.now(UTC),
        }
    )
    return Finished(recorded_secrets(recording).model(done), package, snapshots)


def _iteration(
    item: AnalysisInput,
    options: RunOptions,
    analyzer: Analyzer,
    judge: Judge,
    turn: Turn,
    memory: IterationMemory,
    generated_at: datetime | None,
) -> IterationSnapshot:
    usage = UsageLedger()
    try:
        drafted = analyzer.analyze(item, turn)
    except PermanentModelError as exc:
        if exc.usage is not None:  # what the failed call spent still counts
            usage.add(exc.role, exc.usage)
        raise
    usage.merge(drafted.usage)
    package = build_package(
        item.recording,
        item.evidence,
        drafted.draft,
        rule_profile=options.rule_profile,
        pass_policy=options.pass_policy,
        flags=item.flags,
        generated_at=generated_at,
    )
    if options.optimize_task:  # before the checks and the judge: they read the package shipped
        raw_task = item.recording.task_json.get("task")
        polished = analyzer.polish(package.task.instruction, raw_task if isinstance(raw_task, dict) else {})
        if polished.usage.calls:
            usage.add(Role.POLISH, polished.usage)
        package = with_polish(package, polished)
    # a secret the recording carries, wherever it recurs (an echo, a URL, a field of another name),
    # is out of the package before the checks run: they check what ships
    secrets = recorded_secrets(item.recording)
    package = without_secret_comparisons(secrets.model(package))
    # the self-check runs once and is stored in the package: validator and judge both read it
    check = self_check(package, item.recording)
    package = package.model_copy(update={"validation": package.validation.model_copy(update={"self_check": check})})
    policy = options.pass_policy
    validator_result = validate(
        package, item.recording, evidence=item.evidence, flags=item.flags, check=check, policy=policy
    )
    judged = judge.judge(package, validator_result, slim=item.slim, policy=policy)
    usage.merge(judged.usage)
    result = secrets.model(_with_verdict(judged.result, policy))  # reasons may quote the recording
    return IterationSnapshot(
        iteration=turn.iteration,
        evidence={
            "slim": item.slim,
            "flags": secrets.value([f.model_dump(mode="json") for f in item.flags]),
            "prompt_chars": drafted.prompt_chars,
        },
        analyzer_result=secrets.model(drafted.result) if drafted.result is not None else None,
        draft=secrets.model(drafted.draft),
        package=package,
        validator_result=secrets.model(validator_result),
        judge_result=result,
        judge_skipped=judged.skipped,
        passed=policy.satisfied(result),
        memory=secrets.model(memory.updated(turn.iteration, result)),
        usage=usage,
        notes=secrets.value(drafted.notes),
    )


def _with_verdict(result: JudgeResult, policy: PassPolicy) -> JudgeResult:
    return result.model_copy(update={"verdict": "PASS" if policy.satisfied(result) else "NEEDS_REVISION"})


def _final_package(best: IterationSnapshot, snapshots: list[IterationSnapshot], analyzer: str) -> TaskPackage:
    validation = PackageValidation.model_validate(
        {
            **best.package.validation.model_dump(),
            "judge": [JudgeIteration(iteration=s.iteration, result=s.judge_result) for s in snapshots],
            "iterations_used": len(snapshots),
            "verdict": "PASS" if best.passed else "NEEDS_REVISION",
            "prompt_version": PROMPT_VERSION,
            "analyzer": analyzer,
            "best_iteration": best.iteration,
        }
    )
    return best.package.model_copy(update={"validation": validation})


def _first_sentence(text: str, limit: int = 300) -> str:
    """What a failed item's message says first: the judge's leading reason, cut to one line."""
    line = " ".join(text.split())
    cut = line.find(". ")
    line = line[: cut + 1] if cut >= 0 else line
    return line if len(line) <= limit else line[: limit - 1] + "…"
