"""The deterministic validator: the six judge dimensions decided by rules, same shape as a model judge.

Each dimension gets 0/1/2 and an explanation a reviewer can act on; the verdict comes from the
package's pass policy (rlauto_core.package.judgement.PassPolicy, the one implementation).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable

from rlauto_core.checkers.dsl import CALL_KINDS, check_catalog
from rlauto_core.checkers.runtime import score
from rlauto_core.evidence.build import build_evidence
from rlauto_core.evidence.models import Evidence
from rlauto_core.forms import landing_pages, read_fields
from rlauto_core.judging.selfcheck import golden_attempt, self_check
from rlauto_core.package.answer_task import nothing_to_check
from rlauto_core.package.checkgen import CheckContext, dbdiff_criteria
from rlauto_core.package.golden import other_entity
from rlauto_core.package.judgement import Dimension, DimensionScore, JudgeResult, PassPolicy
from rlauto_core.package.models import SelfCheck, TaskPackage
from rlauto_core.package.reach import descriptions, reached
from rlauto_core.package.roles import ValueModel
from rlauto_core.package.volatile import quoted_values
from rlauto_core.recording import DbDiff, Recording
from rlauto_core.rules.flags import Flag

_UI_WORDS = re.compile(r"\b(click|tap|scroll|press|button|hover|type into|drag|menu|dropdown|checkbox)\b", re.I)
_ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) /")
# a quote opens after a non-word character and closes before one (so "Maya's" quotes nothing)
_QUOTED = re.compile(
    r"(?<!\w)'([^']{2,200})'(?!\w)|(?<!\w)\"([^\"]{2,200})\"(?!\w)|‘([^’]{2,200})’|“([^”]{2,200})”|「([^」]{2,200})」"
)
_IDISH = re.compile(r"(?<![\w@#-])[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*")
_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")
_STOP = frozenset(
    [
        "with",
        "that",
        "this",
        "then",
        "from",
        "into",
        "have",
        "will",
        "your",
        "their",
        "there",
        "about",
        "after",
        "before",
    ]
)
# Rule flags that mean a call of the golden trajectory is a stray or out of order.
_TRAJECTORY_FLAGS = ("unread_check_before_mark_read", "order_")
NO_INSTRUCTION = "no instruction recorded: add one to task.json or run with a model"
NOTHING_TO_CHECK = "nothing to check"


def validate(
    package: TaskPackage,
    recording: Recording | None = None,
    *,
    evidence: Evidence | None = None,
    flags: list[Flag] | None = None,
    check: SelfCheck | None = None,
    policy: PassPolicy | None = None,
) -> JudgeResult:
    """Judge a package by rules: recording (if known) for grounding and alignment, self-check for verifiability."""
    if recording is not None and evidence is None:
        evidence = build_evidence(recording)
    check = check or package.validation.self_check or self_check(package, recording)
    judge = package.pass_policy.judge
    policy = policy or PassPolicy(
        strict_full_marks=judge.strict_full_marks,
        ignore_task_complexity_for_full_marks=judge.ignore_task_complexity_for_full_marks,
    )
    scores = [
        _clarity(package),
        _complexity(package),
        _alignment(package, recording, evidence, flags if flags is not None else package.validation.flags),
        _coverage(package, recording, evidence, check),
        _verifiability(package, check),
        _grounding(package, recording),
    ]
    low = [f"{s.dimension.value} {s.score}/2" for s in scores if s.score < 2]
    result = JudgeResult(scores=scores, source="validator")
    result.verdict = "PASS" if policy.satisfied(result) else "NEEDS_REVISION"
    # what a reviewer must do first comes first: record an instruction, or there is nothing to grade
    first = [s.explanation for s in scores if s.explanation.startswith((NO_INSTRUCTION, NOTHING_TO_CHECK))]
    result.rationale = (
        "".join(f"{m}. " for m in first)
        + f"{result.total}/12 under policy {policy.name} ({policy.describe()}): {result.verdict}"
        + (f"; below full marks: {', '.join(low)}" if low else "")
    )
    return result


def _dim(dimension: Dimension, points: int, explanation: str) -> DimensionScore:
    return DimensionScore(dimension=dimension, score=points, explanation=explanation)


def _clarity(package: TaskPackage) -> DimensionScore:
    text = package.task.instruction.strip()
    if package.task.instruction_source == "offline":
        # written from the calls by rules: it restates what the recording did, not what was asked
        return _dim(Dimension.INSTRUCTION_CLARITY, 0, f"{NO_INSTRUCTION} (the offline analyzer wrote {text[:120]!r})")
    if len(text) < 10:
        return _dim(Dimension.INSTRUCTION_CLARITY, 0, "the instruction is empty or too short to state a goal")
    issues: list[str] = []
    ui = _UI_WORDS.findall(text)
    if len(ui) >= 3 or len(re.findall(r"(?m)^\s*\d+[.)]\s", text)) >= 5:
        issues.append(f"reads as click-by-click steps ({', '.join(sorted(set(ui)))})")
    if _ENDPOINT.search(text):
        issues.append("names HTTP endpoints instead of the goal")
    if len(text) > 800:
        issues.append(f"is long ({len(text)} characters)")
    words, values = _golden_content(package)
    lowered = text.lower()
    # words for English; whole values (titles, ids, names) for any language
    if (words or values) and not (set(_WORD.findall(lowered)) & words or any(v in lowered for v in values)):
        issues.append("shares no word with what the trajectory writes (entities/content unstated)")
    if issues:
        return _dim(Dimension.INSTRUCTION_CLARITY, 1, "the instruction " + "; ".join(issues))
    return _dim(Dimension.INSTRUCTION_CLARITY, 2, "goal and entities stated in one self-contained instruction")


def _golden_content(package: TaskPackage) -> tuple[set[str], set[str]]:
    """Words and whole string values the golden writes send (what the instruction should name)."""
    words: set[str] = set()
    values: list[str] = []
    objects = package.api_calls_by_id()
    for step in package.golden_trajectory:
        obj = objects.get(step.call_id)
        if obj is not None and step.state_changing:
            words.update(_WORD.findall(json.dumps(obj.input, ensure_ascii=False).lower()))
            data = obj.input.get("body") if obj.type == "http" else obj.input
            _strings(data, values)
    noise = {"method", "path", "query", "headers", "body", "bodyencoding", "text", "https", "http"}
    wanted = {v.lower() for v in values if 2 <= len(v) <= 200 and not v.startswith(("http://", "https://"))}
    return words - _STOP - noise, wanted


def _answers(package: TaskPackage) -> bool:
    return any(isinstance(c, dict) and c.get("kind") == "answer" for c in _graded(package).values())


def _graded(package: TaskPackage) -> dict[str, object]:
    return {r.checker_key: package.rubric_checkers.get(r.checker_key) for r in package.task.rubrics if r.checker_key}


def _complexity(package: TaskPackage) -> DimensionScore:
    changes = sum(1 for s in package.golden_trajectory if s.state_changing)
    reads = len(package.golden_trajectory) - changes
    writes = changes + (1 if _answers(package) else 0)  # a reported answer is an outcome too
    what = f"{changes} state change(s)" + (" and an answer" if writes > changes else "")
    what += f" and {reads} read(s) in the golden trajectory"
    if writes >= 2 or (writes == 1 and reads >= 2):
        return _dim(Dimension.TASK_COMPLEXITY, 2, f"several meaningful steps: {what}")
    if writes == 1 or reads >= 2:
        return _dim(Dimension.TASK_COMPLEXITY, 1, f"a single meaningful step: {what}")
    return _dim(Dimension.TASK_COMPLEXITY, 0, f"nothing to do: {what}")


def _alignment(
    package: TaskPackage, recording: Recording | None, evidence: Evidence | None, flags: Iterable[Flag]
) -> DimensionScore:
    steps = package.golden_trajectory
    if not steps:
        return _dim(Dimension.TRAJECTORY_TASK_ALIGNMENT, 0, "the golden trajectory is empty")
    problems: list[str] = []
    if recording is not None and evidence is not None:
        main = evidence.main_entity
        names = descriptions(recording)
        last = -1
        infos = {c.id: c for c in evidence.calls}
        # the page a trajectory write's redirect led to is a page load, and part of that write
        golden = {s.call_id for s in steps}
        calls = recording.calls
        landed = {calls[r].id for r, w in landing_pages(calls).items() if calls[w].id in golden}
        for step in steps:
            info = infos.get(step.call_id)
            if info is None:
                problems.append(f"{step.call_id} is not a recorded call")
                continue
            if info.noise_category and step.call_id not in landed:
                problems.append(f"{step.call_id} is noise ({info.noise_category})")
            if info.failed:
                problems.append(f"{step.call_id} failed")
            other = other_entity(info, main)
            if other is not None and not reached(other, recording, names):
                problems.append(f"{step.call_id} acts on another {main.key if main else 'entity'}")
            if info.index < last:
                problems.append(f"{step.call_id} is out of recorded order")
            last = info.index
    golden_ids = {s.call_id for s in steps}
    for flag in flags:
        if flag.code.startswith(_TRAJECTORY_FLAGS) and len(flag.call_ids) > 1:
            bad = [c for c in flag.call_ids[:-1] if c in golden_ids]
            if bad:
                problems.append(f"{', '.join(bad)} kept despite {flag.code}")
    if not problems:
        return _dim(
            Dimension.TRAJECTORY_TASK_ALIGNMENT,
            2,
            f"{len(steps)} calls in recorded order, no noise, strays or failures",
        )
    points = 0 if len(problems) * 2 > len(steps) else 1
    return _dim(Dimension.TRAJECTORY_TASK_ALIGNMENT, points, "; ".join(problems[:6]))


def _coverage(
    package: TaskPackage, recording: Recording | None, evidence: Evidence | None, check: SelfCheck
) -> DimensionScore:
    rubrics = package.task.rubrics
    unruled = check.unruled_exclusions
    if unruled and rubrics:  # a write nobody checks and no rule leaves out: a wrong attempt skips it free
        shown = "; ".join(f"{w.call_id} ({w.name}): {w.reason}" for w in unruled[:3])
        return _dim(Dimension.RUBRIC_COVERAGE, 0, f"recorded writes left out with no rule: {shown}")
    if not any(s.state_changing for s in package.golden_trajectory) and not _answers(package):
        if evidence is not None:
            asked = recording.task.instruction if recording is not None else ""
            return _dim(Dimension.RUBRIC_COVERAGE, 0, nothing_to_check(evidence, asked))
        return _dim(Dimension.RUBRIC_COVERAGE, 0, f"{NOTHING_TO_CHECK}: no state change and no answer to grade")
    if not rubrics:
        return _dim(Dimension.RUBRIC_COVERAGE, 0, "no rubrics")
    if any(
        f.severity == "error" for f in check_catalog(package.rubric_checkers, [(r.id, r.checker_key) for r in rubrics])
    ):
        return _dim(Dimension.RUBRIC_COVERAGE, 0, "the checker catalog is invalid (see validation flags)")
    golden, _ = golden_attempt(package, recording)
    report = score(package, golden)
    call_keys = {k for k, c in package.rubric_checkers.items() if isinstance(c, dict) and c.get("kind") in CALL_KINDS}
    # a write is covered by a rubric about that call, not by an order or count that mentions it
    matched = {cid for r in report.rubrics if r.checker_key in call_keys for cid in r.matched_call_ids}
    gaps: list[str] = []
    writes = [s for s in package.golden_trajectory if s.state_changing]
    gaps.extend(f"write {s.call_id} ({s.name}) has no rubric" for s in writes if s.call_id not in matched)
    diff = golden.dbdiff
    criteria = {(c.table, c.op) for c in package.dbdiff_criteria.criteria}
    if diff is not None:
        checkable = _checkable_changes(package, golden, diff)
        for table, changes in diff.tables.items():
            for op, rows in (("insert", changes.inserted), ("update", changes.updated), ("delete", changes.deleted)):
                # a row no golden write determined (a side call's saved filter) needs no rubric
                if rows and (table, op) not in criteria and (table, op) in checkable:
                    gaps.append(f"database {op} in {table} has no rubric")
    gaps.extend(
        f"rubric {r.id} grades what the golden trajectory does not do: {r.reason}"
        for r in report.rubrics
        if not r.passed
    )
    # a quoted value is one the task demands; an unquoted token with a digit may be a product's name
    # ("Dynamics 365") or a value the app encodes ("Net 60" as a code): listed for the judge, no gap
    quoted = set(quoted_values(package.task.instruction))
    demanded = [c for c in check.ungrounded if c in quoted]
    if demanded:
        gaps.append(f"no rubric checks what the instruction says: {', '.join(repr(c) for c in demanded[:4])}")
    needed = len(writes) + len(rubrics)
    if not gaps:
        return _dim(
            Dimension.RUBRIC_COVERAGE, 2, f"{len(rubrics)} atomic rubrics cover every write and database change"
        )
    points = 1 if len(gaps) * 2 <= needed else 0
    return _dim(Dimension.RUBRIC_COVERAGE, points, "; ".join(gaps[:6]))


def _checkable_changes(package: TaskPackage, golden: Recording, diff: DbDiff) -> set[tuple[str, str]]:
    """(table, op) pairs a criterion could be written for: rows holding values the golden writes sent."""
    writes = {s.call_id for s in package.golden_trajectory if s.state_changing}
    calls = [c for c in golden.calls if c.id in writes]
    ctx = CheckContext(values=ValueModel.of(golden, build_evidence(golden), {c.id for c in golden.calls}))
    return {(c.table, c.op) for c in dbdiff_criteria(diff, calls, ctx)}


def _verifiability(package: TaskPackage, check: SelfCheck) -> DimensionScore:
    if not package.task.rubrics:
        return _dim(Dimension.CHECKER_VERIFIABILITY, 0, "no rubric, so no checker to verify")
    facts = (
        f"golden {check.golden_score:g}/{check.max_score:g}, empty attempt {check.empty_attempt_score:g}, "
        f"mutants caught {check.mutants_caught}/{check.mutants_total}, "
        f"valid variants at full marks {check.variants_passed}/{check.variants_total}, recording mutants caught "
        f"{len(check.recording_mutants) - len(check.missed_recording_mutants)}/{len(check.recording_mutants)}, "
        f"behaviour variants at full marks {sum(v.full_marks for v in check.behaviour_variants)}/{len(check.behaviour_variants)}"
    )
    dsl = [p for p in check.problems if p.startswith("checker DSL")]
    if dsl or not check.golden_full_marks or check.empty_attempt_passed:
        return _dim(Dimension.CHECKER_VERIFIABILITY, 0, f"checkers do not separate good from empty: {facts}")
    # a mutant that loses nothing is a wrong attempt the package would reward in full, whether it
    # was drawn from the golden (a dropped step, a stray write) or from the recording's own writes
    kept = [m for m in check.mutants if not m.caught]
    if kept:
        shown = "; ".join(f"{m.id} ({m.description})" for m in kept[:2])
        return _dim(
            Dimension.CHECKER_VERIFIABILITY,
            0,
            f"a wrong attempt keeps full marks: mutant {shown} loses nothing; {facts}",
        )
    missed = check.missed_recording_mutants
    if missed:
        shown = "; ".join(f"{m.id} ({m.description})" for m in missed[:2])
        return _dim(
            Dimension.CHECKER_VERIFIABILITY,
            0,
            f"a wrong attempt keeps full marks: recording mutant {shown} loses nothing; {facts}",
        )
    failing = check.failing_variant
    if failing is not None:
        broke = "; ".join(f"rubric {b.id} ({b.title}): {b.reason}" for b in failing.broken[:2])
        return _dim(
            Dimension.CHECKER_VERIFIABILITY,
            0,
            f"checkers fail a good attempt: valid variant {failing.id} ({failing.description}) breaks {broke}; {facts}",
        )
    if check.empty_attempt_score > 0:
        return _dim(Dimension.CHECKER_VERIFIABILITY, 1, f"checkers are weak: the empty attempt scores; {facts}")
    return _dim(Dimension.CHECKER_VERIFIABILITY, 2, f"self-check passes: {facts}")


def _strings(node: object, out: list[str]) -> None:
    if isinstance(node, dict):
        for value in node.values():
            _strings(value, out)
    elif isinstance(node, list):
        for item in node:
            _strings(item, out)
    elif isinstance(node, str):
        out.append(node)
        if node.lstrip()[:1] in ("{", "["):  # bodies hold JSON: their values, unescaped
            with contextlib.suppress(ValueError):
                _strings(json.loads(node), out)
        elif "=" in node and (fields := read_fields(node)) is not None:  # form bodies: their values, decoded
            _strings(fields, out)
    elif node is not None and not isinstance(node, bool):
        out.append(str(node))


def _corpus(package: TaskPackage, recording: Recording | None) -> str:
    """Every value the recording holds (calls and database diff), lowercased, one per line."""
    values: list[str] = []
    if recording is not None:
        for call in recording.calls:
            _strings(call.model_dump(mode="json"), values)
        if recording.dbdiff is not None:
            _strings(recording.dbdiff.model_dump(mode="json"), values)
    else:
        for subtask in package.task.subtasks:
            for obj in subtask.api_calls:
                _strings(obj.model_dump(mode="json"), values)
        _strings(package.dbdiff_criteria.golden_diff, values)
    return "\n".join(values).lower()


def _grounding(package: TaskPackage, recording: Recording | None) -> DimensionScore:
    corpus = _corpus(package, recording)
    texts = [package.task.instruction] + [f"{r.title}\n{r.description}" for r in package.task.rubrics]
    claims: set[str] = set()
    for text in texts:
        claims.update(next(g for g in m.groups() if g) for m in _QUOTED.finditer(text))
        claims.update(t for t in _IDISH.findall(text) if (len(t) >= 3 and not t.isdigit()) or len(t) >= 4)
    for checker in package.rubric_checkers.values():
        claims.update(_checker_values(checker))
    # titles shorten long values with "..."; the part shown must still be in the recording
    claims = {c.strip().removesuffix("...").strip() for c in claims if c.strip()}
    claims.discard("")
    missing = sorted(c for c in claims if c.lower() not in corpus)
    if not claims:
        return _dim(Dimension.EVIDENCE_GROUNDING, 1, "instruction and rubrics name no value that could be checked")
    if not missing:
        return _dim(Dimension.EVIDENCE_GROUNDING, 2, f"all {len(claims)} ids and values appear in the recording")
    share = 1 - len(missing) / len(claims)
    shown = ", ".join(repr(m[:40]) for m in missing[:5])
    return _dim(Dimension.EVIDENCE_GROUNDING, 1 if share >= 0.8 else 0, f"not in the recording: {shown}")


def _checker_values(node: object) -> list[str]:
    """String constants a checker compares against (eq/in/contains), never keys or regexes."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("regex", "kind", "description", "path_template", "checker", "field", "table", "op", "created"):
                continue
            if key in ("before", "after", "given", "match") and isinstance(value, str):
                continue  # a checker key, not a value
            found.extend(_checker_values(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_checker_values(item))
    elif isinstance(node, str) and len(node) >= 3:
        found.append(node)
    return found
