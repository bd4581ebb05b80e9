"""The model judge: a package and the slim evidence in, a `JudgeResult` out (formats.md section 3)."""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.llm.json_answers import request_json
from rlauto_core.llm.types import ModelClient, TokenUsage
from rlauto_core.package.judgement import JudgeResult, PassPolicy
from rlauto_core.package.models import SelfCheck, TaskPackage
from rlauto_core.prompts.answers import JudgeAnswer
from rlauto_core.prompts.judge import judge_messages


def package_view(package: TaskPackage) -> dict[str, Any]:
    """What the judge reads: the package without full call bodies (ids and names stand for them)."""
    return {
        "instruction": package.task.instruction,
        "subtasks": [
            {
                "title": s.title,
                "description": s.description,
                "calls": [{"id": c.id, "name": c.name} for c in s.api_calls],
            }
            for s in package.task.subtasks
        ],
        "rubrics": [r.model_dump(mode="json") for r in package.task.rubrics],
        "rubric_checkers": package.rubric_checkers,
        "value_roles": {
            key: {name: f"{r.role}: {r.reason}" for name, r in roles.items()}
            for key, roles in package.value_roles.items()
        },
        "golden_trajectory": [s.model_dump(mode="json", exclude_none=True) for s in package.golden_trajectory],
        "dbdiff_criteria": [c.model_dump(mode="json", exclude_none=True) for c in package.dbdiff_criteria.criteria],
    }


def _self_check_view(check: SelfCheck) -> dict[str, Any]:
    """The self-check figures, the variants by name, and the one failing (which rubric it breaks)."""
    view: dict[str, Any] = json.loads(
        check.model_dump_json(exclude={"mutants", "variants", "recording_mutants", "behaviour_variants"})
    )
    tried = [*check.variants, *check.behaviour_variants]
    view["variants"] = [f"{v.id} {v.kind}: {'full marks' if v.full_marks else 'LOSES POINTS'}" for v in tried]
    view["mutants_keep_their_points"] = [f"{m.id} {m.description}" for m in check.mutants if not m.caught]
    view["recording_mutants"] = {
        "caught": sum(1 for m in check.recording_mutants if m.caught),
        "total": len(check.recording_mutants),
        "keep_their_points": [f"{m.id} {m.description}" for m in check.missed_recording_mutants],
    }
    failing = check.failing_variant
    view["failing_variant"] = None if failing is None else failing.model_dump(mode="json")
    return view


def judge_with_model(
    client: ModelClient,
    package: TaskPackage,
    *,
    slim: dict[str, Any],
    policy: PassPolicy,
    validator_result: JudgeResult | None = None,
    prompt_template: str | None = None,
) -> tuple[JudgeResult, TokenUsage]:
    """The model judge; it also reads the validator's findings below 2/2, so rule-found problems
    (an id missing from the recording, a weak checker) are not overlooked."""
    self_check = package.validation.self_check
    findings = [
        f"{s.dimension.value} {s.score}/2: {s.explanation}"
        for s in (validator_result.scores if validator_result else [])
        if s.score < 2
    ]
    messages = judge_messages(
        package_view=package_view(package),
        slim_evidence=slim,
        self_check=_self_check_view(self_check) if self_check else None,
        validator_findings=findings,
        prompt_template=prompt_template,
    )
    answer = request_json(client, messages, JudgeAnswer)
    return answer.value.to_result(policy), answer.usage
