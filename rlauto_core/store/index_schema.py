"""The parquet index: the lasting contract between the pipeline and the dashboard.

Append-only. Every finished item writes one file per table; a re-run writes new rows and the
newest `finished_at` (items) / `created_at` (reviews) wins when read.

Layout under the storage root:
    index/items/job=<job_id>/<item_id>-<stamp>.parquet
    index/iterations/job=<job_id>/<item_id>-<stamp>.parquet
    index/reviews/<stamp>-<uuid>.parquet
"""

from __future__ import annotations

import pyarrow as pa

ITEMS_DIR = "index/items"
ITERATIONS_DIR = "index/iterations"
REVIEWS_DIR = "index/reviews"

# The six judge dimensions as column names, in formats.md order.
DIMENSION_COLUMNS = (
    "instruction_clarity",
    "task_complexity",
    "trajectory_task_alignment",
    "rubric_coverage",
    "checker_verifiability",
    "evidence_grounding",
)


ITEMS_SCHEMA = pa.schema(
    [
        ("job_id", pa.string()),
        ("item_id", pa.string()),
        ("source_name", pa.string()),
        ("source_sha256", pa.string()),
        ("options_hash", pa.string()),
        ("mode", pa.string()),  # api | mcp
        ("rule_profile", pa.string()),
        ("analyzer", pa.string()),  # "offline" or the analyzer model name
        ("status", pa.string()),  # rlauto_core.pipeline.ITEM_STATUSES
        ("verdict", pa.string()),  # PASS | NEEDS_REVISION; null when the input was refused
        ("total_score", pa.int16()),  # best iteration's judge total, 0..12, null when none ran
        ("max_score", pa.int16()),  # 12
        ("iterations_used", pa.int16()),
        ("best_iteration", pa.int16()),
        ("instruction", pa.string()),
        ("flag_codes", pa.list_(pa.string())),
        ("flags_json", pa.string()),  # [{code, message, call_ids, severity}]
        ("golden_full_marks", pa.bool_()),
        ("empty_attempt_score", pa.float64()),
        ("mutants_total", pa.int32()),
        ("mutants_caught", pa.int32()),
        ("tokens_prompt", pa.int64()),
        ("tokens_completion", pa.int64()),
        ("tokens_total", pa.int64()),
        ("duration_ms", pa.float64()),
        ("package_path", pa.string()),  # best task-package.json, storage-relative
        ("output_zip_path", pa.string()),  # null unless PASS
        ("error", pa.string()),
        ("flow_run_id", pa.string()),
        ("started_at", pa.timestamp("ms", tz="UTC")),
        ("finished_at", pa.timestamp("ms", tz="UTC")),
    ]
)

ITERATIONS_SCHEMA = pa.schema(
    [
        ("job_id", pa.string()),
        ("item_id", pa.string()),
        ("iteration", pa.int16()),  # 1-based
        *[(name, pa.int8()) for name in DIMENSION_COLUMNS],
        ("total", pa.int16()),
        ("verdict", pa.string()),
        ("judge_source", pa.string()),  # validator | model
        ("explanations_json", pa.string()),  # {dimension column: explanation}
        ("rationale", pa.string()),
        ("flag_codes", pa.list_(pa.string())),
        ("tokens_prompt", pa.int64()),
        ("tokens_completion", pa.int64()),
        ("duration_ms", pa.float64()),
        ("package_path", pa.string()),
        ("judge_path", pa.string()),
        ("evidence_path", pa.string()),
        ("memory_path", pa.string()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ]
)

REVIEWS_SCHEMA = pa.schema(
    [
        ("job_id", pa.string()),
        ("item_id", pa.string()),
        ("decision", pa.string()),  # rlauto_core.store.reviews.REVIEW_DECISIONS
        ("comment", pa.string()),
        ("reviewer", pa.string()),
        ("created_at", pa.timestamp("ms", tz="UTC")),
    ]
)
