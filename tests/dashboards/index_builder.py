"""Builds storage trees in the exact shape the pipeline writes: parquet index rows plus the
per-item JSON files (task packages, judge results, evidence, iteration memory) and output ZIPs.

Used by the dashboard tests (a handful of hand-made items) and by bench/bench_dashboard.py (tens
of thousands of generated rows). Shapes follow rlauto_core/index_schema.py, formats.md section 2
(task package) and rlauto_core/judge.py (JudgeResult).
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rlauto_core.package.judgement import Dimension, DimensionScore, JudgeResult
from rlauto_core.store.index_schema import (
    DIMENSION_COLUMNS,
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.store.storage import FsspecStorage

BASE_TIME = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
DIMENSIONS = list(Dimension)


@dataclass
class ItemSpec:
    """One recording's result; `scores` holds the six judge scores of each iteration, in order."""

    job_id: str
    item_id: str
    instruction: str
    scores: list[list[int]] = field(default_factory=lambda: [[2, 2, 2, 2, 2, 2]])
    status: str = "completed"
    verdict: str | None = None  # derived from the best iteration when None
    mode: str = "api"
    rule_profile: str = "echo-05061347"
    flag_codes: list[str] = field(default_factory=list)
    tokens_prompt: int = 1200
    tokens_completion: int = 300
    finished_at: datetime | None = None
    error: str | None = None
    # header values planted in the package's recorded calls (the canary test uses this)
    call_headers: dict[str, str] = field(default_factory=dict)
    # text the first call's answer ends with, and a query its second call's URL carries (the
    # canary test plants the headers' values there, where no name says they are secrets)
    answer_echo: str = ""
    url_echo: str = ""
    source_name: str = ""

    @property
    def best_iteration(self) -> int | None:
        if not self.scores:
            return None
        totals = [sum(s) for s in self.scores]
        return totals.index(max(totals)) + 1

    @property
    def best_total(self) -> int | None:
        best = self.best_iteration
        return None if best is None else sum(self.scores[best - 1])

    @property
    def final_verdict(self) -> str:
        if self.verdict is not None:
            return self.verdict
        if self.status == "failed" or self.best_total is None:
            return "ERROR"
        best = self.scores[(self.best_iteration or 1) - 1]
        return "PASS" if sum(best) >= 10 and 0 not in best else "NEEDS_REVISION"


def item_dir(job_id: str, item_id: str) -> str:
    return f"exports/{job_id}/{item_id}"


def judge_result(scores: list[int], explanation_prefix: str = "") -> JudgeResult:
    return JudgeResult(
        scores=[
            DimensionScore(
                dimension=dim,
                score=score,
                explanation=f"{explanation_prefix}{dim.value.lower()} scored {score}",
            )
            for dim, score in zip(DIMENSIONS, scores, strict=True)
        ],
        verdict="PASS" if sum(scores) >= 10 and 0 not in scores else "NEEDS_REVISION",
        rationale=f"{explanation_prefix}total {sum(scores)}",
        source="validator",
    )


