"""Self-check: a package must prove its checkers separate good attempts from bad ones.

The golden trajectory must score full marks, an empty attempt nothing, each mutant of the golden
(a write dropped, retargeted, swapped with the write it depends on, or repeated on another
entity) must lose points, and each valid variant of it (variants.py: another path a good attempt
may take) must keep full marks. No model involved.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from rlauto_core.checkers.dsl import CALL_KINDS, check_catalog
from rlauto_core.checkers.runtime import CheckerEngine, ScoreReport, score
from rlauto_core.judging.independent import independent_evidence, scored_variant
from rlauto_core.judging.mutation import rebuilt, retarget
from rlauto_core.judging.variants import variants
from rlauto_core.package.calls import attempt_from_calls, call_from_api_call
from rlauto_core.package.models import (
    GoldenStep,
    MutantOutcome,
    SelfCheck,
    TaskPackage,
    VariantOutcome,
)
from rlauto_core.recording import AnnotatorTask, Call, DbDiff, Recording


def golden_attempt(package: TaskPackage, recording: Recording | None = None) -> tuple[Recording, list[str]]:
    """The golden trajectory as an attempt: from the recording when given, else from the package alone."""
    problems: list[str] = []
    calls: list[Call] = []
    by_id = {c.id: c for c in recording.calls} if recording is not None else {}
    objects = package.api_calls_by_id()
    for step in package.golden_trajectory:
        call = by_id.get(step.call_id)
        if call is None:
            obj = objects.get(step.call_id)
            if obj is None:
                problems.append(f"golden step {step.step} points at call {step.call_id!r}, which is nowhere")
                continue
            call = call_from_api_call(obj)
        calls.append(call)
    mode = package.network.mode
    attempt = attempt_from_calls(recording, calls, "golden", mode)
    if recording is None and package.dbdiff_criteria.golden_diff is not None:
        attempt.dbdiff = DbDiff.model_validate(package.dbdiff_criteria.golden_diff)
    task: dict[str, Any] = {"instruction": package.task.instruction}
    if package.task.answer is not None:
        task["answer"] = package.task.answer  # an answer task's golden attempt reports what the recording shows
    attempt.task = AnnotatorTask.model_validate(task)
    return attempt, problems


MutantKind = Literal["drop", "retarget", "swap", "stray", "answer"]
WRONG_ANSWER = "I could not find it."


def ordered_pairs(package: TaskPackage, golden: Recording) -> list[tuple[str, str]]:
    """(earlier, later) golden call ids that the package's `order` checkers order by checker key."""
    engine = CheckerEngine(package.rubric_checkers, golden)
    used = {r.checker_key for r in package.task.rubrics}
    pairs: list[tuple[str, str]] = []
    for key, checker in package.rubric_checkers.items():
        if key not in used or not isinstance(checker, dict) or checker.get("kind") != "order":
            continue
        before, after = checker.get("before"), checker.get("after")
        if not isinstance(before, str) or not isinstance(after, str):
            continue
        firsts, thens = engine.matches(before), engine.matches(after)
        if firsts and thens and firsts[0].id != thens[0].id:
            pairs.append((firsts[0].id, thens[0].id))
    return list(dict.fromkeys(pairs))


def required_reads(package: TaskPackage, golden: Recording) -> set[str]:
    """Golden reads a rubric's own call checker requires (an answer task's lookup)."""
    engine = CheckerEngine(package.rubric_checkers, golden)
    found: set[str] = set()
    for rubric in package.task.rubrics:
        checker = package.rubric_checkers.get(rubric.checker_key or "")
        if isinstance(checker, dict) and checker.get("kind") in CALL_KINDS:
            found.update(v.id for v in engine.matches(rubric.checker_key))
    writes = {s.call_id for s in package.golden_trajectory if s.state_changing}
    return found - writes


