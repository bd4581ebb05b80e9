"""The dataset's columns: one row per task package, nested parts typed as Arrow structs and lists.

Every field carries its description in the field metadata (`description`), which the dataset
card prints. What stays a JSON string, and why: checker bodies (a recursive DSL whose
predicates hold any JSON value: `all`/`any`/`not` nest checkers, `eq` compares with a string
here and a list there), DB-diff rows (column -> value or predicate: columns and their types
differ per table and per package), call inputs and outputs (an MCP tool's arguments and results
are whatever the tool takes and gives), the recorded diff, the recorded metadata and an answer
task's answer. Arrow has no recursive type, and a struct needs one set of keys and one type per
key for the whole file; unions are not read by DuckDB or `datasets`. Those columns end in
`_json` and hold one JSON document each (`json.loads` gives the value back).
"""

from __future__ import annotations

import pyarrow as pa

from rlauto_core.store import DIMENSION_COLUMNS


def _field(name: str, kind: pa.DataType, description: str) -> pa.Field:
    return pa.field(name, kind, metadata={"description": description})


_TEXT = pa.string()
_TEXTS = pa.list_(pa.string())
_WHEN = pa.timestamp("ms", tz="UTC")

API_CALL = pa.struct(
    [
        ("id", _TEXT),
        ("name", _TEXT),  # HTTP: "METHOD /path"; MCP: the tool as recorded
        ("type", _TEXT),  # http | mcp
        ("input_json", _TEXT),
        ("output_json", _TEXT),
        ("metadata_json", _TEXT),
    ]
)
SUBTASK = pa.struct(
    [
        ("id", _TEXT),
        ("title", _TEXT),
        ("description", _TEXT),
        ("group_mode", _TEXT),
        ("api_calls", pa.list_(API_CALL)),
    ]
)
RUBRIC = pa.struct(
    [("id", _TEXT), ("title", _TEXT), ("description", _TEXT), ("max_score", pa.int32()), ("checker_key", _TEXT)]
)
CHECKER = pa.struct([("key", _TEXT), ("kind", _TEXT), ("checker_json", _TEXT)])
DBDIFF_CRITERION = pa.struct(
    [
        ("table", _TEXT),
        ("op", _TEXT),  # insert | update | delete
        ("row_json", _TEXT),
        ("before_json", _TEXT),
        ("checker_key", _TEXT),
        ("description", _TEXT),
    ]
)
PASS_POLICY = pa.struct(
    [
        ("attempt", pa.struct([("required_rubrics", _TEXTS), ("min_fraction", pa.float64()), ("rule", _TEXT)])),
        (
            "judge",
            pa.struct(
                [
                    ("name", _TEXT),
                    ("strict_full_marks", pa.bool_()),
                    ("ignore_task_complexity_for_full_marks", pa.bool_()),
                    ("rule", _TEXT),
                ]
            ),
        ),
    ]
)
GOLDEN_STEP = pa.struct(
    [
        ("step", pa.int32()),
        ("call_id", _TEXT),
        ("name", _TEXT),
        ("type", _TEXT),
        ("state_changing", pa.bool_()),
        ("target", pa.struct([("key", _TEXT), ("value", _TEXT)])),
        ("depends_on", _TEXTS),
    ]
)
SCORES = pa.struct([(name, pa.int8()) for name in DIMENSION_COLUMNS])
MUTANT = pa.struct(
    [
        ("id", _TEXT),
        ("kind", _TEXT),
        ("description", _TEXT),
        ("call_ids", _TEXTS),
        ("score", pa.float64()),
        ("caught", pa.bool_()),
    ]
)
SELF_CHECK = pa.struct(
    [
        ("golden_full_marks", pa.bool_()),
        ("golden_score", pa.float64()),
        ("max_score", pa.float64()),
        ("empty_attempt_score", pa.float64()),
        ("empty_attempt_passed", pa.bool_()),
        ("mutants_total", pa.int32()),
        ("mutants_caught", pa.int32()),
        ("caught_fraction", pa.float64()),
        ("redo_full_marks", pa.bool_()),
        ("mutants", pa.list_(MUTANT)),
        ("problems", _TEXTS),
    ]
)
FLAG = pa.struct([("code", _TEXT), ("message", _TEXT), ("severity", _TEXT), ("call_ids", _TEXTS)])

