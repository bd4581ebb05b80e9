"""`rlauto eval run`'s text names the rubrics some attempt missed, from the summary's per-rubric
figures (the same figures the artifact and the Evals page show)."""

from __future__ import annotations

from flows.cli.eval_cmd import rubric_lines
from rlauto_core.store import EnvEvalRow, eval_summary


def _row(attempt: int, passed: list[str], failed: list[str]) -> EnvEvalRow:
    return EnvEvalRow(eval_id="ev-1", model="m", package="notes.zip", attempt=attempt, score=len(passed),
                      max_score=len(passed) + len(failed), passed=not failed, turns=1, calls=1,
                      rubrics_passed=passed, rubrics_failed=failed)  # fmt: skip


def test_the_rubrics_some_attempt_missed_are_named_with_their_pass_rate_worst_first() -> None:
    summary = eval_summary([
        _row(1, ["r1 note made", "r2 title"], ["r3 no stray"]),
        _row(2, ["r1 note made", "r2 title"], ["r3 no stray"]),
        _row(3, ["r1 note made", "r3 no stray"], ["r2 title"]),
    ])  # fmt: skip
    lines = rubric_lines(summary["rubrics"])
    assert lines == [
        "rubrics: 3, 2 missed by some attempt:",
        "  notes.zip: r3 no stray: 33% of attempts pass it",  # worst first, not by name
        "  notes.zip: r2 title: 67% of attempts pass it",
    ]


def test_every_rubric_passed_is_one_line() -> None:
    summary = eval_summary([_row(1, ["r1 note made", "r2 title"], [])])
    assert rubric_lines(summary["rubrics"]) == ["rubrics: 2, every one passed by every attempt"]