def mutants(
    golden: Recording,
    steps: list[GoldenStep],
    ordered: list[tuple[str, str]] | None = None,
    reads: set[str] | None = None,
) -> Iterator[tuple[MutantKind, str, list[str], Recording]]:
    """(kind, description, call ids, attempt) for each applicable mutant of the golden attempt: also a
    swap of each pair an order checker orders without a data dependency (`ordered`), a drop and a
    retarget of each required read (`reads`), and another answer when the golden reports one."""
    calls = list(golden.calls)
    position = {c.id: n for n, c in enumerate(calls)}
    writes = [s for s in steps if s.state_changing and s.call_id in position]
    looked_up = [s for s in steps if not s.state_changing and s.call_id in (reads or set()) and s.call_id in position]

    def attempt(new_calls: list[Call]) -> Recording:
        return attempt_from_calls(golden, new_calls, "mutant", golden.mode.value)

    for step in [*writes, *looked_up]:
        n = position[step.call_id]
        yield "drop", f"drop {step.name} ({step.call_id})", [step.call_id], attempt(calls[:n] + calls[n + 1 :])
    for step in [*writes, *looked_up]:
        if step.target is None:
            continue
        n = position[step.call_id]
        moved = retarget(calls[n], step.target.value)
        if moved is None:
            continue
        what = f"{step.name} ({step.call_id}) on another {step.target.key}"
        yield "retarget", f"move {what}", [step.call_id], attempt([*calls[:n], moved, *calls[n + 1 :]])
        if step.state_changing:  # reading another entity as well harms nothing
            stray = rebuilt(moved, id=f"{step.call_id}-stray")
            yield "stray", f"add a stray {what}", [step.call_id], attempt([*calls[: n + 1], stray, *calls[n + 1 :]])
    if (golden.task.model_extra or {}).get("answer") is not None:
        wrong = attempt(calls)
        wrong.task = AnnotatorTask.model_validate({"instruction": golden.task.instruction, "answer": WRONG_ANSWER})
        yield "answer", f"report {WRONG_ANSWER!r} instead of the answer", [], wrong
    pairs = [(dep, step.call_id) for step in writes for dep in step.depends_on if any(s.call_id == dep for s in writes)]
    pairs += [pair for pair in ordered or [] if pair not in pairs]
    for first, then in pairs:
        if first not in position or then not in position:
            continue
        a, b = position[first], position[then]
        swapped = list(calls)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        yield "swap", f"swap {first} and {then}", [first, then], attempt(swapped)


