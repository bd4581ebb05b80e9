"""What each model role must answer, as pydantic models; their JSON schemas go into the prompts.

Models are lenient where a model's habit is harmless (extra keys, a dimension spelled
`trajectory_task_alignment`, notes as a list) and strict where it matters (call ids, scores).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rlauto_core.package.judgement import Dimension, DimensionScore, JudgeResult, PassPolicy

_LENIENT = ConfigDict(extra="ignore")


class AnalyzerGroup(BaseModel):
    """One recommended subtask: calls of one endpoint (API) or one tool (MCP), by call id."""

    model_config = _LENIENT

    title: str = Field(min_length=1)
    description: str = ""
    calls: list[str] = Field(min_length=1, description="call ids as the evidence prints them, in order")


class AnalyzerRubric(BaseModel):
    model_config = _LENIENT

    title: str = Field(min_length=1)
    description: str = ""
    max_score: int = Field(default=1, ge=1, le=10)
    checker_key: str = Field(
        min_length=1, description="a key of rubric_checkers, or of the draft's checkers to keep one as is"
    )
    checker: dict[str, Any] | None = Field(default=None, description="the checker inline (optional)")


class AnalyzerResult(BaseModel):
    """The analyzer's refinement of the draft package (converted into the builder's PackageDraft)."""

    model_config = _LENIENT

    recommended_instruction: str = Field(min_length=1)
    recommended_groups: list[AnalyzerGroup] = Field(min_length=1)
    recommended_rubrics: list[AnalyzerRubric] = Field(min_length=1)
    rubric_checkers: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="new or changed checkers by key; a draft checker kept as is may be omitted"
    )
    golden_trajectory: list[str] = Field(
        min_length=1, description="call ids of the reference solution, in order; no noise, no strays"
    )
    evidence_limits: list[str] = Field(
        default_factory=list, description="what the recording cannot show, and calls rejected as strays"
    )


class RubricCompletion(BaseModel):
    """Checkers for rubrics the analyzer left without a (valid) checker."""

    model_config = _LENIENT

    rubric_checkers: dict[str, dict[str, Any]] = Field(min_length=1)
    rubrics: list[dict[str, str]] = Field(
        default_factory=list, description='[{"id": rubric id, "checker_key": key}] for each completed rubric'
    )


def _dimension(name: str) -> Dimension:
    wanted = re.sub(r"[^a-z]", "", name.lower())
    for dimension in Dimension:
        if re.sub(r"[^a-z]", "", dimension.value.lower()) == wanted:
            return dimension
    raise ValueError(f"unknown dimension {name!r}; use one of {[d.value for d in Dimension]}")


class JudgeScore(BaseModel):
    model_config = _LENIENT

    dimension: str
    score: int = Field(ge=0, le=2)
    explanation: str = Field(min_length=1)

    @field_validator("dimension")
    @classmethod
    def _known(cls, value: str) -> str:
        return _dimension(value).value


class JudgeAnswer(BaseModel):
    """The judge's answer: six scores with explanations; the verdict is ours, not the model's."""

    model_config = _LENIENT

    scores: list[JudgeScore]
    verdict: str | None = None
    rationale: str = ""

    @model_validator(mode="before")
    @classmethod
    def _scores_as_mapping(cls, data: Any) -> Any:
        # {"scores": {"INSTRUCTION CLARITY": {"score": 2, "explanation": "..."}}} is accepted too
        if isinstance(data, dict) and isinstance(data.get("scores"), dict):
            data = dict(data)
            data["scores"] = [
                {"dimension": name, **value} if isinstance(value, dict) else {"dimension": name, "score": value}
                for name, value in data["scores"].items()
            ]
        return data

    @model_validator(mode="after")
    def _six_once(self) -> JudgeAnswer:
        names = [s.dimension for s in self.scores]
        missing = [d.value for d in Dimension if d.value not in names]
        if missing or len(names) != len(Dimension):
            raise ValueError(f"score each of the six dimensions exactly once; missing {missing}")
        return self

    def to_result(self, policy: PassPolicy) -> JudgeResult:
        result = JudgeResult(
            scores=[
                DimensionScore(dimension=Dimension(s.dimension), score=s.score, explanation=s.explanation)
                for s in self.scores
            ],
            rationale=self.rationale,
            source="model",
        )
        result.verdict = "PASS" if policy.satisfied(result) else "NEEDS_REVISION"
        return result


class PolishedTask(BaseModel):
    """A raw task text made into a clear Chinese and English instruction, plus notes."""

    model_config = _LENIENT

    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)
    notes: str = ""

    @field_validator("notes", mode="before")
    @classmethod
    def _notes_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(f"- {item}" for item in value)
        return "" if value is None else value
