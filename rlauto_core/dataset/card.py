"""The dataset card (`README.md` beside the data): what was exported, from where, with which
options, what was left out and why, the schema, and how to load it.

Its YAML header names the data file as the `train` split, so `datasets.load_dataset(DIR)` finds
it as well as `load_dataset("parquet", data_files=...)`. Every value that came from storage
(ids, names, reasons) is made one line of inert text: no markdown table, link or HTML can be
formed from it, and token-like parts are redacted.
"""

from __future__ import annotations

import re

import pyarrow as pa

from rlauto_core.dataset.models import ExportSummary
from rlauto_core.dataset.output import CARD_MARKER, DATA_NAMES
from rlauto_core.dataset.schema import DATASET_SCHEMA
from rlauto_core.redact import redact_text

MAX_SKIPPED_LISTED = 100
MAX_UNREADABLE_LISTED = 20
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]+")
# what could form a table cell, a link, an image, HTML or code from recorded text
_ACTIVE = re.compile(r"([\\`\[\]<>|])")


def cell(value: object, limit: int = 160) -> str:
    """Inert one-line markdown text: controls and bidi overrides out, markup escaped, shortened."""
    text = _CONTROL.sub(" ", redact_text(str(value))).strip()
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return _ACTIVE.sub(r"\\\1", text)


def _type_name(kind: pa.DataType) -> str:
    return str(kind).replace("<", "&lt;").replace(">", "&gt;")


def _schema_rows() -> list[str]:
    rows = ["| column | type | what |", "|---|---|---|"]
    for f in DATASET_SCHEMA:
        meta = f.metadata or {}
        description = meta.get(b"description", b"").decode()
        rows.append(f"| `{f.name}` | {_type_name(f.type)} | {description} |")
    return rows


def _options(summary: ExportSummary) -> list[str]:
    o = summary.options
    return [
        f"- format: `{o.format}`",
        f"- job: {cell(o.job_id) if o.job_id else 'every job'}",
        f"- only accepted: {'yes (newest review is accept)' if o.only_accepted else 'no'}",
        f"- min score: {o.min_score if o.min_score is not None else 'none'}",
    ]


def _left_out(summary: ExportSummary) -> list[str]:
    lines = ["## Left out", ""]
    if summary.filtered:
        lines += ["By the options:", ""] + [f"- {cell(r)}: {n}" for r, n in sorted(summary.filtered.items())] + [""]
    if summary.skipped:
        lines += ["Skipped (no usable package):", ""]
        lines += [f"- {reason}: {n}" for reason, n in summary.skipped_counts.items()]
        lines += ["", "| job | item | recording | reason | detail |", "|---|---|---|---|---|"]
        for item in summary.skipped[:MAX_SKIPPED_LISTED]:
            lines.append(
                f"| {cell(item.job_id, 60)} | {cell(item.item_id, 60)} | {cell(item.source_name, 80)} "
                f"| {item.reason} | {cell(item.detail, 200)} |"
            )
        if len(summary.skipped) > MAX_SKIPPED_LISTED:
            lines.append(f"\n... and {len(summary.skipped) - MAX_SKIPPED_LISTED} more.")
        lines.append("")
    if summary.unreadable_index_files:
        lines += [f"Index files that could not be read ({len(summary.unreadable_index_files)}):", ""]
        lines += [f"- {cell(p, 200)}" for p in summary.unreadable_index_files[:MAX_UNREADABLE_LISTED]]
        lines.append("")
    if len(lines) == 2:
        lines += ["Nothing: every selected item had a usable package.", ""]
    return lines


def render_card(summary: ExportSummary) -> str:
    data = DATA_NAMES[summary.options.format]
    loader = "parquet" if summary.options.format == "parquet" else "json"
    duck = f"read_parquet('{data}')" if loader == "parquet" else f"read_json_auto('{data}')"
    header = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        f"    path: {data}",
        "tags:",
        "- rlauto",
        "- reinforcement-learning",
        "- task-packages",
        "---",
        CARD_MARKER,
        "",
        "# RL-Auto task packages",
        "",
        "One row per task package: instruction, subtasks with their calls, rubrics, checkers, "
        "DB-diff criteria, pass policy, golden trajectory, the judge's verdict and scores, and the "
        "newest review.",
        "",
        f"- exported at: {summary.exported_at.isoformat()}",
        f"- from storage: {cell(summary.storage_url, 300)}",
        f"- data: `{data}` ({summary.rows} rows, {summary.row_groups} row groups)",
        "",
        "## Options",
        "",
        *_options(summary),
        "",
        "## Counts",
        "",
        "| | items |",
        "|---|---|",
        f"| in the index (newest row per item) | {summary.items_in_index} |",
        f"| left out by the options | {sum(summary.filtered.values())} |",
        f"| skipped (no usable package) | {len(summary.skipped)} |",
        f"| exported rows | {summary.rows} |",
        f"| rows with text repaired (lone surrogates written as U+FFFD) | {summary.repaired_rows} |",
        "",
        *_left_out(summary),
        "## Which packages",
        "",
        "The newest index row of each item (latest `finished_at` wins), its best package "
        "(`exports/{job}/{item}/task-package.json`, read back and redacted again) and its newest review.",
        "",
        "## Schema",
        "",
        "Nested parts are Arrow structs and lists. Columns ending in `_json` hold one JSON document "
        "each: checker bodies (a recursive DSL whose predicates compare with any JSON value), "
        "DB-diff rows (column -> value or predicate, different per table), call inputs and outputs "
        "(an MCP tool's arguments and results are free-form), the recorded diff, the recorded "
        "metadata and an answer task's answer. Arrow has no recursive type and a struct needs one "
        "type per key for the whole file.",
        "",
        "`instruction_zh` / `instruction_en`: the recording's own translations "
        "(`task.instruction_zh`, `task.instructions.zh`...) where given, else `instruction` in the "
        "column of its script (Han characters: zh; Latin letters only: en), else null.",
        "",
        *_schema_rows(),
        "",
        "## Loading",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("{loader}", data_files="{data}", split="train")',
        "```",
        "",
        "```sql",
        f"SELECT item_id, verdict, total_score, len(rubrics) FROM {duck};",
        "```",
        "",
    ]
    return "\n".join(header)
