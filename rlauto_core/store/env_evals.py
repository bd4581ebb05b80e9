"""Evals of agents in package environments (`rlauto eval run`, the `eval-agent` flow): one row per
attempt in the parquet index's own table, and each attempt's files beside the packages.

```
evals/{eval}/{package}/attempt-{n}/attempt.zip     (the session: the recording's own format)
evals/{eval}/{package}/attempt-{n}/episode.json    (reward with rubric results, the calls, turns)
index/env_evals/eval={eval}/{stamp}.parquet        (EnvEvalRow, append-only)
```
"""

from __future__ import annotations

import io
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from rlauto_core.store.columns import arrow_schema
from rlauto_core.store.storage import Storage

ENV_EVALS_DIR = "index/env_evals"


def _now() -> datetime:
    return datetime.now(UTC)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "x"


def attempt_folder(eval_id: str, package: str, attempt: int) -> str:
    return f"evals/{_safe(eval_id)}/{_safe(package)}/attempt-{attempt}"


class EnvEvalRow(BaseModel):
    """One attempt of one model in one package's environment."""

    eval_id: str
    model: str
    package: str  # the package file's name
    attempt: int
    score: int
    max_score: int
    passed: bool
    turns: int
    calls: int
    unknown_calls: int = 0
    model_calls: int = 0
    tokens_prompt: int = 0
    tokens_completion: int = 0
    stopped: str = "done"
    error: str | None = None
    rubrics_passed: list[str] = Field(default_factory=list)  # "r2 title" of each rubric the attempt passed
    rubrics_failed: list[str] = Field(default_factory=list)
    episode_path: str = ""
    attempt_path: str = ""
    finished_at: datetime = Field(default_factory=_now)


ENV_EVALS_SCHEMA = arrow_schema(EnvEvalRow)


def append_env_evals(storage: Storage, rows: list[EnvEvalRow]) -> str | None:
    """One new parquet file with the eval's rows (append-only); its path, or None for no rows."""
    if not rows:
        return None
    stamp = f"{_now().strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:8]}"
    path = f"{ENV_EVALS_DIR}/eval={_safe(rows[0].eval_id)}/{stamp}.parquet"
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist([r.model_dump() for r in rows], schema=ENV_EVALS_SCHEMA), sink)
    storage.write_bytes(path, sink.getvalue())
    return path


def read_env_evals(storage: Storage) -> list[EnvEvalRow]:
    """Every attempt row of every eval (a file that cannot be read is skipped: tried next time)."""
    rows: list[EnvEvalRow] = []
    for path in storage.list(ENV_EVALS_DIR):
        if not path.endswith(".parquet"):
            continue
        try:
            table = pq.read_table(pa.BufferReader(storage.read_bytes(path)))
        except Exception:  # a half-copied or foreign file: not an eval's rows
            continue
        for record in table.to_pylist():
            try:
                rows.append(EnvEvalRow.model_validate(record))
            except ValueError:
                continue
    return rows


def summary(rows: list[EnvEvalRow]) -> dict[str, Any]:
    """Success rate and mean score fraction, overall and per package."""

    def figures(group: list[EnvEvalRow]) -> dict[str, Any]:
        return {
            "attempts": len(group),
            "success_rate": sum(r.passed for r in group) / len(group) if group else 0.0,
            "mean_score": sum(r.score / r.max_score for r in group if r.max_score) / len(group) if group else 0.0,
        }

    packages: dict[str, list[EnvEvalRow]] = {}
    rubrics: dict[str, list[bool]] = {}
    for row in rows:
        packages.setdefault(row.package, []).append(row)
        for rubric in row.rubrics_passed:
            rubrics.setdefault(f"{row.package}: {rubric}", []).append(True)
        for rubric in row.rubrics_failed:
            rubrics.setdefault(f"{row.package}: {rubric}", []).append(False)
    return {
        **figures(rows),
        "packages": {name: figures(group) for name, group in sorted(packages.items())},
        "rubrics": {name: sum(seen) / len(seen) for name, seen in sorted(rubrics.items())},
    }
