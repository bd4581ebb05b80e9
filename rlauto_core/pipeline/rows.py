"""The index rows of an outcome: the one projection of `ItemOutcome` onto the parquet index."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from rlauto_core.package.judgement import Dimension
from rlauto_core.pipeline.outcome import ItemOutcome
from rlauto_core.store.index import ItemRow, IterationRow
from rlauto_core.store.index_schema import DIMENSION_COLUMNS

# judge dimension name -> index column, in the same order
COLUMN_OF = dict(zip((d.value for d in Dimension), DIMENSION_COLUMNS, strict=True))


def index_rows(outcome: ItemOutcome) -> tuple[ItemRow, list[IterationRow]]:
    item = ItemRow(
        job_id=outcome.job_id,
        item_id=outcome.item_id,
        source_name=outcome.source_name,
        source_sha256=outcome.source_sha256,
        options_hash=outcome.options_hash,
        mode=outcome.mode,
        rule_profile=outcome.rule_profile,
        analyzer=outcome.analyzer,
        status=outcome.status,
        verdict=outcome.verdict,
        total_score=outcome.total_score,
        iterations_used=outcome.iterations_used,
        best_iteration=outcome.best_iteration,
        instruction=outcome.instruction,
        flag_codes=outcome.flag_codes,
        flags_json=json.dumps([f.model_dump(mode="json") for f in outcome.flags], ensure_ascii=False),
        golden_full_marks=outcome.self_check.golden_full_marks if outcome.self_check else None,
        empty_attempt_score=outcome.self_check.empty_attempt_score if outcome.self_check else None,
        mutants_total=outcome.self_check.mutants_total if outcome.self_check else None,
        mutants_caught=outcome.self_check.mutants_caught if outcome.self_check else None,
        tokens_prompt=outcome.tokens_prompt,
        tokens_completion=outcome.tokens_completion,
        tokens_total=outcome.tokens_prompt + outcome.tokens_completion,
        duration_ms=outcome.duration_ms,
        package_path=outcome.package_path,
        output_zip_path=outcome.output_zip_path,
        error=outcome.error,
        flow_run_id=outcome.flow_run_id,
        started_at=outcome.started_at,
        finished_at=outcome.finished_at or datetime.now(UTC),
    )
    iterations = [
        IterationRow(
            job_id=outcome.job_id,
            item_id=outcome.item_id,
            iteration=it.iteration,
            **{COLUMN_OF[name]: score for name, score in it.scores.items() if name in COLUMN_OF},
            total=it.total,
            verdict=it.verdict,
            judge_source=it.judge_source,
            explanations_json=json.dumps(
                {COLUMN_OF.get(k, k): v for k, v in it.explanations.items()}, ensure_ascii=False
            ),
            rationale=it.rationale,
            flag_codes=outcome.flag_codes,
            tokens_prompt=it.tokens_prompt,
            tokens_completion=it.tokens_completion,
            duration_ms=it.duration_ms,
            package_path=it.paths.get("task-package"),
            judge_path=it.paths.get("judge-result"),
            evidence_path=it.paths.get("evidence"),
            memory_path=it.paths.get("iteration-memory"),
        )
        for it in outcome.iterations
    ]
    return item, iterations