def self_check(package: TaskPackage, recording: Recording | None = None) -> SelfCheck:
    """Run the golden, the empty attempt and every mutant through the package's own checkers."""
    errors = [f.message for f in check_catalog(package.rubric_checkers, [(r.id, r.checker_key) for r in package.task.rubrics]) if f.severity == "error"]  # fmt: skip
    maximum = float(package.max_score)
    if errors or not package.task.rubrics:
        problems = [f"checker DSL: {e}" for e in errors] or ["the package has no rubrics"]
        return SelfCheck(
            golden_full_marks=False,
            golden_score=0,
            max_score=maximum,
            empty_attempt_score=0,
            empty_attempt_passed=False,
            mutants_total=0,
            mutants_caught=0,
            caught_fraction=0.0,
            problems=problems,
        )
    golden, problems = golden_attempt(package, recording)
    golden_report = score(package, golden)
    full = golden_report.score == golden_report.max_score and golden_report.max_score > 0
    for rubric in golden_report.rubrics:
        if not rubric.passed:
            problems.append(f"golden trajectory fails rubric {rubric.id} ({rubric.title}): {rubric.reason}")
    empty = attempt_from_calls(None, [], "empty", package.network.mode)
    empty_report = score(package, empty)
    for rubric in empty_report.rubrics:
        if rubric.passed:
            problems.append(f"rubric {rubric.id} ({rubric.title}) passes an empty attempt")
    outcomes: list[MutantOutcome] = []
    ordered = ordered_pairs(package, golden)
    reads = required_reads(package, golden)
    for number, (kind, description, ids, mutant) in enumerate(
        mutants(golden, package.golden_trajectory, ordered, reads), 1
    ):
        result = score(package, mutant)
        caught = result.score < golden_report.score
        outcomes.append(
            MutantOutcome(
                id=f"m{number}",
                kind=kind,
                description=description,
                call_ids=ids,
                score=result.score,
                caught=caught,
            )
        )
        if not caught:
            problems.append(f"mutant m{number} ({description}) keeps {result.score}/{result.max_score}")
    caught_count = sum(1 for m in outcomes if m.caught)
    tried = _variants(package, golden, golden_report, reads, recording)
    problems.extend(
        f"valid variant {v.id} ({v.description}) fails rubric {b.id} ({b.title}): {b.reason}"
        for v in tried
        for b in v.broken[:1]
    )
    later = [v for v in tried if v.kind in ("ids_renamed", "volatile_changed")]
    independent = independent_evidence(package, recording, golden, golden_report)
    problems.extend(independent.problems)
    if not outcomes:
        problems.append("no mutant applies: the golden trajectory has no state-changing call and reports no answer")
    return SelfCheck(
        golden_full_marks=full,
        golden_score=golden_report.score,
        max_score=maximum,
        empty_attempt_score=empty_report.score,
        empty_attempt_passed=empty_report.passed,
        mutants_total=len(outcomes),
        mutants_caught=caught_count,
        caught_fraction=round(caught_count / len(outcomes), 4) if outcomes else 0.0,
        redo_full_marks=all(v.full_marks for v in later) if later else None,
        mutants=outcomes,
        variants_total=len(tried),
        variants_passed=sum(1 for v in tried if v.full_marks),
        variants=tried,
        writes_covered=independent.writes_covered,
        writes_excluded=independent.writes_excluded,
        recording_mutants=independent.recording_mutants,
        behaviour_variants=independent.behaviour_variants,
        ungrounded=independent.ungrounded,
        problems=problems,
    )


def _variants(
    package: TaskPackage, golden: Recording, golden_report: ScoreReport, reads: set[str], recording: Recording | None
) -> list[VariantOutcome]:
    """Every valid variant scored; a rubric the golden passes and a variant fails is broken by it."""
    return [
        scored_variant(package, f"v{number}", kind, description, attempt, golden_report)
        for number, (kind, description, attempt) in enumerate(variants(package, golden, reads, recording), 1)
    ]


def cli_dict(result: SelfCheck) -> dict[str, Any]:
    """The `rlauto validate --json` keys."""
    failing = result.failing_variant
    return {
        "golden_full_marks": result.golden_full_marks,
        "empty_attempt_score": result.empty_attempt_score,
        "mutants_total": result.mutants_total,
        "mutants_caught": result.mutants_caught,
        "caught_fraction": result.caught_fraction,
        "redo_full_marks": result.redo_full_marks,
        "variants_total": result.variants_total,
        "variants_passed": result.variants_passed,
        "variants": [
            v.model_dump(include={"id", "kind", "description", "score", "full_marks"}) for v in result.variants
        ],
        "failing_variant": None
        if failing is None
        else {
            "id": failing.id,
            "kind": failing.kind,
            "description": failing.description,
            "rubrics": [b.model_dump() for b in failing.broken],
        },
        "writes_covered": [w.model_dump() for w in result.writes_covered],
        "writes_excluded": [w.model_dump() for w in result.writes_excluded],
        "recording_mutants_total": len(result.recording_mutants),
        "recording_mutants_caught": sum(1 for m in result.recording_mutants if m.caught),
        "recording_mutants": [m.model_dump() for m in result.recording_mutants],
        "behaviour_variants_total": len(result.behaviour_variants),
        "behaviour_variants_passed": sum(1 for v in result.behaviour_variants if v.full_marks),
        "behaviour_variants": [
            v.model_dump(include={"id", "kind", "description", "score", "full_marks"})
            for v in result.behaviour_variants
        ],
        "ungrounded": result.ungrounded,
        "problems": result.problems,
    }
