"""What an eval of a suite leaves: one record per task run, the eval's summary, and a row per task
run in the parquet index table `index/agent_evals/` (the dashboard's Evals page reads it).

```
agent/evals/{eval}/eval.json                  the eval: suite, model, memory, phone, runs
agent/evals/{eval}/tasks/{task}-{run:03d}.json one task run: success, checks, steps, tokens, times
agent/evals/{eval}/summary.json               success rate overall, per tag, per task
index/agent_evals/eval={eval}/{task}-{run:03d}-{stamp}.parquet   one row per task run
```
"""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime
from typing import Annotated

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field, ValidationError

from rlauto_core.agent.events import layout
from rlauto_core.agent.suite.checks import CheckResult
from rlauto_core.store.columns import Arrow, arrow_schema
from rlauto_core.store.storage import Storage

AGENT_EVALS_DIR = "index/agent_evals"
Count = Annotated[int, Arrow(pa.int32())]


def _now() -> datetime:
    return datetime.now(UTC)


def eval_dir(eval_id: str) -> str:
    return f"agent/evals/{layout.checked_id(eval_id, 'eval id')}"


class EvalSetup(BaseModel):
    """What an eval runs: which suite, on which model and memory setting, on which phone."""

    eval_id: str
    suite: str
    suite_digest: str
    model: str  # the model's name (`scripted`, `deepseek-...`)
    base_url: str | None = None
    memory: bool = False  # the experience library on (recall and distillation) or off
    serial: str
    runs: int = 1
    tasks: list[str] = Field(default_factory=list)
    flow_run_id: str | None = None
    started_at: datetime = Field(default_factory=_now)


class TaskRunRecord(BaseModel):
    eval_id: str
    task_id: str
    run: int  # 1..runs
    instruction: str
    tags: list[str] = Field(default_factory=list)
    agent_run_id: str  # the agent run: its step cards on the Agent page
    success: bool
    outcome: str | None = None  # how the agent run ended; None when it never ran
    checks: list[CheckResult] = Field(default_factory=list)
    error: str | None = None  # the eval could not measure this task (reset failed, the run crashed)
    steps: int = 0
    model_calls: int = 0
    tokens_prompt: int = 0
    tokens_completion: int = 0
    tokens_total: int = 0
    fuses: list[str] = Field(default_factory=list)  # "pause:same_action", "reroute:same_error", ...
    takeovers: int = 0
    budget: int = 0
    agent_s: float = 0.0  # the agent run alone
    wall_s: float = 0.0  # the task run: reset, agent, checks, records
    started_at: datetime = Field(default_factory=_now)
    finished_at: datetime = Field(default_factory=_now)

    @property
    def reason(self) -> str:
        """Why it failed, in one line (empty when it passed)."""
        if self.error:
            return self.error
        failed = [f"{c.check} (found {c.found})" for c in self.checks if not c.passed]
        return "; ".join(failed)[:500]


class AgentEvalRow(BaseModel):
    """One row of `index/agent_evals`: a task run with its eval's setup."""

    eval_id: str
    suite: str
    suite_digest: str
    model: str
    base_url: str | None = None
    memory: bool
    serial: str
    task_id: str
    run: Count
    tags: list[str]
    success: bool
    outcome: str | None = None
    reason: str = ""
    error: str | None = None
    agent_run_id: str
    steps: Count = 0
    model_calls: Count = 0
    tokens_prompt: int = 0
    tokens_completion: int = 0
    tokens_total: int = 0
    fuses: list[str] = Field(default_factory=list)
    takeovers: Count = 0
    agent_s: float = 0.0
    wall_s: float = 0.0
    eval_started_at: datetime
    finished_at: datetime

    @classmethod
    def of(cls, setup: EvalSetup, record: TaskRunRecord) -> AgentEvalRow:
        return cls(
            **setup.model_dump(include={"eval_id", "suite", "suite_digest", "model", "base_url", "memory", "serial"}),
            **record.model_dump(include={"task_id", "run", "tags", "success", "outcome", "error", "agent_run_id",
                                         "steps", "model_calls", "tokens_prompt", "tokens_completion", "tokens_total",
                                         "fuses", "takeovers", "agent_s", "wall_s", "finished_at"}),
            reason=record.reason,
            eval_started_at=setup.started_at,
        )  # fmt: skip


AGENT_EVALS_SCHEMA = arrow_schema(AgentEvalRow)


class Rate(BaseModel):
    runs: int
    passed: int

    @property
    def success_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


class TaskSummary(BaseModel):
    task_id: str
    tags: list[str]
    runs: int
    passed: int
    success_rate: float
    results: list[dict[str, object]]  # per run: success, outcome, reason, steps, tokens, agent run