DATASET_SCHEMA = pa.schema(
    [
        _field("job_id", _TEXT, "the batch the package came from"),
        _field("item_id", _TEXT, "one recording packaged with one set of options (stable per bytes and options)"),
        _field("source_name", _TEXT, "the recording's file name"),
        _field("source_sha256", _TEXT, "SHA-256 of the recording's bytes"),
        _field("options_hash", _TEXT, "hash of the run options the package was made with"),
        _field("mode", _TEXT, "api (HTTP traffic) or mcp (tool calls)"),
        _field("rule_profile", _TEXT, "the rule profile of the run"),
        _field("analyzer", _TEXT, "offline, or the analyzer model's name"),
        _field("status", _TEXT, "the item's status: completed (passed), failed (needs revision) or stopped"),
        _field("instruction", _TEXT, "the package's instruction (task.instruction)"),
        _field("instruction_source", _TEXT, "recorded (the annotator's), offline (written from the calls) or model"),
        _field("instruction_zh", _TEXT, "the instruction in Chinese, where present (see the card)"),
        _field("instruction_en", _TEXT, "the instruction in English, where present (see the card)"),
        _field("answer_json", _TEXT, "answer tasks: what a correct attempt reports (JSON); null otherwise"),
        _field("subtasks", pa.list_(SUBTASK), "recommended groups, each with its full call objects"),
        _field("rubrics", pa.list_(RUBRIC), "rubrics; checker_key points into checkers"),
        _field("checkers", pa.list_(CHECKER), "the checker catalog: key, kind, and the checker as JSON"),
        _field("dbdiff_criteria", pa.list_(DBDIFF_CRITERION), "rows the database must show after an attempt"),
        _field("golden_diff_json", _TEXT, "the recorded database diff (JSON), so the golden attempt replays"),
        _field("pass_policy", PASS_POLICY, "how an attempt passes, and the judge's bar the package met"),
        _field("golden_trajectory", pa.list_(GOLDEN_STEP), "the reference calls, in order, by recorded call id"),
        _field("verdict", _TEXT, "PASS or NEEDS_REVISION (the best iteration's)"),
        _field("total_score", pa.int16(), "the best iteration's judge total, 0..12"),
        _field("max_score", pa.int16(), "the judge's maximum, 12"),
        _field("scores", SCORES, "the best iteration's six judge scores, 0..2 each"),
        _field("judge_source", _TEXT, "validator (deterministic) or model"),
        _field("judge_rationale", _TEXT, "the best iteration's judge rationale"),
        _field("best_iteration", pa.int16(), "the iteration whose package this is"),
        _field("iterations_used", pa.int16(), "judge iterations run"),
        _field("rubric_max_score", pa.int32(), "sum of the rubrics' max_score: an attempt's full marks"),
        _field("self_check", SELF_CHECK, "the package's proof: golden, empty attempt, mutants, redo"),
        _field("flags", pa.list_(FLAG), "local rule and checker-DSL flags"),
        _field("review_decision", _TEXT, "the newest review: accept, reject or needs-work; null when unreviewed"),
        _field("reviewer", _TEXT, "who made the newest review"),
        _field("review_comment", _TEXT, "the newest review's comment"),
        _field("reviewed_at", _WHEN, "when the newest review was made"),
        _field("generator_version", _TEXT, "the rlauto version that wrote the package"),
        _field("generated_at", _TEXT, "when the package was written (ISO 8601)"),
        _field("finished_at", _WHEN, "when the item finished (its newest index row)"),
        _field("package_path", _TEXT, "the package file, relative to the storage root"),
        _field("output_zip_path", _TEXT, "the package ZIP (recording + task.json), only when it passed"),
        _field("metadata_json", _TEXT, "the recorded metadata (JSON, secrets redacted)"),
    ]
)

COLUMN_NAMES: tuple[str, ...] = tuple(DATASET_SCHEMA.names)
