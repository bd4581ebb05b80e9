"""The offline analyzer: a deterministic draft package from the evidence, no model involved.

It is also the draft a model refines, so it stays honest: every rubric is an outcome the
recording shows, every checker pins only what the agent chose.
"""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.evidence.models import EntityRef, Evidence
from rlauto_core.package.answer_task import answer_parts, answer_rubrics, answer_text, nothing_to_check
from rlauto_core.package.checkgen import (
    CheckContext,
    call_checker,
    dbdiff_checker,
    dbdiff_criteria,
    stray_matcher,
    target_predicate,
)
from rlauto_core.package.draft import DraftRubric, PackageDraft
from rlauto_core.package.golden import call_target, golden_steps, select_golden
from rlauto_core.package.models import DbDiffCriterion, FilteredCall, GoldenStep
from rlauto_core.package.normalize import normalize_draft
from rlauto_core.package.ordering import implied_order
from rlauto_core.package.roles import ValueModel, safe_key
from rlauto_core.package.wording import call_label, call_title, groups, row_text, written_instruction
from rlauto_core.recording import Call, HttpCall, Recording
from rlauto_core.rules.flags import Flag

WRITE_POINTS = 2


def analyze_offline(recording: Recording, evidence: Evidence, flags: list[Flag] | None = None) -> PackageDraft:
    golden_ids, filtered = select_golden(recording, evidence, flags)
    ctx = CheckContext(values=ValueModel.of(recording, evidence, golden_ids))
    steps = golden_steps(recording, evidence, golden_ids, ctx.values.invented)
    by_id = {c.id: c for c in recording.calls}
    calls: dict[str, Call | None] = {s.call_id: by_id.get(s.call_id) for s in steps}
    checkers = _write_checkers([s for s in steps if s.state_changing], calls, ctx)
    repeats, dropped = _repeats([s for s in steps if s.state_changing], calls, checkers)
    for cid, first in dropped.items():
        repeated = calls[cid]
        name = repeated.name if repeated is not None else ""
        filtered.append(
            FilteredCall(call_id=cid, name=name, reason=f"repeats {first} with the same input", state_changing=True)
        )
        checkers.pop(ctx.checker_keys.pop(cid))
    kept = (s for s in steps if s.call_id not in dropped)
    steps = [s.model_copy(update={"step": n}) for n, s in enumerate(kept, start=1)]
    writes = [s for s in steps if s.state_changing]
    if not writes:
        return _read_only_draft(recording, evidence, steps, calls, filtered, ctx)
    counted = {cid for later in repeats.values() for cid in later}
    rubrics = _write_rubrics(writes, calls, checkers, repeats, ctx)
    ordered = [s for s in writes if s.call_id not in counted]
    rubrics.extend(_order_rubrics(ordered, calls, ctx))
    if recording.task.instruction.strip():  # an instruction we wrote ourselves implies nothing
        entities = {c.id: {(e.key, e.value) for e in c.entities} for c in evidence.calls}
        pairs = implied_order(recording.task.instruction, ordered, calls, entities)
        rubrics.extend(_implied_order_rubrics(pairs, ordered, calls, ctx))
    write_calls = [c for s in writes if (c := calls[s.call_id]) is not None]
    criteria = dbdiff_criteria(recording.dbdiff, write_calls, ctx) if recording.dbdiff else []
    rubrics.extend(_dbdiff_rubrics(criteria))
    strays = _recorded_strays(recording, evidence, filtered, ctx)
    stray = _stray_rubric(writes, calls, checkers, strays)
    if stray is not None:
        rubrics.append(stray)
    notes = [f"{f.call_id} left out: {f.reason}" for f in filtered if not f.reason.startswith(("noise", "side call"))]
    recorded = recording.task.instruction.strip()
    draft = PackageDraft(
        instruction=recorded or written_instruction(steps, calls, _named_entity(steps, evidence, ctx)),
        instruction_source="recorded" if recorded else "offline",
        golden_call_ids=[s.call_id for s in steps],
        groups=groups(steps, calls, recording),
        rubrics=rubrics,
        dbdiff_criteria=criteria,
        filtered=filtered,
        notes=notes,
    )
    return normalize_draft(draft, recording, evidence, ctx.values)[0]  # the cores its order rubrics point at


