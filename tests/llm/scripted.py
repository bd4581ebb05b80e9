"""Scripted model behaviour for the fake server: a faithful analyzer and a configurable judge.

The faithful analyzer reads the draft package out of the analyzer prompt it receives and answers
with it (optionally changed by `tweak`), as a careful model that agrees with the draft would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from rlauto_core.judge import Dimension
from tests.fakes.llm_server import RecordedRequest

_DRAFT = re.compile(r"=== DRAFT PACKAGE[^\n]*===\n(.*?)\n\n?=== ", re.DOTALL)


def draft_in(request: RecordedRequest) -> dict[str, Any]:
    found = _DRAFT.search(request.prompt_text())
    assert found, "the analyzer prompt carries the draft package"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def analyzer_answer(draft: dict[str, Any]) -> dict[str, Any]:
    return {
        "recommended_instruction": draft["instruction"],
        "recommended_groups": [
            {"title": g["title"], "description": g["description"], "calls": g["call_ids"]} for g in draft["groups"]
        ],
        # checkers are kept by key: the draft's catalog supplies them
        "recommended_rubrics": [
            {
                "title": r["title"],
                "description": r["description"],
                "max_score": r["max_score"],
                "checker_key": r["checker_key"],
            }
            for r in draft["rubrics"]
        ],
        "golden_trajectory": draft["golden_call_ids"],
        "evidence_limits": [],
    }


def faithful_analyzer(
    tweak: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Callable[[RecordedRequest], dict[str, Any]]:
    def step(request: RecordedRequest) -> dict[str, Any]:
        answer = analyzer_answer(draft_in(request))
        return {"json": tweak(answer) if tweak else answer}

    return step


def judge_answer(rationale: str = "scored", **scores: int) -> dict[str, Any]:
    """All six dimensions at 2 unless overridden, e.g. judge_answer(TASK_COMPLEXITY=1)."""
    out = []
    for dimension in Dimension:
        score = scores.get(dimension.name, 2)
        out.append({"dimension": dimension.value, "score": score,
                    "explanation": f"{dimension.value.lower()} is {'fine' if score == 2 else 'weak: fix it'}"})  # fmt: skip
    return {"json": {"scores": out, "verdict": "PASS", "rationale": rationale}}