def task_package(spec: ItemSpec, iteration: int) -> dict[str, Any]:
    """A task package (formats.md section 2) whose content changes a little per iteration."""
    headers = {"content-type": "application/json", **spec.call_headers}
    calls = [
        {
            "id": "r12",
            "name": "GET /api/v1/channels/C01/messages",
            "type": "http",
            "input": {
                "method": "GET",
                "url": "https://chat.example.com/api/v1/channels/C01/messages",
                "headers": headers,
                "body": None,
            },
            "output": {
                "status": 200,
                "headers": {"content-type": "application/json"},
                "body": '{"messages":[{"id":"M7","from":"Alice"}]'
                + (f',"note":"{spec.answer_echo}"' if spec.answer_echo else "")
                + "}",
            },
            "metadata": {"durationMs": 41},
        },
        {
            "id": "r15",
            "name": "POST /api/v1/channels/C01/messages",
            "type": "http",
            "input": {
                "method": "POST",
                "url": "https://chat.example.com/api/v1/channels/C01/messages"
                + (f"?{spec.url_echo}" if spec.url_echo else ""),
                "headers": headers,
                "body": '{"text":"got it","threadId":"M7"}',
            },
            "output": {
                "status": 201,
                "headers": {"content-type": "application/json"},
                "body": '{"ok":true,"message":{"id":"M9"}}',
            },
            "metadata": {"durationMs": 83},
        },
    ]
    if iteration > 1:
        calls.append(
            {
                "id": "r19",
                "name": "POST /api/v1/channels/C01/read",
                "type": "http",
                "input": {
                    "method": "POST",
                    "url": "https://chat.example.com/api/v1/channels/C01/read",
                    "headers": headers,
                    "body": "{}",
                },
                "output": {"status": 204, "headers": {}, "body": None},
                "metadata": {"durationMs": 12},
            }
        )
    rubrics = [
        {
            "id": "rb1",
            "title": "Reply posted",
            "description": "A message 'got it' is posted in thread M7",
            "max_score": 1,
            "checker_key": "message_posted",
        },
    ]
    checkers: dict[str, Any] = {
        "message_posted": {
            "kind": "http_call",
            "method": "POST",
            "path": "/api/v1/channels/C01/messages",
            "request": {"text": "got it"},
        },
    }
    if iteration > 1:
        rubrics.append(
            {
                "id": "rb2",
                "title": "Channel marked read",
                "description": "C01 is marked read",
                "max_score": 1,
                "checker_key": "channel_read",
            }
        )
        checkers["channel_read"] = {"kind": "http_call", "method": "POST", "path": "/api/v1/channels/C01/read"}
    flags = [
        {"code": code, "message": f"{code} found", "call_ids": ["r12"], "severity": "warning"}
        for code in spec.flag_codes
    ]
    scores = spec.scores[iteration - 1] if spec.scores else [0] * 6
    caught = 3 + (iteration > 1)
    return {
        "metadata": {
            "recordingId": f"rec_{spec.item_id}",
            "recordedAt": "2026-05-06T13:47:12Z",
            "extensionVersion": "05061347",
            "site": "https://chat.example.com",
            "generator": {"name": "rlauto", "version": "0.1.0"},
            "generatedAt": (BASE_TIME + timedelta(minutes=iteration)).isoformat(),
            "sourceSha256": f"sha-{spec.item_id}",
        },
        "task": {
            "instruction": spec.instruction
            if iteration == len(spec.scores)
            else f"{spec.instruction} (draft {iteration})",
            "networkRequests": [c["id"] for c in calls],
            "subtasks": [
                {
                    "id": "st1",
                    "title": "Read the thread",
                    "description": "Find Alice's latest message",
                    "groupMode": spec.mode,
                    "apiCalls": calls[:1],
                },
                {
                    "id": "st2",
                    "title": "Reply and mark read",
                    "description": "Post the reply",
                    "groupMode": spec.mode,
                    "apiCalls": calls[1:],
                },
            ],
            "rubrics": rubrics,
        },
        "rule_profile": spec.rule_profile,
        "rubric_checkers": checkers,
        "dbdiff_criteria": {
            "criteria": [{"table": "messages", "op": "insert", "row": {"text": "got it"}}],
            "golden_diff": None,
        },
        "pass_policy": {
            "attempt": {"required_rubrics": [r["id"] for r in rubrics], "min_fraction": 1.0},
            "judge": {"name": "default", "rule": "total >= 10 and no zero"},
        },
        "golden_trajectory": [
            {
                "step": i + 1,
                "call_id": c["id"],
                "name": c["name"],
                "type": "http",
                "state_changing": c["input"]["method"] != "GET",
            }
            for i, c in enumerate(calls)
        ],
        "network": {"mode": spec.mode, "calls": 40, "significant": len(calls), "hosts": ["chat.example.com"]},
        "validation": {
            "flags": flags,
            "judge": [
                {"iteration": i + 1, "result": judge_result(s, f"iter {i + 1}: ").model_dump(mode="json")}
                for i, s in enumerate(spec.scores[:iteration])
            ],
            "iterations_used": iteration,
            "verdict": "PASS" if sum(scores) >= 10 and 0 not in scores else "NEEDS_REVISION",
            "self_check": {
                "golden_full_marks": True,
                "golden_score": float(len(rubrics)),
                "max_score": float(len(rubrics)),
                "empty_attempt_score": 0.0,
                "empty_attempt_passed": False,
                "mutants_total": 4,
                "mutants_caught": caught,
                "caught_fraction": caught / 4,
                "mutants": [],
                **_variants(
                    passing := spec.scores[iteration - 1][DIMENSIONS.index(Dimension.CHECKER_VERIFIABILITY)] > 0
                ),
                **_independent(passing),
                "problems": ([] if iteration > 1 else ["mutant 'drop r19' not caught"])
                + (
                    []
                    if passing
                    else [
                        "valid variant v3 (lock versions, tokens, clocks and client-made ids changed) fails rubric rb2"
                    ]
                ),
            },
        },
    }