def _named_entity(steps: list[GoldenStep], evidence: Evidence, ctx: CheckContext) -> EntityRef | None:
    """What a written instruction names: the main entity, unless the recording made it (a card another
    run gets another id for); then where the first write made it (the board it was created on)."""
    main = evidence.main_entity
    if main is None or ctx.values.origin(main.value) is None:
        return main
    return next((s.target for s in steps if s.state_changing and s.target is not None and s.target != main), None)


def _read_only_draft(
    recording: Recording,
    evidence: Evidence,
    steps: list[GoldenStep],
    calls: dict[str, Call | None],
    filtered: list[FilteredCall],
    ctx: CheckContext,
) -> PackageDraft:
    """No state change: an answer task when the instruction asks for what a read shows, else nothing to
    check (no rubric at all: a package graded on noise would pass any attempt)."""
    recorded = recording.task.instruction.strip()
    reads = [(s, c) for s in steps if (c := calls[s.call_id]) is not None]
    reported = (recording.task.model_extra or {}).get("answer")
    reported = reported if isinstance(reported, str) and reported.strip() else None
    parts = answer_parts(recorded, reads, reported) if recorded else []
    rubrics = answer_rubrics(parts, steps, calls, ctx)
    notes = [f"{f.call_id} left out: {f.reason}" for f in filtered if not f.reason.startswith(("noise", "side call"))]
    if not parts:
        notes.append(nothing_to_check(evidence, recorded))
    draft = PackageDraft(
        instruction=recorded or written_instruction(steps, calls, evidence.main_entity),
        instruction_source="recorded" if recorded else "offline",
        answer=(reported or answer_text(parts)) if parts else None,  # the annotator's words when recorded
        golden_call_ids=[s.call_id for s in steps],
        groups=groups(steps, calls, recording),
        rubrics=rubrics,
        filtered=filtered,
        notes=notes,
    )
    return normalize_draft(draft, recording, evidence, ctx.values)[0]


def _write_checkers(
    writes: list[GoldenStep], calls: dict[str, Call | None], ctx: CheckContext
) -> dict[str, dict[str, Any]]:
    """One call checker per trajectory write; each one's key is registered for the order rubrics."""
    checkers: dict[str, dict[str, Any]] = {}
    for step in writes:
        call = calls[step.call_id]
        assert call is not None
        key = f"call_{safe_key(step.call_id)}"
        checkers[key] = call_checker(call, ctx)
        ctx.checker_keys[step.call_id] = key
    return checkers


def _write_rubrics(
    writes: list[GoldenStep],
    calls: dict[str, Call | None],
    checkers: dict[str, dict[str, Any]],
    repeats: dict[str, list[str]],
    ctx: CheckContext,
) -> list[DraftRubric]:
    """A rubric per write; a write the recording repeats also gets a count of how often."""
    counted = {cid for later in repeats.values() for cid in later}
    rubrics: list[DraftRubric] = []
    for step in writes:
        call = calls[step.call_id]
        if call is None or step.call_id in counted:
            continue  # a repeat is graded by the first call's count rubric
        key = ctx.checker_keys[step.call_id]
        rubrics.append(
            DraftRubric(
                title=call_title(call, step, ctx),
                description=f"The attempt makes {call.name} as recorded call {step.call_id} did, and it succeeds.",
                max_score=WRITE_POINTS,
                checker_key=key,
                checker=checkers[key],
            )
        )
        if step.call_id in repeats:
            times = len(repeats[step.call_id]) + 1
            rubrics.append(
                DraftRubric(
                    title=f"{call.name} is done {times} times",
                    description=f"The recording makes this same call {times} times ({step.call_id}, "
                    f"{', '.join(repeats[step.call_id])}); each one adds something.",
                    checker_key=f"count_{safe_key(step.call_id)}",
                    checker={"kind": "count", "match": key, "count": {"gte": times}},
                )
            )
    return rubrics


