"""Every recorded write accounted for: required by a rubric, or left out by a rule.

The package's checkers are run over the recording itself: a write a rubric's own call checker
(or count) matches is covered. Any other write needs a reason from a closed list: noise, a side
call (UI state, telemetry, recommendations), failed (as its protocol says), a duplicate retry of a
covered write, or a stray the rules flag and the instruction does not name. A write left out with
no such rule (a model's draft that forgot it, a sibling taken for a stray) makes the package
NEEDS_REVISION: three recorded writes and two checked is a reward a wrong attempt can game.
"""

from __future__ import annotations

import re

from rlauto_core.checkers.dsl import CALL_KINDS
from rlauto_core.checkers.runtime import CheckerEngine
from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.evidence.sidecalls import SIDE_CATEGORIES
from rlauto_core.package.golden import other_entity
from rlauto_core.package.models import CoveredWrite, ExcludedWrite, TaskPackage, WriteRule
from rlauto_core.package.reach import descriptions, reached
from rlauto_core.recording import Recording

_REPEAT = re.compile(r"^repeats (\S+) with the same input")


def covering_rubrics(package: TaskPackage, attempt: Recording) -> dict[str, list[str]]:
    """Call id -> the rubrics whose own call checker (or count) matches it in this attempt."""
    engine = CheckerEngine(package.rubric_checkers, attempt)
    found: dict[str, list[str]] = {}
    for rubric in package.task.rubrics:
        checker = package.rubric_checkers.get(rubric.checker_key or "")
        if not isinstance(checker, dict):
            continue
        if checker.get("kind") in CALL_KINDS:
            views = engine.matches(rubric.checker_key)
        elif checker.get("kind") == "count":
            views = engine.matches(checker.get("match"))
        else:
            continue
        for view in views:
            found.setdefault(view.id, []).append(rubric.id)
    return found


def _noise_rule(info: CallEvidence) -> tuple[WriteRule, str]:
    category = info.noise_category or "noise"
    if category == "ui_state":
        return "ui_state", "side call (ui_state): saves how the page looks, changes nothing the task is about"
    if category in SIDE_CATEGORIES:
        return "side_call", f"side call ({category}): changes nothing the task is about"
    return "noise", f"noise ({category})"


def repeated(excluded: list[ExcludedWrite]) -> dict[str, list[str]]:
    """Covered write -> the duplicate retries of it the recording also made."""
    found: dict[str, list[str]] = {}
    for write in excluded:
        match = _REPEAT.match(write.reason) if write.rule == "duplicate_retry" else None
        if match:
            found.setdefault(match.group(1), []).append(write.call_id)
    return found


def _left_out(
    info: CallEvidence,
    filtered: dict[str, str],
    covered: dict[str, list[str]],
    recording: Recording,
    evidence: Evidence,
    names: dict[str, set[str]],
) -> ExcludedWrite:
    """Why a successful, significant write no rubric requires is out: a rule, or none."""
    reason = filtered.get(info.id, "")
    repeat = _REPEAT.match(reason)
    if repeat and repeat.group(1) in covered:
        return ExcludedWrite(call_id=info.id, name=info.name, reason=reason, rule="duplicate_retry")
    other = other_entity(info, evidence.main_entity)
    if reason.startswith("stray") and other is not None:
        if not reached(other, recording, names):
            return ExcludedWrite(call_id=info.id, name=info.name, reason=reason, rule="stray")
        reason = f"acts on {other}, which the instruction names: a write on it is no stray"
    elif not reason:
        reason = "no rubric checks it and no rule leaves it out"
    else:
        reason = f"{reason}: no rubric checks it and that is no rule that leaves a write out"
    return ExcludedWrite(call_id=info.id, name=info.name, reason=reason, rule=None)


def account_writes(
    package: TaskPackage, recording: Recording, evidence: Evidence
) -> tuple[list[CoveredWrite], list[ExcludedWrite]]:
    """Each state-changing call of the recording, covered or excluded (and why)."""
    covered_by = covering_rubrics(package, recording)
    filtered = {f.call_id: f.reason for f in package.network.filtered}
    names = descriptions(recording)
    covered: list[CoveredWrite] = []
    excluded: list[ExcludedWrite] = []
    for info in evidence.calls:
        if not info.state_changing:
            continue
        if info.failed:
            why = info.failure or (f"status {info.status}" if info.status is not None else "no answer")
            excluded.append(ExcludedWrite(call_id=info.id, name=info.name, reason=f"failed: {why}", rule="failed"))
        elif not info.significant:
            rule, reason = _noise_rule(info)
            excluded.append(ExcludedWrite(call_id=info.id, name=info.name, reason=reason, rule=rule))
        elif info.id in covered_by and not _REPEAT.match(filtered.get(info.id, "")):
            covered.append(CoveredWrite(call_id=info.id, name=info.name, rubrics=covered_by[info.id]))
        else:
            excluded.append(_left_out(info, filtered, covered_by, recording, evidence, names))
    return covered, excluded


def account_package_writes(package: TaskPackage, golden: Recording) -> tuple[list[CoveredWrite], list[ExcludedWrite]]:
    """The same from the package alone (a bare task.json): its golden writes and the writes its
    network summary lists as left out, each with the reason given there."""
    covered_by = covering_rubrics(package, golden)
    covered: list[CoveredWrite] = []
    excluded: list[ExcludedWrite] = []
    for step in package.golden_trajectory:
        if not step.state_changing:
            continue
        if step.call_id in covered_by:
            covered.append(CoveredWrite(call_id=step.call_id, name=step.name, rubrics=covered_by[step.call_id]))
        else:
            reason = "in the golden trajectory, but no rubric checks it"
            excluded.append(ExcludedWrite(call_id=step.call_id, name=step.name, reason=reason, rule=None))
    for left in package.network.filtered:
        if left.state_changing:
            excluded.append(
                ExcludedWrite(call_id=left.call_id, name=left.name, reason=left.reason, rule=_rule_of(left.reason))
            )
    return covered, excluded


_RULES: tuple[tuple[str, WriteRule], ...] = (
    ("side call (ui_state)", "ui_state"),
    ("noise", "noise"),
    ("side call", "side_call"),
    ("failed", "failed"),
    ("repeats", "duplicate_retry"),
    ("stray", "stray"),
)


def _rule_of(reason: str) -> WriteRule | None:
    """The rule a recorded reason names (the package alone cannot check a stray against the answers)."""
    return next((rule for prefix, rule in _RULES if reason.startswith(prefix)), None)
