"""The index rows of an outcome: what `ItemFields` / `IterationFields` carry as they are, plus the
columns computed from the rest of the outcome. The Arrow schemas are derived from these models
(`index_schema`), so a column is declared in one place."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated

import pyarrow as pa
from pydantic import Field

from rlauto_core.package.judgement import Dimension
from rlauto_core.store.columns import Arrow
from rlauto_core.store.outcome import ItemFields, ItemOutcome, IterationFields, IterationResult, Small

Score = Annotated[int, Arrow(pa.int8())]
Count = Annotated[int, Arrow(pa.int32())]


def _now() -> datetime:
    return datetime.now(UTC)


def _column(dimension: Dimension) -> str:
    return dimension.value.lower().replace(" ", "_").replace("-", "_")


# The six judge dimensions as column names, in formats.md order; judge dimension -> column.
DIMENSION_COLUMNS = tuple(_column(d) for d in Dimension)
COLUMN_OF = {d.value: _column(d) for d in Dimension}


class ItemRow(ItemFields):
    """One row of `index/items`: the item's own fields and these, computed from its outcome."""

    finished_at: datetime = Field(default_factory=_now)
    max_score: Small = 12
    iterations_used: Small = 0
    flag_codes: list[str] = Field(default_factory=list)
    flags_json: str = "[]"  # [{code, message, call_ids, severity}]
    golden_full_marks: bool | None = None
    empty_attempt_score: float | None = None
    mutants_total: Count | None = None
    mutants_caught: Count | None = None
    tokens_prompt: int = 0
    tokens_completion: int = 0
    tokens_total: int = 0

    @classmethod
    def of(cls, outcome: ItemOutcome) -> ItemRow:
        check = outcome.self_check
        return cls(
            **outcome.model_dump(include=set(ItemFields.model_fields) - {"finished_at"}),
            finished_at=outcome.finished_at or _now(),
            iterations_used=outcome.iterations_used,
            flag_codes=outcome.flag_codes,
            flags_json=json.dumps([f.model_dump(mode="json") for f in outcome.flags], ensure_ascii=False),
            golden_full_marks=check.golden_full_marks if check else None,
            empty_attempt_score=check.empty_attempt_score if check else None,
            mutants_total=check.mutants_total if check else None,
            mutants_caught=check.mutants_caught if check else None,
            tokens_prompt=outcome.tokens_prompt,
            tokens_completion=outcome.tokens_completion,
            tokens_total=outcome.tokens_prompt + outcome.tokens_completion,
        )


class IterationRow(IterationFields):
    """One row of `index/iterations`: the six scores of one iteration and where its files are."""

    job_id: str
    item_id: str
    instruction_clarity: Score | None = None
    task_complexity: Score | None = None
    trajectory_task_alignment: Score | None = None
    rubric_coverage: Score | None = None
    checker_verifiability: Score | None = None
    evidence_grounding: Score | None = None
    explanations_json: str = "{}"  # {dimension column: explanation}
    flag_codes: list[str] = Field(default_factory=list)
    package_path: str | None = None
    judge_path: str | None = None
    evidence_path: str | None = None
    memory_path: str | None = None
    created_at: datetime = Field(default_factory=_now)

    @classmethod
    def of(cls, outcome: ItemOutcome, result: IterationResult) -> IterationRow:
        return cls(
            **result.model_dump(include=set(IterationFields.model_fields)),
            job_id=outcome.job_id,
            item_id=outcome.item_id,
            **{COLUMN_OF[name]: score for name, score in result.scores.items() if name in COLUMN_OF},
            explanations_json=json.dumps(
                {COLUMN_OF.get(k, k): v for k, v in result.explanations.items()}, ensure_ascii=False
            ),
            flag_codes=outcome.flag_codes,
            package_path=result.paths.get("task-package"),
            judge_path=result.paths.get("judge-result"),
            evidence_path=result.paths.get("evidence"),
            memory_path=result.paths.get("iteration-memory"),
        )

    def scores(self) -> dict[str, int | None]:
        """Dimension column -> 0..2, in formats.md order."""
        return {column: getattr(self, column) for column in DIMENSION_COLUMNS}

    def explanations(self) -> dict[str, str]:
        """Dimension column -> the judge's explanation ({} when the stored JSON is broken)."""
        try:
            value = json.loads(self.explanations_json or "{}")
        except json.JSONDecodeError:
            return {}
        return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def index_rows(outcome: ItemOutcome) -> tuple[ItemRow, list[IterationRow]]:
    """The one projection of an `ItemOutcome` onto the parquet index."""
    return ItemRow.of(outcome), [IterationRow.of(outcome, it) for it in outcome.iterations]
