"""Prefect artifacts: per item one page (the six scores per iteration, the judge's reasons, the
flags, where the package is); per batch the progress and a summary table.

One artifact per item, written when it ends: each artifact is an API write the Prefect server
pays for (three per item were a visible part of a batch's cost, bench_orchestration). A batch
writes its progress (updated at most every few seconds) and one summary table, whose
description links the all-results bundle. They are async, on the flow run's own API client.
"""

from __future__ import annotations

from uuid import UUID

from prefect.artifacts import (
    acreate_markdown_artifact,
    acreate_progress_artifact,
    acreate_table_artifact,
    aupdate_progress_artifact,
)

from rlauto_core.package import Dimension
from rlauto_core.pipeline import BatchOutcome, ItemOutcome

SHORT = {
    Dimension.INSTRUCTION_CLARITY.value: "clarity",
    Dimension.TASK_COMPLEXITY.value: "complexity",
    Dimension.TRAJECTORY_TASK_ALIGNMENT.value: "alignment",
    Dimension.RUBRIC_COVERAGE.value: "coverage",
    Dimension.CHECKER_VERIFIABILITY.value: "verifiability",
    Dimension.EVIDENCE_GROUNDING.value: "grounding",
}


def _key(*parts: str) -> str:
    # artifact keys: lowercase letters, digits and dashes only
    text = "-".join(parts).lower()
    return "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in text)[:100]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


async def item_artifact(outcome: ItemOutcome) -> None:
    await acreate_markdown_artifact(
        item_markdown(outcome), key=_key(outcome.item_id, "judge"), description=f"{outcome.source_name}: judge"
    )


def item_markdown(outcome: ItemOutcome) -> str:
    lines = [f"# {_cell(outcome.source_name)}: {outcome.status}", ""]
    if outcome.message:
        lines += [_cell(outcome.message), ""]
    if outcome.error and outcome.error != outcome.message:
        lines += [f"**Error:** {_cell(outcome.error)}", ""]
    if outcome.iterations:
        lines += [
            "| iteration | " + " | ".join(SHORT.values()) + " | total | verdict | judge |",
            "|---" * (len(SHORT) + 4) + "|",
        ]
        for it in outcome.iterations:
            scores = " | ".join(str(it.scores.get(d, "")) for d in SHORT)
            lines.append(f"| {it.iteration} | {scores} | {it.total} | {it.verdict} | {it.judge_source} |")
        lines.append("")
    best = outcome.best()
    if best is not None:
        lines += [f"**Best iteration {best.iteration}**: {best.total}/12, {best.verdict} ({best.judge_source})", ""]
        if best.rationale:
            lines += [_cell(best.rationale), ""]
        lines += ["| dimension | score | why |", "|---|---|---|"]
        for dimension, explanation in best.explanations.items():
            lines.append(f"| {dimension} | {best.scores.get(dimension, '')}/2 | {_cell(explanation)} |")
        lines.append("")
    lines.append("## Flags")
    lines += [f"- `{f.code}` ({f.severity}): {_cell(f.message)}" for f in outcome.flags] or ["- none"]
    target = outcome.output_zip_path or outcome.package_path or outcome.export_dir
    lines += ["", f"Package: {outcome.uri(target) or target}"]
    return "\n".join(lines)


async def start_progress(job_id: str, total: int) -> UUID:
    artifact_id = await acreate_progress_artifact(0.0, key=_key(job_id, "progress"), description=f"{total} recordings")
    return UUID(str(artifact_id))


async def update_progress(artifact_id: UUID, done: int, total: int) -> None:
    await aupdate_progress_artifact(artifact_id, progress=100.0 * done / max(total, 1))


async def batch_summary(batch: BatchOutcome, all_results_uri: str | None) -> None:
    rows = [
        {"recording": i.source_name, "status": i.status, "verdict": i.verdict or "", "score": i.total_score,
         "iterations": i.iterations_used, "item": i.item_id, "package": i.uri(i.output_zip_path) or "",
         "error": (i.error or "")[:200]}
        for i in batch.items
    ]  # fmt: skip
    # the bundle's link in the table's description (markdown in the UI): one artifact, one API write
    bundle = f": [all-results-{batch.job_id}.zip]({all_results_uri})" if all_results_uri else ""
    await acreate_table_artifact(rows, key=_key(batch.job_id, "summary"), description=f"Job {batch.job_id}{bundle}")