def _independent(passing: bool) -> dict[str, Any]:
    """Recorded writes accounted for and the recording's mutants; a failing package left one write out."""
    covered = [{"call_id": "r19", "name": "POST /api/v1/channels/C01/messages", "rubrics": ["rb1"]}]
    excluded = [{"call_id": "r7", "name": "POST /api/v1/typing", "reason": "noise (typing)", "rule": "noise"}]
    if not passing:
        excluded.append({"call_id": "r23", "name": "POST /api/v1/channels/C01/read", "rule": None,
                         "reason": "no rubric checks it and no rule leaves it out"})  # fmt: skip
    mutants = [
        {"id": "rm1", "kind": "drop", "description": "drop recorded write r19", "call_ids": ["r19"], "score": 2.0, "caught": True},
        {"id": "rm2", "kind": "retarget", "description": "r19 aimed at channelId C02", "call_ids": ["r19"],
         "score": 4.0 if not passing else 2.0, "caught": passing},
    ]  # fmt: skip
    behaviour = [{"id": "b1", "kind": "behaviour_changed", "description": "every value the session made changed",
                  "score": 4.0, "full_marks": True, "broken": []}]  # fmt: skip
    return {"writes_covered": covered, "writes_excluded": excluded, "recording_mutants": mutants,
            "behaviour_variants": behaviour, "ungrounded": [] if passing else ["got it"]}  # fmt: skip


def _variants(passing: bool) -> dict[str, Any]:
    """Three valid variants of the golden; the last one fails a rubric when verifiability scored 0."""
    variants = [
        {"id": "v1", "kind": "read_dropped", "description": "without read r12 (GET /api/v1/channels/C01/messages)",
         "score": 4.0, "full_marks": True, "broken": []},
        {"id": "v2", "kind": "ids_renamed", "description": "every id the server created or handed out renamed",
         "score": 4.0, "full_marks": True, "broken": []},
        {"id": "v3", "kind": "volatile_changed", "description": "lock versions, tokens, clocks and client-made ids changed",
         "score": 4.0 if passing else 2.0, "full_marks": passing,
         "broken": [] if passing else [{"id": "rb2", "title": "mark channel read", "reason": "request.version: expected 3, got 1003"}]},
    ]  # fmt: skip
    return {"variants_total": 3, "variants_passed": 3 if passing else 2, "variants": variants}


def _parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), buffer)
    return buffer.getvalue()


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=2).encode("utf-8")


