"""Versioned prompts of the three model roles (analyzer, judge, rubric completion) and polish.

`PROMPT_VERSION` changes whenever a prompt's wording or answer schema changes; it is stored in
each package's `validation` and is part of every cached model call's key.
"""

from rlauto_core.prompts.analyzer import (
    MCP_TRAJECTORY_RULES,
    analyzer_messages,
    analyzer_system_prompt,
    analyzer_user_prompt,
)
from rlauto_core.prompts.answers import (
    AnalyzerGroup,
    AnalyzerResult,
    AnalyzerRubric,
    JudgeAnswer,
    JudgeScore,
    PolishedTask,
    RubricCompletion,
)
from rlauto_core.prompts.judge import DEFAULT_JUDGE_SYSTEM, judge_messages
from rlauto_core.prompts.polish import polish_messages
from rlauto_core.prompts.rubric import rubric_messages

PROMPT_VERSION = "rlauto-prompts-6"

__all__ = [
    "DEFAULT_JUDGE_SYSTEM",
    "MCP_TRAJECTORY_RULES",
    "PROMPT_VERSION",
    "AnalyzerGroup",
    "AnalyzerResult",
    "AnalyzerRubric",
    "JudgeAnswer",
    "JudgeScore",
    "PolishedTask",
    "RubricCompletion",
    "analyzer_messages",
    "analyzer_system_prompt",
    "analyzer_user_prompt",
    "judge_messages",
    "polish_messages",
    "rubric_messages",
]
