"""One dataset row from an item's newest index row, its best package and its newest review.

The package is read back through `package_from_json` (a broken one is a `PackageError` naming
the file) and written out again through `package_to_json`, which redacts secrets: a package in
storage was redacted when it was made, and an export never trusts that it was.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rlauto_core.dataset.languages import instruction_languages
from rlauto_core.dataset.selection import Candidate
from rlauto_core.package import Dimension, package_from_json, package_to_json
from rlauto_core.redact import redact_text
from rlauto_core.store import DIMENSION_COLUMNS

# judge dimension name (as a package writes it) -> the index's column name, in the same order
_COLUMN_OF = dict(zip((d.value for d in Dimension), DIMENSION_COLUMNS, strict=True))

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _text(value: Any) -> str | None:
    """A value from the index or a review: text, with token-like parts redacted."""
    return None if value is None else redact_text(str(value))


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def package_document(data: Any, file: str) -> dict[str, Any]:
    """The package as task.json writes it (every field present), redacted; `PackageError` if broken."""
    return package_to_json(package_from_json(data, file))


def _subtasks(task: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": s["id"],
            "title": s["title"],
            "description": s["description"],
            "group_mode": s["groupMode"],
            "api_calls": [
                {
                    "id": c["id"],
                    "name": c["name"],
                    "type": c["type"],
                    "input_json": _json(c.get("input")),
                    "output_json": _json(c.get("output")),
                    "metadata_json": _json(c.get("metadata")),
                }
                for c in s["apiCalls"]
            ],
        }
        for s in task["subtasks"]
    ]


def _checkers(catalog: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "key": key,
            "kind": checker.get("kind") if isinstance(checker, dict) and isinstance(checker.get("kind"), str) else None,
            "checker_json": _json(checker),
        }
        for key, checker in sorted(catalog.items())
    ]


def _criteria(dbdiff: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "table": c["table"],
            "op": c["op"],
            "row_json": _json(c.get("row")),
            "before_json": _json(c.get("before")),
            "checker_key": c.get("checker_key"),
            "description": c.get("description", ""),
        }
        for c in dbdiff["criteria"]
    ]


def _golden(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for s in steps:
        target = s.get("target")
        rows.append(
            {
                "step": s["step"],
                "call_id": s["call_id"],
                "name": s["name"],
                "type": s["type"],
                "state_changing": s["state_changing"],
                "target": {"key": target[0], "value": target[1]} if target else None,
                "depends_on": s["depends_on"],
            }
        )
    return rows


def _best_judgement(validation: dict[str, Any], best_iteration: Any) -> dict[str, Any] | None:
    history = validation.get("judge") or []
    chosen = next((j for j in history if j.get("iteration") == best_iteration), history[-1] if history else None)
    return chosen.get("result") if chosen else None


def _scores(result: dict[str, Any] | None) -> dict[str, int | None] | None:
    if result is None:
        return None
    found = {_COLUMN_OF.get(s["dimension"]): s["score"] for s in result["scores"]}
    return {column: found.get(column) for column in DIMENSION_COLUMNS}


def dataset_row(candidate: Candidate, package: dict[str, Any]) -> dict[str, Any]:
    """The row of one item; `package` is a `package_document`."""
    task, validation, metadata = package["task"], package["validation"], package["metadata"]
    zh, en = instruction_languages(task)
    best_iteration = candidate.get("best_iteration")
    judged = _best_judgement(validation, best_iteration)
    review = candidate.review
    generator = metadata.get("generator") or {}
    return {
        **{
            name: _text(candidate.get(name))
            for name in ("job_id", "item_id", "source_name", "options_hash", "rule_profile", "analyzer", "status")
        },
        "source_sha256": _text(candidate.get("source_sha256") or metadata.get("sourceSha256")),
        "mode": _text(candidate.get("mode") or package["network"].get("mode")),
        "instruction": task["instruction"],
        "instruction_source": task.get("instructionSource"),
        "instruction_zh": zh,
        "instruction_en": en,
        "answer_json": _json(task.get("answer")),
        "subtasks": _subtasks(task),
        "rubrics": [
            {k: r.get(k) for k in ("id", "title", "description", "max_score", "checker_key")} for r in task["rubrics"]
        ],
        "checkers": _checkers(package["rubric_checkers"]),
        "dbdiff_criteria": _criteria(package["dbdiff_criteria"]),
        "golden_diff_json": _json(package["dbdiff_criteria"].get("golden_diff")),
        "pass_policy": package["pass_policy"],
        "golden_trajectory": _golden(package["golden_trajectory"]),
        "verdict": candidate.get("verdict") or validation.get("verdict"),
        "total_score": _first(candidate.get("total_score"), (judged or {}).get("total")),
        "max_score": candidate.get("max_score") or 12,
        "scores": _scores(judged),
        "judge_source": (judged or {}).get("source"),
        "judge_rationale": (judged or {}).get("rationale"),
        "best_iteration": best_iteration,
        "iterations_used": candidate.get("iterations_used") or validation.get("iterations_used"),
        "rubric_max_score": sum(int(r.get("max_score") or 0) for r in task["rubrics"]),
        "self_check": validation.get("self_check"),
        "flags": [{k: f.get(k) for k in ("code", "message", "severity", "call_ids")} for f in validation["flags"]],
        "review_decision": _text(review.decision) if review else None,
        "reviewer": _text(review.reviewer) if review else None,
        "review_comment": _text(review.comment) if review else None,
        "reviewed_at": review.created_at if review else None,
        "generator_version": generator.get("version") if isinstance(generator, dict) else None,
        "generated_at": metadata.get("generatedAt"),
        "finished_at": candidate.get("finished_at"),
        "package_path": _text(candidate.get("package_path")),
        "output_zip_path": _text(candidate.get("output_zip_path")),
        "metadata_json": _json(metadata),
    }


def repaired(value: Any) -> tuple[Any, bool]:
    """The value with every lone surrogate (valid in JSON escapes, not in UTF-8) made U+FFFD."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _LONE_SURROGATE.sub("\ufffd", value), True
        return value, False
    if isinstance(value, dict):
        changed = False
        out = {}
        for key, item in value.items():
            out[key], fixed = repaired(item)
            changed = changed or fixed
        return (out, True) if changed else (value, False)
    if isinstance(value, list):
        items = [repaired(item) for item in value]
        if any(fixed for _, fixed in items):
            return [item for item, _ in items], True
        return value, False
    return value, False
