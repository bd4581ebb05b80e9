"""The index task: every finished item appends its rows to the parquet index under `index/`."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from prefect import task
from pydantic import BaseModel

from rlauto_core.package.judgement import Dimension
from rlauto_core.store.index import ItemRow, IterationRow, append_item
from rlauto_core.store.index_schema import DIMENSION_COLUMNS
from rlauto_core.store.layout import item_outcome_path
from tasks.models import ItemResult
from tasks.retry import STORAGE_WRITE
from tasks.storage_io import get_storage, json_bytes

# judge dimension name -> index column, in the same order
COLUMN_OF = dict(zip((d.value for d in Dimension), DIMENSION_COLUMNS, strict=True))


class IndexExtras(BaseModel):
    """What the index wants beyond the item result (read from the best package)."""

    mode: str | None = None
    rule_profile: str = ""
    analyzer: str = "offline"
    instruction: str | None = None
    flags_json: str = "[]"
    golden_full_marks: bool | None = None
    empty_attempt_score: float | None = None
    mutants_total: int | None = None
    mutants_caught: int | None = None
    started_at: datetime


@task(name="index", **STORAGE_WRITE)
def index_item(result: ItemResult, extras: IndexExtras) -> list[str]:
    """The item's index rows, then its `item.json`: the file whose presence says every other
    file of the item is in place (a crash between the two re-runs the item, and index readers
    keep the newest row)."""
    tokens_prompt = sum(i.tokens_prompt for i in result.iterations)
    tokens_completion = sum(i.tokens_completion for i in result.iterations)
    item = ItemRow(
        job_id=result.job_id,
        item_id=result.item_id,
        source_name=result.source_name,
        source_sha256=result.source_sha256,
        options_hash=result.options_hash,
        mode=extras.mode,
        rule_profile=extras.rule_profile,
        analyzer=extras.analyzer,
        status=result.status,
        verdict=result.verdict or ("ERROR" if result.status == "failed" else None),
        total_score=result.total_score,
        iterations_used=result.iterations_used,
        best_iteration=result.best_iteration,
        instruction=extras.instruction,
        flag_codes=result.flag_codes,
        flags_json=extras.flags_json,
        golden_full_marks=extras.golden_full_marks,
        empty_attempt_score=extras.empty_attempt_score,
        mutants_total=extras.mutants_total,
        mutants_caught=extras.mutants_caught,
        tokens_prompt=tokens_prompt,
        tokens_completion=tokens_completion,
        tokens_total=tokens_prompt + tokens_completion,
        duration_ms=result.duration_ms,
        package_path=result.package_path,
        output_zip_path=result.output_zip_path,
        error=result.error,
        flow_run_id=result.flow_run_id,
        started_at=extras.started_at,
        finished_at=datetime.now(UTC),
    )
    iterations = [
        IterationRow(
            job_id=result.job_id,
            item_id=result.item_id,
            iteration=it.iteration,
            **{COLUMN_OF[name]: score for name, score in it.scores.items() if name in COLUMN_OF},
            total=it.total,
            verdict=it.verdict,
            judge_source=it.judge_source,
            explanations_json=json.dumps(
                {COLUMN_OF.get(k, k): v for k, v in it.explanations.items()}, ensure_ascii=False
            ),
            rationale=it.rationale,
            flag_codes=result.flag_codes,
            tokens_prompt=it.tokens_prompt,
            tokens_completion=it.tokens_completion,
            duration_ms=it.duration_ms,
            package_path=it.paths.get("task-package"),
            judge_path=it.paths.get("judge-result"),
            evidence_path=it.paths.get("evidence"),
            memory_path=it.paths.get("iteration-memory"),
        )
        for it in result.iterations
    ]
    storage = get_storage(result.storage_url)
    written = append_item(storage, item, iterations)
    outcome = item_outcome_path(result.job_id, result.item_id)
    storage.write_bytes(outcome, json_bytes(result))
    return [*written, outcome]
