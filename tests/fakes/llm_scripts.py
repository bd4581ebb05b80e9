"""Scripted model behaviour for the fake server: a faithful analyzer and a configurable judge.

The faithful analyzer reads the draft package out of the analyzer prompt it receives and answers
with it (optionally changed by `tweak`), as a careful model that agrees with the draft would.
Out of process, the step `{"echo_draft": true}` does the same without a tweak.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rlauto_core.package.judgement import Dimension
from tests.fakes.llm_server import RecordedRequest, analyzer_answer, draft_in


def faithful_analyzer(
    tweak: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Callable[[RecordedRequest], dict[str, Any]]:
    def step(request: RecordedRequest) -> dict[str, Any]:
        answer = analyzer_answer(draft_in(request))
        return {"json": tweak(answer) if tweak else answer}

    return step


def judge_scores(rationale: str = "scored", **scores: int) -> dict[str, Any]:
    """A judge answer with all six dimensions at 2 unless overridden, e.g. TASK_COMPLEXITY=1."""
    out = []
    for dimension in Dimension:
        score = scores.get(dimension.name, 2)
        explanation = f"{dimension.value.lower()} is {'fine' if score == 2 else 'weak: fix it'}"
        out.append({"dimension": dimension.value, "score": score, "explanation": explanation})
    return {"scores": out, "verdict": "PASS", "rationale": rationale}


def judge_answer(rationale: str = "scored", **scores: int) -> dict[str, Any]:
    """The fake-server step answering with `judge_scores(...)`."""
    return {"json": judge_scores(rationale, **scores)}