def _dbdiff_rubrics(criteria: list[DbDiffCriterion]) -> list[DraftRubric]:
    rubrics: list[DraftRubric] = []
    for number, criterion in enumerate(criteria, start=1):
        key = f"db_{safe_key(criterion.table)}_{criterion.op}_{number}"
        criterion.checker_key = key
        criterion.description = row_text(criterion.table, criterion.op, criterion.row)
        rubrics.append(
            DraftRubric(
                title=f"Database: {criterion.description}",
                description=f"dbdiff.json of the attempt shows {criterion.description}.",
                checker_key=key,
                checker=dbdiff_checker(criterion),
            )
        )
    return rubrics


# Verbs whose repetition with the same input changes nothing (a second "mark read" is a no-op).
_IDEMPOTENT = frozenset(
    [
        "update",
        "set",
        "mark",
        "edit",
        "rename",
        "move",
        "assign",
        "unassign",
        "close",
        "archive",
        "unarchive",
        "enable",
        "disable",
        "delete",
        "remove",
        "pin",
        "unpin",
        "star",
        "unstar",
        "resolve",
        "complete",
        "replace",
        "put",
        "patch",
    ]
)


def _repeats(
    writes: list[GoldenStep], calls: dict[str, Call | None], checkers: dict[str, dict[str, Any]]
) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Writes the recording repeats with the same checker: idempotent repeats are dropped (later id ->
    first id); other repeats are kept and counted (first id -> later ids)."""
    needed = {dep for s in writes for dep in s.depends_on}
    seen: dict[str, str] = {}
    repeats: dict[str, list[str]] = {}
    dropped: dict[str, str] = {}
    for step in writes:
        signature = json.dumps(checkers[f"call_{safe_key(step.call_id)}"], sort_keys=True, default=str)
        first = seen.setdefault(signature, step.call_id)
        if first == step.call_id or step.call_id in needed:
            continue
        call = calls[step.call_id]
        verb = call.method.upper() if isinstance(call, HttpCall) else ""
        tokens = set(name_tokens(step.name)) | {verb.lower()}
        if verb in ("PUT", "PATCH", "DELETE") or (not verb and tokens & _IDEMPOTENT):
            dropped[step.call_id] = first
        else:
            repeats.setdefault(first, []).append(step.call_id)
    return repeats, dropped


def _order_rubrics(writes: list[GoldenStep], calls: dict[str, Call | None], ctx: CheckContext) -> list[DraftRubric]:
    """A dependent write (it uses an id an earlier write created) must come after its source."""
    rubrics: list[DraftRubric] = []
    names = _labels(writes, calls)
    for step in writes:
        for dep in step.depends_on:
            if dep not in ctx.checker_keys:
                continue
            before, after = ctx.checker_keys[dep], ctx.checker_keys[step.call_id]
            rubrics.append(
                DraftRubric(
                    title=f"{names[dep]} happens before {names[step.call_id]}",
                    description=f"{names[step.call_id]} uses what {names[dep]} created, so it must come after it.",
                    checker_key=f"order_{safe_key(dep)}_{safe_key(step.call_id)}",
                    checker={"kind": "order", "before": before, "after": after},
                )
            )
    return rubrics


def _labels(writes: list[GoldenStep], calls: dict[str, Call | None]) -> dict[str, str]:
    return {s.call_id: call_label(call) if (call := calls.get(s.call_id)) else s.name for s in writes}


def _implied_order_rubrics(
    pairs: list[tuple[str, str]], writes: list[GoldenStep], calls: dict[str, Call | None], ctx: CheckContext
) -> list[DraftRubric]:
    """Writes on one entity the instruction asks for in this order (and the recording did so)."""
    names = _labels(writes, calls)
    rubrics: list[DraftRubric] = []
    for earlier, later in pairs:
        if earlier not in ctx.checker_keys or later not in ctx.checker_keys:
            continue
        rubrics.append(
            DraftRubric(
                title=f"{names[earlier]} happens before {names[later]}",
                description=f"The instruction asks for {names[earlier]} ({earlier}) first, then {names[later]} "
                f"({later}), on the same entity; the recording does them in that order.",
                checker_key=f"order_{safe_key(earlier)}_{safe_key(later)}",
                checker={"kind": "order", "before": ctx.checker_keys[earlier], "after": ctx.checker_keys[later]},
            )
        )
    return rubrics


def _route_group(call: Call, checker: dict[str, Any], target: EntityRef) -> tuple[str, str]:
    where = checker.get("path_template") or checker.get("path")
    operation = checker.get("operation", {}).get("name", "")  # one GraphQL endpoint: the operation is the route
    method = call.method.upper() if isinstance(call, HttpCall) else ""
    return (f"{method} {where} {operation}" if where else call.name, target.key)


def _recorded_strays(
    recording: Recording, evidence: Evidence, filtered: list[FilteredCall], ctx: CheckContext
) -> list[tuple[Call, dict[str, Any], EntityRef]]:
    """The recording's own stray writes, each with a checker of its route and the entity it hit:
    their routes are forbidden on other entities too, whatever method they used (a delete)."""
    infos = {c.id: c for c in evidence.calls}
    by_id = {c.id: c for c in recording.calls}
    found: list[tuple[Call, dict[str, Any], EntityRef]] = []
    for left in filtered:
        info, call = infos.get(left.call_id), by_id.get(left.call_id)
        if not left.reason.startswith("stray: acts on") or info is None or call is None or not info.state_changing:
            continue
        target = call_target(info, evidence.main_entity, call)
        if target is not None:
            found.append((call, call_checker(call, CheckContext(values=ctx.values)), target))
    return found


def _stray_rubric(
    writes: list[GoldenStep],
    calls: dict[str, Call | None],
    checkers: dict[str, dict[str, Any]],
    strays: list[tuple[Call, dict[str, Any], EntityRef]] | None = None,
) -> DraftRubric | None:
    """No write of the same kind aimed at another entity: collateral damage loses this rubric. The
    kinds are the trajectory's writes and the recording's own strays (a route, per GraphQL operation)."""
    allowed: dict[tuple[str, str], list[Any]] = {}
    sample: dict[tuple[str, str], tuple[Call, dict[str, Any], EntityRef]] = {}
    for step in writes:
        call = calls[step.call_id]
        if call is None or step.target is None:
            continue
        checker = checkers[f"call_{safe_key(step.call_id)}"]
        predicate = target_predicate(call, checker, step.target)
        if predicate is None:
            continue
        group = _route_group(call, checker, step.target)
        allowed.setdefault(group, [])
        if predicate not in allowed[group]:
            allowed[group].append(predicate)
        sample.setdefault(group, (call, checker, step.target))
    for stray_call, stray_checker, stray_target in strays or []:  # after the trajectory's: its checkers win
        group = _route_group(stray_call, stray_checker, stray_target)
        allowed.setdefault(group, [])
        sample.setdefault(group, (stray_call, stray_checker, stray_target))
    matchers = []
    for group, (call, checker, target) in sample.items():
        matcher = stray_matcher(call, checker, target, allowed[group])
        if matcher is not None:
            matchers.append(matcher)
    if not matchers or not writes:
        return None
    targets = sorted({key for _, key in sample})
    return DraftRubric(
        title=f"No stray writes on another {' or '.join(targets)}",
        description="None of the task's writes is repeated against a different entity (collateral damage).",
        checker_key="no_stray_writes",
        checker={
            "kind": "absent",
            "match": matchers if len(matchers) > 1 else matchers[0],
            "given": f"call_{safe_key(writes[0].call_id)}",
        },
    )
