"""The model steps of one iteration that refine the draft: analyze, complete rubrics, settle.

Each takes a `ModelClient`, asks through `request_json` (extract, repair, one re-ask) and returns
plain models plus the tokens it spent. The hard trajectory rules (answer_checks.py) are checked
on the analyzer's answer, so a breach is re-asked once.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rlauto_core.analysis.answer_checks import CallIndex
from rlauto_core.checkers.dsl import check_catalog
from rlauto_core.evidence.models import Evidence
from rlauto_core.llm.json_answers import request_json
from rlauto_core.llm.types import ModelClient, TokenUsage
from rlauto_core.package.draft import DraftGroup, DraftRubric, PackageDraft
from rlauto_core.prompts.analyzer import analyzer_messages, analyzer_user_prompt
from rlauto_core.prompts.answers import AnalyzerResult, RubricCompletion
from rlauto_core.prompts.rubric import rubric_messages
from rlauto_core.rules.flags import Flag


class AnalyzerStep(BaseModel):
    result: AnalyzerResult
    draft: PackageDraft
    incomplete: dict[str, list[str]]
    usage: TokenUsage
    prompt_chars: int
    reasked: bool


def draft_view(draft: PackageDraft) -> dict[str, Any]:
    """The offline draft as the analyzer sees it: what to refine, without the filtered list."""
    return draft.model_dump(mode="json", exclude={"filtered"})


def _referenced_keys(value: Any, known: set[str]) -> set[str]:
    found: set[str] = set()
    if isinstance(value, str) and value in known:
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            found |= _referenced_keys(item, known)
    elif isinstance(value, list):
        for item in value:
            found |= _referenced_keys(item, known)
    return found


def _offline_catalog(draft: PackageDraft) -> dict[str, dict[str, Any]]:
    catalog = dict(draft.extra_checkers)
    for rubric in draft.rubrics:
        if rubric.checker is not None:
            catalog[rubric.checker_key] = rubric.checker
    return catalog


def catalog_problems(draft: PackageDraft) -> dict[str, list[str]]:
    """DSL problems per checker key, rubric and extra checkers alike (a rubric with no checker too)."""
    catalog = {**draft.extra_checkers, **{r.checker_key: r.checker for r in draft.rubrics if r.checker is not None}}
    keys = set(catalog) | {r.checker_key for r in draft.rubrics}
    problems: dict[str, list[str]] = {}
    for rubric in draft.rubrics:
        if rubric.checker_key not in catalog:
            problems.setdefault(rubric.checker_key, []).append(f'rubric "{rubric.title}" has no checker')
    flags: list[Flag] = check_catalog(catalog, [(r.title, r.checker_key) for r in draft.rubrics])
    for flag in flags:
        if flag.code == "dsl_reference_cycle":
            mentioned = set(flag.message.rsplit(": ", 1)[-1].split(" -> ")) & keys
        else:
            mentioned = {key for key in keys if f'"{key}"' in flag.message}
        for key in mentioned:
            problems.setdefault(key, []).append(flag.message)
    return problems


def to_draft(result: AnalyzerResult, offline: PackageDraft, index: CallIndex) -> PackageDraft:
    """The builder's draft from the model's answer; checkers it kept by key come from the offline draft."""
    offline_catalog = _offline_catalog(offline)
    rubrics: list[DraftRubric] = []
    for item in result.recommended_rubrics:
        checker = item.checker or result.rubric_checkers.get(item.checker_key) or offline_catalog.get(item.checker_key)
        rubrics.append(
            DraftRubric(
                title=item.title,
                description=item.description,
                max_score=item.max_score,
                checker_key=item.checker_key,
                checker=checker,
            )
        )
    used = {r.checker_key for r in rubrics}
    extra = {k: v for k, v in result.rubric_checkers.items() if k not in used}
    # offline checkers that kept rubrics still point at (order, absent, same_as) come along
    pending = _referenced_keys([r.checker for r in rubrics] + list(extra.values()), set(offline_catalog))
    while pending:
        key = pending.pop()
        if key in used or key in extra:
            continue
        extra[key] = offline_catalog[key]
        pending |= _referenced_keys(offline_catalog[key], set(offline_catalog)) - used - set(extra)
    groups = [
        DraftGroup(
            title=g.title,
            description=g.description,
            call_ids=[cid for c in g.calls if (cid := index.resolve(c)) is not None],
        )
        for g in result.recommended_groups
    ]
    return PackageDraft(
        instruction=result.recommended_instruction.strip(),
        golden_call_ids=[cid for c in result.golden_trajectory if (cid := index.resolve(c)) is not None],
        groups=groups,
        rubrics=rubrics,
        extra_checkers=extra,
        dbdiff_criteria=offline.dbdiff_criteria,
        filtered=offline.filtered,
        notes=[*offline.notes, *result.evidence_limits],
    )


def analyze_with_model(
    client: ModelClient,
    *,
    evidence: Evidence,
    slim: dict[str, Any],
    flags: list[Flag],
    offline: PackageDraft,
    memory: str,
    judge_feedback: str,
    user_feedback: str,
    iteration: int,
    max_iterations: int,
) -> AnalyzerStep:
    index = CallIndex(evidence)
    prompt = analyzer_user_prompt(
        slim_evidence=slim,
        flags=[f.model_dump(mode="json") for f in flags],
        draft=draft_view(offline),
        memory=memory,
        judge_feedback=judge_feedback,
        user_feedback=user_feedback,
        iteration=iteration,
        max_iterations=max_iterations,
    )

    def hard_rules(result: AnalyzerResult) -> None:
        problems = index.problems(result)
        if problems:
            raise ValueError("; ".join(problems[:10]))

    answer = request_json(client, analyzer_messages(evidence.mode, prompt), AnalyzerResult, check=hard_rules)
    draft = to_draft(answer.value, offline, index)
    rubric_keys = {r.checker_key for r in draft.rubrics}
    return AnalyzerStep(
        result=answer.value,
        draft=draft,
        incomplete={k: v for k, v in catalog_problems(draft).items() if k in rubric_keys},
        usage=answer.usage,
        prompt_chars=len(prompt),
        reasked=answer.reasked,
    )


def complete_rubrics(
    client: ModelClient, draft: PackageDraft, incomplete: dict[str, list[str]], slim: dict[str, Any]
) -> tuple[PackageDraft, TokenUsage]:
    """Ask the rubric model for checkers of the incomplete rubrics; keep only those that validate."""
    wanted = [
        {"checker_key": r.checker_key, "title": r.title, "description": r.description}
        for r in draft.rubrics
        if r.checker_key in incomplete
    ]
    messages = rubric_messages(
        instruction=draft.instruction,
        incomplete=wanted,
        problems=[p for ps in incomplete.values() for p in ps],
        existing_checkers={**draft.extra_checkers, **{r.checker_key: r.checker for r in draft.rubrics if r.checker}},
        slim_evidence=slim,
    )
    answer = request_json(client, messages, RubricCompletion)
    completed = draft.model_copy(deep=True)
    for rubric in completed.rubrics:
        if rubric.checker_key in incomplete and rubric.checker_key in answer.value.rubric_checkers:
            rubric.checker = answer.value.rubric_checkers[rubric.checker_key]
    return completed, answer.usage


def settle_incomplete(draft: PackageDraft, offline: PackageDraft) -> PackageDraft:
    """Make the catalog valid: a broken rubric checker falls back to the offline checker of its key
    (once), else the rubric goes; a broken extra checker goes; repeated until nothing is flagged,
    since a removal can break a checker that referenced it. Every removal leaves a note."""
    offline_catalog = _offline_catalog(offline)
    settled = draft.model_copy(deep=True)
    seen: set[str] = set()
    unique: list[DraftRubric] = []
    for rubric in settled.rubrics:
        if rubric.checker_key in seen:
            settled.notes.append(f'rubric "{rubric.title}" dropped: checker key {rubric.checker_key!r} used twice')
        else:
            seen.add(rubric.checker_key)
            unique.append(rubric)
    settled.rubrics = unique
    for _ in range(len(settled.rubrics) + len(settled.extra_checkers) + 1):
        problems = catalog_problems(settled)
        if not problems:
            break
        for key in [k for k in settled.extra_checkers if k in problems]:
            del settled.extra_checkers[key]
            settled.notes.append(f"checker {key!r} dropped: {'; '.join(problems[key])}")
        kept: list[DraftRubric] = []
        for rubric in settled.rubrics:
            fallback = offline_catalog.get(rubric.checker_key)
            if rubric.checker_key not in problems:
                kept.append(rubric)
            elif fallback is not None and fallback != rubric.checker:
                rubric.checker = fallback
                kept.append(rubric)
            else:
                settled.notes.append(f'rubric "{rubric.title}" dropped: {"; ".join(problems[rubric.checker_key])}')
        settled.rubrics = kept
    return settled
