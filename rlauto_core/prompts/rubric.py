"""The rubric-completion prompt: checkers for rubrics the analyzer left without a valid one."""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.llm.types import Message
from rlauto_core.prompts.analyzer import answer_schema
from rlauto_core.prompts.answers import RubricCompletion
from rlauto_core.prompts.dsl import VALUE_ROLES, dsl_reference

RUBRIC_SYSTEM = """\
You complete the rubrics of an RL task package. For each rubric listed as incomplete, write ONE
executable checker in the DSL below, grounded in the recorded calls: it must pass on the
recorded (golden) calls, fail on an attempt with no calls, and grade only what the agent
controls (target entity, content, order), each value compared by its role (VALUE ROLES below).
Keep tool names and endpoints exactly as recorded. Answer with one JSON object, no prose.
"""


def rubric_messages(
    *,
    instruction: str,
    incomplete: list[dict[str, Any]],
    problems: list[str],
    existing_checkers: dict[str, Any],
    slim_evidence: dict[str, Any],
) -> list[Message]:
    user = "\n\n".join(
        [
            "=== INSTRUCTION ===\n" + instruction,
            "=== INCOMPLETE RUBRICS ===\n" + json.dumps(incomplete, ensure_ascii=False, separators=(",", ":")),
            "=== PROBLEMS FOUND ===\n" + ("\n".join(f"- {p}" for p in problems) or "none"),
            "=== EXISTING CHECKERS (reference them by key in order/absent/created) ===\n"
            + json.dumps(existing_checkers, ensure_ascii=False, separators=(",", ":")),
            "=== RECORDING EVIDENCE ===\n"
            + json.dumps(slim_evidence, ensure_ascii=False, separators=(",", ":"), default=str),
            "=== ANSWER JSON SCHEMA ===\n" + answer_schema(RubricCompletion),
        ]
    )
    return [
        Message(role="system", content="\n".join([RUBRIC_SYSTEM, VALUE_ROLES, dsl_reference()])),
        Message(role="user", content=user),
    ]
