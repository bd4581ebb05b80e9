"""Evidence the checker generator did not write, for the self-check.

The golden's mutants and the name-built variants come from the same model of the recording that
wrote the checkers, so they can agree with it while the reward is wrong. This adds what does not:
every recorded write accounted for (accounting.py), mutants of the recording's own writes
(recorded.py), the behaviour variant (behaviour.py) and the instruction's clauses tied to rubrics
(grounding.py). Each finding that makes a reward gameable is a problem (never PASS).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlauto_core.checkers.runtime import ScoreReport, score
from rlauto_core.evidence.build import build_evidence
from rlauto_core.judging.accounting import account_package_writes, account_writes
from rlauto_core.judging.behaviour import behaviour_variant
from rlauto_core.judging.grounding import grounding
from rlauto_core.judging.recorded import recording_mutants
from rlauto_core.package.models import (
    BrokenRubric,
    CoveredWrite,
    ExcludedWrite,
    RecordingMutant,
    TaskPackage,
    VariantKind,
    VariantOutcome,
)
from rlauto_core.recording import Recording


@dataclass
class Independent:
    writes_covered: list[CoveredWrite] = field(default_factory=list)
    writes_excluded: list[ExcludedWrite] = field(default_factory=list)
    recording_mutants: list[RecordingMutant] = field(default_factory=list)
    behaviour_variants: list[VariantOutcome] = field(default_factory=list)
    ungrounded: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def scored_variant(
    package: TaskPackage, number: str, kind: VariantKind, description: str, attempt: Recording, golden: ScoreReport
) -> VariantOutcome:
    """A variant scored; a rubric the golden passes and the variant fails is broken by it."""
    passed = {r.id for r in golden.rubrics if r.passed}
    report = score(package, attempt)
    broken = [
        BrokenRubric(id=r.id, title=r.title, reason=r.reason) for r in report.rubrics if not r.passed and r.id in passed
    ]
    return VariantOutcome(
        id=number,
        kind=kind,
        description=description,
        score=report.score,
        full_marks=report.score >= golden.score and not broken,
        broken=broken,
    )


def independent_evidence(
    package: TaskPackage, recording: Recording | None, golden: Recording, golden_report: ScoreReport
) -> Independent:
    found = Independent()
    source = recording if recording is not None else golden
    evidence = build_evidence(source)
    if recording is not None:
        found.writes_covered, found.writes_excluded = account_writes(package, recording, evidence)
    else:
        found.writes_covered, found.writes_excluded = account_package_writes(package, golden)
    found.problems += [
        f"recorded write {w.call_id} ({w.name}) is left out with no rule: {w.reason}"
        for w in found.writes_excluded
        if w.rule is None
    ]
    base, mutants = recording_mutants(source, evidence, found.writes_covered, found.writes_excluded)
    base_score = score(package, base).score
    for number, (kind, description, ids, attempt) in enumerate(mutants, 1):
        result = score(package, attempt)
        mutant = RecordingMutant(
            id=f"rm{number}", kind=kind, description=description, call_ids=ids, score=result.score,
            caught=result.score < base_score,
        )  # fmt: skip
        found.recording_mutants.append(mutant)
        if not mutant.caught:
            found.problems.append(
                f"recording mutant {mutant.id} ({description}) keeps {result.score}/{result.max_score}"
            )
    variant = behaviour_variant(golden, package.task.instruction)
    if variant is not None:
        description, attempt = variant
        outcome = scored_variant(package, "b1", "behaviour_changed", description, attempt, golden_report)
        found.behaviour_variants.append(outcome)
        found.problems += [
            f"behaviour variant b1 ({description}) fails rubric {b.id} ({b.title}): {b.reason}"
            for b in outcome.broken[:1]
        ]
    _, found.ungrounded = grounding(package, source)
    return found
