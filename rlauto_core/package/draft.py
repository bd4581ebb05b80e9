"""The builder's input: a draft package, as the offline analyzer or a model writes it.

A draft says what to ask (instruction), which recorded calls form the reference trajectory and
how they group, and what to grade (rubrics, each with a checker in the DSL). The builder adds
everything the recording itself can tell (call objects, targets, dependencies, summary).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from rlauto_core.package.models import DbDiffCriterion, FilteredCall


class DraftGroup(BaseModel):
    title: str
    description: str = ""
    call_ids: list[str]


class DraftRubric(BaseModel):
    title: str
    description: str = ""
    max_score: int = Field(default=1, ge=0)
    checker_key: str
    checker: dict[str, Any] | None = None


# Who wrote the instruction: the annotator (recorded), the offline analyzer from the calls, a model.
InstructionSource = Literal["recorded", "offline", "model"]


class PackageDraft(BaseModel):
    instruction: str
    # None: the builder infers it (the recorded text kept as is is "recorded", any other is "model")
    instruction_source: InstructionSource | None = None
    # For an answer task: what a correct attempt reports (the golden attempt replays it)
    answer: Any = None
    golden_call_ids: list[str]
    groups: list[DraftGroup] = Field(default_factory=list)
    rubrics: list[DraftRubric] = Field(default_factory=list)
    # Checkers only other checkers point at (none of the offline analyzer's, but a model may).
    extra_checkers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    dbdiff_criteria: list[DbDiffCriterion] = Field(default_factory=list)
    filtered: list[FilteredCall] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