class SuiteSummary(BaseModel):
    eval_id: str
    suite: str
    model: str
    memory: bool
    tasks: int
    runs: int
    passed: int
    success_rate: float
    errors: int  # task runs the eval could not measure (counted as failed)
    per_tag: dict[str, float]
    per_task: list[TaskSummary]
    tokens_total: int
    agent_s: float
    wall_s: float

    @classmethod
    def of(cls, setup: EvalSetup, records: list[TaskRunRecord]) -> SuiteSummary:
        tags: dict[str, Rate] = {}
        tasks: dict[str, list[TaskRunRecord]] = {}
        for record in sorted(records, key=lambda r: (r.task_id, r.run)):
            tasks.setdefault(record.task_id, []).append(record)
            for tag in record.tags:
                rate = tags.setdefault(tag, Rate(runs=0, passed=0))
                rate.runs, rate.passed = rate.runs + 1, rate.passed + record.success
        order = {task_id: n for n, task_id in enumerate(setup.tasks)}
        per_task = [
            TaskSummary(
                task_id=task_id, tags=runs[0].tags, runs=len(runs), passed=sum(r.success for r in runs),
                success_rate=sum(r.success for r in runs) / len(runs),
                results=[{"run": r.run, "success": r.success, "outcome": r.outcome, "reason": r.reason,
                          "steps": r.steps, "tokens": r.tokens_total, "agent_run_id": r.agent_run_id} for r in runs],
            )
            for task_id, runs in sorted(tasks.items(), key=lambda kv: order.get(kv[0], len(order)))
        ]  # fmt: skip
        passed = sum(r.success for r in records)
        return cls(
            eval_id=setup.eval_id, suite=setup.suite, model=setup.model, memory=setup.memory, tasks=len(tasks),
            runs=len(records), passed=passed, success_rate=passed / len(records) if records else 0.0,
            errors=sum(r.error is not None for r in records),
            per_tag={tag: rate.success_rate for tag, rate in sorted(tags.items())}, per_task=per_task,
            tokens_total=sum(r.tokens_total for r in records), agent_s=round(sum(r.agent_s for r in records), 3),
            wall_s=round(sum(r.wall_s for r in records), 3),
        )  # fmt: skip


class EvalStore:
    """An eval's records in storage, and its rows in the parquet index."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def save_setup(self, setup: EvalSetup) -> None:
        self._storage.write_bytes(f"{eval_dir(setup.eval_id)}/eval.json", setup.model_dump_json().encode())

    def setup(self, eval_id: str) -> EvalSetup | None:
        path = f"{eval_dir(eval_id)}/eval.json"
        if not self._storage.exists(path):
            return None
        return EvalSetup.model_validate_json(self._storage.read_bytes(path))

    def save_record(self, setup: EvalSetup, record: TaskRunRecord) -> None:
        """The record, then its index row (a reader that sees the row finds the record)."""
        name = f"{record.task_id}-{record.run:03d}"
        self._storage.write_bytes(f"{eval_dir(setup.eval_id)}/tasks/{name}.json", record.model_dump_json().encode())
        stamp = f"{_now().strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:8]}"
        table = pa.Table.from_pylist([AgentEvalRow.of(setup, record).model_dump()], schema=AGENT_EVALS_SCHEMA)
        sink = io.BytesIO()
        pq.write_table(table, sink)
        path = f"{AGENT_EVALS_DIR}/eval={layout.checked_id(setup.eval_id, 'eval id')}/{name}-{stamp}.parquet"
        self._storage.write_bytes(path, sink.getvalue())

    def records(self, eval_id: str) -> list[TaskRunRecord]:
        """The task runs recorded so far, in the order of their names; unreadable ones skipped."""
        return [record for _path, record in self.unseen(eval_id, set())]

    def unseen(self, eval_id: str, seen: set[str]) -> list[tuple[str, TaskRunRecord]]:
        """(path, record) of the task runs recorded so far but those in `seen` (a reader
        following an eval reads each once)."""
        found = []
        for path in self._storage.list(f"{eval_dir(eval_id)}/tasks"):
            if path in seen:
                continue
            try:
                found.append((path, TaskRunRecord.model_validate_json(self._storage.read_bytes(path))))
            except (ValidationError, OSError, ValueError):
                continue
        return found

    def save_summary(self, summary: SuiteSummary) -> None:
        data = json.dumps(summary.model_dump(mode="json"), ensure_ascii=False).encode()
        self._storage.write_bytes(f"{eval_dir(summary.eval_id)}/summary.json", data)

    def summary(self, eval_id: str) -> SuiteSummary | None:
        path = f"{eval_dir(eval_id)}/summary.json"
        if not self._storage.exists(path):
            return None
        return SuiteSummary.model_validate_json(self._storage.read_bytes(path))