def output_zip(package: dict[str, Any]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("task.json", _json_bytes(package))
        archive.writestr("network.json", b'{"version": 1, "requests": []}')
    return buffer.getvalue()


def item_row(spec: ItemSpec, stamp: datetime) -> dict[str, Any]:
    folder = item_dir(spec.job_id, spec.item_id)
    best = spec.best_iteration
    verdict = spec.final_verdict
    iterations = len(spec.scores)
    return {
        "job_id": spec.job_id,
        "item_id": spec.item_id,
        "source_name": spec.source_name or f"{spec.item_id}.zip",
        "source_sha256": f"sha-{spec.item_id}",
        "options_hash": "0123456789abcdef",
        "mode": spec.mode,
        "rule_profile": spec.rule_profile,
        "analyzer": "offline",
        "status": spec.status,
        "verdict": verdict,
        "total_score": spec.best_total,
        "max_score": 12,
        "iterations_used": iterations,
        "best_iteration": best,
        "instruction": spec.instruction,
        "flag_codes": spec.flag_codes,
        "flags_json": json.dumps(
            [{"code": c, "message": f"{c} found", "call_ids": ["r12"], "severity": "warning"} for c in spec.flag_codes]
        ),
        "golden_full_marks": True if iterations else None,
        "empty_attempt_score": 0.0 if iterations else None,
        "mutants_total": 4 if iterations else None,
        "mutants_caught": (3 + (iterations > 1)) if iterations else None,
        "tokens_prompt": spec.tokens_prompt,
        "tokens_completion": spec.tokens_completion,
        "tokens_total": spec.tokens_prompt + spec.tokens_completion,
        "duration_ms": 1500.0 * max(iterations, 1),
        "package_path": f"{folder}/task-package.json" if iterations else None,
        "output_zip_path": f"{folder}/output.zip" if verdict == "PASS" else None,
        "error": spec.error,
        "flow_run_id": None,
        "started_at": stamp - timedelta(seconds=30),
        "finished_at": stamp,
    }


def iteration_rows(spec: ItemSpec, stamp: datetime) -> list[dict[str, Any]]:
    folder = item_dir(spec.job_id, spec.item_id)
    rows = []
    for number, scores in enumerate(spec.scores, start=1):
        result = judge_result(scores, explanation_prefix=f"iter {number}: ")
        rows.append(
            {
                "job_id": spec.job_id,
                "item_id": spec.item_id,
                "iteration": number,
                **dict(zip(DIMENSION_COLUMNS, scores, strict=True)),
                "total": sum(scores),
                "verdict": result.verdict,
                "judge_source": result.source,
                "explanations_json": json.dumps(
                    {col: s.explanation for col, s in zip(DIMENSION_COLUMNS, result.scores, strict=True)},
                    ensure_ascii=False,
                ),
                "rationale": result.rationale,
                "flag_codes": spec.flag_codes,
                "tokens_prompt": spec.tokens_prompt // max(len(spec.scores), 1),
                "tokens_completion": spec.tokens_completion // max(len(spec.scores), 1),
                "duration_ms": 1500.0,
                "package_path": f"{folder}/task-package-iter-{number}.json",
                "judge_path": f"{folder}/judge-result-iter-{number}.json",
                "evidence_path": f"{folder}/evidence-iter-{number}.json",
                "memory_path": f"{folder}/iteration-memory-iter-{number}.json",
                "created_at": stamp - timedelta(seconds=30 - number),
            }
        )
    return rows


def _stamp_name(item_id: str, stamp: datetime) -> str:
    return f"{item_id}-{stamp.strftime('%Y%m%dT%H%M%S%f')}.parquet"


def write_item(storage: FsspecStorage, spec: ItemSpec, *, with_files: bool = True) -> None:
    """Write one finished item as the pipeline does: its JSON files, then one parquet file per table."""
    stamp = spec.finished_at or BASE_TIME
    folder = item_dir(spec.job_id, spec.item_id)
    if with_files:
        for number, scores in enumerate(spec.scores, start=1):
            package = task_package(spec, number)
            result = judge_result(scores, explanation_prefix=f"iter {number}: ")
            storage.write_bytes(f"{folder}/task-package-iter-{number}.json", _json_bytes(package))
            storage.write_bytes(
                f"{folder}/judge-result-iter-{number}.json", _json_bytes(result.model_dump(mode="json"))
            )
            storage.write_bytes(f"{folder}/evidence-iter-{number}.json", _json_bytes({"calls": []}))
            storage.write_bytes(f"{folder}/iteration-memory-iter-{number}.json", _json_bytes({"notes": []}))
        if spec.scores:
            best = spec.best_iteration or 1
            package = task_package(spec, best)
            storage.write_bytes(f"{folder}/task-package.json", _json_bytes(package))
            storage.write_bytes(
                f"{folder}/judge-result.json",
                _json_bytes(judge_result(spec.scores[best - 1]).model_dump(mode="json")),
            )
            if spec.final_verdict == "PASS":
                storage.write_bytes(f"{folder}/output.zip", output_zip(package))
        if spec.error:
            storage.write_bytes(f"{folder}/error.txt", spec.error.encode("utf-8"))
    name = _stamp_name(spec.item_id, stamp)
    storage.write_bytes(f"{ITEMS_DIR}/job={spec.job_id}/{name}", _parquet_bytes([item_row(spec, stamp)], ITEMS_SCHEMA))
    if spec.scores:
        storage.write_bytes(
            f"{ITERATIONS_DIR}/job={spec.job_id}/{name}",
            _parquet_bytes(iteration_rows(spec, stamp), ITERATIONS_SCHEMA),
        )


def write_review(
    storage: FsspecStorage,
    job_id: str,
    item_id: str,
    decision: str,
    *,
    reviewer: str = "ana",
    comment: str = "",
    created_at: datetime | None = None,
) -> None:
    stamp = created_at or BASE_TIME
    row = {
        "job_id": job_id,
        "item_id": item_id,
        "decision": decision,
        "comment": comment,
        "reviewer": reviewer,
        "created_at": stamp,
    }
    name = f"{stamp.strftime('%Y%m%dT%H%M%S%f')}-{item_id}-{decision}.parquet"
    storage.write_bytes(f"{REVIEWS_DIR}/{name}", _parquet_bytes([row], REVIEWS_SCHEMA))


INSTRUCTIONS = (
    "reply 'got it' to Alice's latest message in #general, then mark the channel read",
    "在 #产品 频道回复张伟的最新消息“收到”，然后把频道标为已读",
    "archive the three oldest tickets assigned to Bob and add the label 'stale'",
    "rename the board 'Q3 plan' to 'Q4 plan' and invite carol@example.com",
    "schedule a 30 minute meeting with Dana next Tuesday at 10:00 titled 'sync'",
)
FLAG_POOL = ("CROSS_ENTITY_IDS", "UNREAD_CHECK_MISSING", "NOISE_TOOL", "CHECKER_DSL_INVALID")


def generated_specs(n_items: int, iterations_per_item: int, n_jobs: int, seed: int = 7) -> list[ItemSpec]:
    """Deterministic varied items for the bench: mixed statuses, verdicts, modes, flags, scores."""
    rng = random.Random(seed)
    specs = []
    for i in range(n_items):
        failed = rng.random() < 0.05
        scores = [] if failed else [[rng.choice((0, 1, 2, 2, 2)) for _ in range(6)] for _ in range(iterations_per_item)]
        specs.append(
            ItemSpec(
                job_id=f"job-{i % n_jobs:03d}",
                item_id=f"item-{i:06d}",
                instruction=f"{INSTRUCTIONS[i % len(INSTRUCTIONS)]} #{i}",
                scores=scores,
                status="failed" if failed else "completed",
                mode="mcp" if i % 3 == 0 else "api",
                rule_profile=("echo-05061347", "rl-env-4.30", "echo-04281753")[i % 3],
                flag_codes=rng.sample(FLAG_POOL, rng.randint(0, 2)),
                tokens_prompt=rng.randint(500, 5000),
                tokens_completion=rng.randint(100, 900),
                finished_at=BASE_TIME + timedelta(seconds=i),
                error="analyzer timed out" if failed else None,
            )
        )
    return specs
