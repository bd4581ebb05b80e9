"""Iteration memory merging, judge-answer validation into JudgeResult, and the prompts' content."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from rlauto_core.package.judgement import Dimension, DimensionScore, JudgeResult, PassPolicy
from rlauto_core.pipeline.memory import IterationMemory, judge_feedback
from rlauto_core.prompts import (
    PROMPT_VERSION,
    JudgeAnswer,
    PolishedTask,
    analyzer_system_prompt,
    judge_messages,
)
from rlauto_core.recording import Mode


def result(**scores: tuple[int, str]) -> JudgeResult:
    return JudgeResult(
        scores=[
            DimensionScore(
                dimension=d, score=scores.get(d.name, (2, "ok"))[0], explanation=scores.get(d.name, (2, "ok"))[1]
            )
            for d in Dimension
        ]
    )


def test_memory_merges_a_repeated_problem_and_counts_it() -> None:
    first = IterationMemory().updated(
        1, result(TRAJECTORY_TASK_ALIGNMENT=(1, "golden trajectory includes c6 on another channel"))
    )
    second = first.updated(
        2, result(TRAJECTORY_TASK_ALIGNMENT=(1, "the golden trajectory includes c6, on another channel"))
    )
    [item] = second.items
    assert (item.times, item.first_seen, item.last_seen) == (2, 1, 2)
    assert "c6, on another channel" in item.problem  # the latest wording
    assert "seen 2x, iterations 1-2" in second.render()
    assert first.items[0].times == 1  # updated() never changes the old memory


def test_memory_keeps_distinct_problems_and_drops_fixed_dimensions() -> None:
    one = IterationMemory().updated(
        1, result(RUBRIC_COVERAGE=(1, "no rubric for the mark-read call"), EVIDENCE_GROUNDING=(0, "id 999 is invented"))
    )
    two = one.updated(2, result(RUBRIC_COVERAGE=(1, "dbdiff row of messages has no rubric")))
    assert sorted(i.problem for i in two.items) == [
        "dbdiff row of messages has no rubric",
        "no rubric for the mark-read call",
    ]
    assert two.fixed == ["EVIDENCE GROUNDING"]
    text = two.render()
    assert "id 999" not in text and "Fixed already, keep as is: EVIDENCE GROUNDING" in text
    three = two.updated(3, result(EVIDENCE_GROUNDING=(1, "value 'x' not in the recording")))
    assert three.fixed == ["RUBRIC COVERAGE"]  # grounding broke again: open, no longer fixed
    assert {i.dimension for i in three.items} == {"EVIDENCE GROUNDING"}


def test_judge_feedback_lists_only_dimensions_below_two() -> None:
    judged = result(TASK_COMPLEXITY=(1, "only one write"))
    judged.rationale = "almost there"
    text = judge_feedback(judged)
    assert "TASK COMPLEXITY 1/2: only one write" in text and "Rationale: almost there" in text
    assert "INSTRUCTION CLARITY" not in text


def _scores(**override: int) -> list[dict[str, object]]:
    return [{"dimension": d.value, "score": override.get(d.name, 2), "explanation": "why"} for d in Dimension]


def test_judge_answer_is_validated_and_the_verdict_is_ours() -> None:
    answer = JudgeAnswer.model_validate({"scores": _scores(TASK_COMPLEXITY=1), "verdict": "NEEDS_REVISION"})
    judged = answer.to_result(PassPolicy())
    assert (judged.total, judged.verdict, judged.source) == (11, "PASS", "model")
    assert answer.to_result(PassPolicy(strict_full_marks=True)).verdict == "NEEDS_REVISION"
    assert (
        answer.to_result(PassPolicy(strict_full_marks=True, ignore_task_complexity_for_full_marks=True)).verdict
        == "PASS"
    )


def test_judge_answer_accepts_spelling_variants_and_a_mapping() -> None:
    answer = JudgeAnswer.model_validate(
        {
            "scores": {
                "instruction_clarity": {"score": 2, "explanation": "a"},
                "task complexity": {"score": 2, "explanation": "b"},
                "Trajectory-Task Alignment": {"score": 1, "explanation": "c"},
                "RUBRIC_COVERAGE": {"score": 2, "explanation": "d"},
                "checkerVerifiability": {"score": 2, "explanation": "e"},
                "evidence-grounding": {"score": 0, "explanation": "f"},
            }
        }
    )
    judged = answer.to_result(PassPolicy())
    assert judged.score_of(Dimension.EVIDENCE_GROUNDING) == 0 and judged.verdict == "NEEDS_REVISION"


@pytest.mark.parametrize(
    "bad",
    [
        {"scores": _scores()[:5]},
        {"scores": [*_scores()[:5], {"dimension": "INSTRUCTION CLARITY", "score": 2, "explanation": "x"}]},
        {"scores": _scores(TASK_COMPLEXITY=3)},
        {"scores": [*_scores()[:5], {"dimension": "VIBES", "score": 2, "explanation": "x"}]},
    ],
    ids=["five", "duplicate", "score-3", "unknown"],
)
def test_judge_answers_missing_or_bad_dimensions_are_invalid(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        JudgeAnswer.model_validate(bad)


def test_polished_task_accepts_notes_as_a_list() -> None:
    assert PolishedTask.model_validate({"zh": "中", "en": "en", "notes": ["a", "b"]}).notes == "- a\n- b"


def test_mcp_system_prompt_carries_the_trajectory_rules_and_api_does_not() -> None:
    mcp, api = analyzer_system_prompt(Mode.MCP), analyzer_system_prompt(Mode.API)
    for rule in ("ENTITY CONSISTENCY", "NOISE BLACKLIST", "ORDER CONSTRAINTS", "STRAY-CALL REJECTION"):
        assert rule in mcp and rule not in api
    assert "start_typing" in mcp and "never shortened" in mcp
    assert "METHOD /path" in api
    assert "mcp_call" in mcp and "http_call" in api  # the DSL reference is generated into both
    assert PROMPT_VERSION.startswith("rlauto-prompts-")


def test_a_judge_prompt_template_replaces_instructions_but_keeps_dimensions_and_schema() -> None:
    messages = judge_messages(package_view={"instruction": "x"}, slim_evidence={}, self_check=None,
                              prompt_template="Be a harsh judge.")  # fmt: skip
    assert messages[0].content == "Be a harsh judge."
    for dimension in Dimension:
        assert dimension.value in messages[1].content
    assert '"scores"' in messages[1].content
