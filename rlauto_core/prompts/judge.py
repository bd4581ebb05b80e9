"""The judge prompt: six dimensions scored 0-2 with explanations, answered as JSON.

A run may replace the judge's instructions (`judge.prompt_template`); the dimension table and
the answer schema are always appended, so any template still yields a valid `JudgeAnswer`.
"""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.llm.types import Message
from rlauto_core.package.judgement import Dimension
from rlauto_core.prompts.analyzer import answer_schema
from rlauto_core.prompts.answers import JudgeAnswer

DIMENSION_GUIDE: dict[Dimension, str] = {
    Dimension.INSTRUCTION_CLARITY: "unambiguous, self-contained, states goal and entities, "
    "no click-by-click micromanagement",
    Dimension.TASK_COMPLEXITY: "needs several meaningful steps (more than one state change, or real navigation)",
    Dimension.TRAJECTORY_TASK_ALIGNMENT: "the golden trajectory holds exactly the needed calls, in a valid "
    "order, on one main entity, no noise",
    Dimension.RUBRIC_COVERAGE: "every required outcome has an atomic rubric; nothing graded that the task did not "
    "ask; every recorded write is covered or excluded by a named rule (a write in the self-check's writes_excluded "
    "with rule null means 0); every quoted string and named entity of the instruction is checked by a rubric (the "
    "self-check's ungrounded list names the ones none checks)",
    Dimension.CHECKER_VERIFIABILITY: "every rubric has a checker grounded in recorded evidence that an "
    "empty attempt fails and a good attempt by another valid path passes: ids the attempt creates bound by "
    "dataflow (created), stable ids compared by value with no read required, volatile values (lock versions, "
    "ETags, tokens, clocks, nonces, request ids) never compared; a valid variant of the golden that loses "
    "points in the self-check (failing_variant) means 0, and so does any mutant that keeps its points, of the "
    "golden (mutants_keep_their_points) or of the recording's own writes (recording_mutants.keep_their_points)",
    Dimension.EVIDENCE_GROUNDING: "every id, name and value in instruction and rubrics appears in the recording",
}

DEFAULT_JUDGE_SYSTEM = """\
You are the judge of RL-Auto. You grade ONE RL task package built from a recording, strictly
and fairly. Score each of the six dimensions 0, 1 or 2 (2 = fully meets the bar, 1 = minor
problem, 0 = broken) and explain each score in one or two sentences that name the exact
instruction words, rubric ids, checker keys or call ids at fault, so the author can fix them.
Never invent evidence: if something is not in the recording, it is not grounded.
"""


def dimension_table() -> str:
    return "\n".join(f"- {d.value}: 2 means {DIMENSION_GUIDE[d]}" for d in Dimension)


def judge_messages(
    *,
    package_view: dict[str, Any],
    slim_evidence: dict[str, Any],
    self_check: dict[str, Any] | None,
    validator_findings: list[str] | None = None,
    prompt_template: str | None = None,
) -> list[Message]:
    system = (prompt_template or DEFAULT_JUDGE_SYSTEM).strip()
    parts = [
        "=== DIMENSIONS (score each 0, 1 or 2) ===\n" + dimension_table(),
        "=== TASK PACKAGE ===\n" + json.dumps(package_view, ensure_ascii=False, separators=(",", ":"), default=str),
        "=== RECORDING EVIDENCE (significant calls) ===\n"
        + json.dumps(slim_evidence, ensure_ascii=False, separators=(",", ":"), default=str),
    ]
    if self_check is not None:
        parts.append(
            "=== DETERMINISTIC SELF-CHECK (checkers run on golden, empty, mutated attempts and valid variants) ===\n"
            + json.dumps(self_check, ensure_ascii=False, separators=(",", ":"), default=str)
        )
    if validator_findings:
        parts.append(
            "=== DETERMINISTIC VALIDATOR FINDINGS (rule-based; confirm or refute them) ===\n"
            + "\n".join(f"- {line}" for line in validator_findings)
        )
    parts.append(
        "=== ANSWER ===\nOne JSON object: scores (six entries: dimension, score, explanation), "
        "verdict (PASS or NEEDS_REVISION), rationale. Schema:\n" + answer_schema(JudgeAnswer)
    )
    return [Message(role="system", content=system), Message(role="user", content="\n\n".join(parts))]
