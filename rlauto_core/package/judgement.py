"""Judge results (formats.md section 3) and the pass policy, decided by code, never by a model."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, model_validator


class Dimension(StrEnum):
    INSTRUCTION_CLARITY = "INSTRUCTION CLARITY"
    TASK_COMPLEXITY = "TASK COMPLEXITY"
    TRAJECTORY_TASK_ALIGNMENT = "TRAJECTORY-TASK ALIGNMENT"
    RUBRIC_COVERAGE = "RUBRIC COVERAGE"
    CHECKER_VERIFIABILITY = "CHECKER VERIFIABILITY"
    EVIDENCE_GROUNDING = "EVIDENCE GROUNDING"


class DimensionScore(BaseModel):
    dimension: Dimension
    score: int = Field(ge=0, le=2)
    explanation: str


Verdict = Literal["PASS", "NEEDS_REVISION"]


class JudgeResult(BaseModel):
    """The same shape from the deterministic validator and from a model judge."""

    scores: list[DimensionScore]
    total: int = 0
    has_zeros: bool = False
    verdict: Verdict = "NEEDS_REVISION"
    rationale: str = ""
    source: Literal["validator", "model"] = "validator"

    @model_validator(mode="after")
    def _derive(self) -> JudgeResult:
        # total and has_zeros are derived, never trusted from a model
        seen = {s.dimension for s in self.scores}
        if seen != set(Dimension) or len(self.scores) != len(Dimension):
            missing = sorted(d.value for d in set(Dimension) - seen)
            raise ValueError(f"judge result must score each of the six dimensions once; missing {missing}")
        self.total = sum(s.score for s in self.scores)
        self.has_zeros = any(s.score == 0 for s in self.scores)
        return self

    def score_of(self, dimension: Dimension) -> int:
        return next(s.score for s in self.scores if s.dimension is dimension)


class PassPolicy(BaseModel):
    strict_full_marks: bool = False
    ignore_task_complexity_for_full_marks: bool = False

    @property
    def name(self) -> str:
        if self.strict_full_marks and self.ignore_task_complexity_for_full_marks:
            return "strict_full_marks+ignore_task_complexity"
        return "strict_full_marks" if self.strict_full_marks else "default"

    def describe(self) -> str:
        if self.strict_full_marks and self.ignore_task_complexity_for_full_marks:
            return "the five dimensions other than TASK COMPLEXITY at 2/2 and TASK COMPLEXITY >= 1"
        if self.strict_full_marks:
            return "total == 12 and no zero"
        return "total >= 10 and no zero"

    def satisfied(self, result: JudgeResult) -> bool:
        if result.has_zeros:
            return False
        if self.strict_full_marks and self.ignore_task_complexity_for_full_marks:
            return (
                all(s.score == 2 for s in result.scores if s.dimension is not Dimension.TASK_COMPLEXITY)
                and result.score_of(Dimension.TASK_COMPLEXITY) >= 1
            )
        if self.strict_full_marks:
            return result.total == 12
        return result.total >= 10
