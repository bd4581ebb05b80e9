"""Prefect artifacts: per item the six scores per iteration, the judge's reasons with the flags,
and where the package is; per batch the progress and a summary table.

They are async and called from the async flows, so they ride on the flow run's own API client:
a synchronous call from a thread opened a client of its own each time (a TLS context and a
CSRF round trip), which was most of an item's orchestration cost (bench_orchestration)."""

from __future__ import annotations

from uuid import UUID

from prefect.artifacts import (
    acreate_link_artifact,
    acreate_markdown_artifact,
    acreate_progress_artifact,
    acreate_table_artifact,
    aupdate_progress_artifact,
)

from rlauto_core.package.judgement import Dimension
from rlauto_core.rules.flags import Flag
from tasks.models import ItemResult

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


async def item_artifacts(result: ItemResult, flags: list[Flag]) -> None:
    rows = [
        {"iteration": it.iteration, **{SHORT[d]: it.scores.get(d) for d in SHORT}, "total": it.total,
         "verdict": it.verdict, "judge": it.judge_source}
        for it in result.iterations
    ]  # fmt: skip
    if rows:
        await acreate_table_artifact(
            rows, key=_key(result.item_id, "scores"), description=f"Judge scores per iteration: {result.source_name}"
        )
    await acreate_markdown_artifact(
        judge_markdown(result, flags), key=_key(result.item_id, "judge"), description="Judge reasons and flags"
    )
    target = result.output_zip_path or result.package_path or result.export_dir
    if target:
        await acreate_link_artifact(
            result.uri(target) or target,
            link_text=f"{result.source_name}: {'output.zip' if result.output_zip_path else 'export folder'}",
            key=_key(result.item_id, "package"),
            description="Where the package is in storage",
        )


def judge_markdown(result: ItemResult, flags: list[Flag]) -> str:
    lines = [f"# {result.source_name}: {result.status}", ""]
    if result.error:
        lines += [f"**Error:** {result.error}", ""]
    best = next((i for i in result.iterations if i.iteration == result.best_iteration), None)
    if best is not None:
        lines += [f"**Best iteration {best.iteration}**: {best.total}/12, {best.verdict} ({best.judge_source})", ""]
        if best.rationale:
            lines += [best.rationale, ""]
        lines += ["| dimension | score | why |", "|---|---|---|"]
        for dimension, explanation in best.explanations.items():
            why = explanation.replace("|", "\\|").replace("\n", " ")
            lines.append(f"| {dimension} | {best.scores.get(dimension, '')}/2 | {why} |")
        lines.append("")
    lines.append("## Flags")
    lines += [f"- `{f.code}` ({f.severity}): {f.message}" for f in flags] or ["- none"]
    lines += ["", f"Storage: `{result.uri(result.export_dir) or result.export_dir}`"]
    return "\n".join(lines)


async def start_progress(job_id: str, total: int) -> UUID:
    artifact_id = await acreate_progress_artifact(0.0, key=_key(job_id, "progress"), description=f"{total} recordings")
    return UUID(str(artifact_id))


async def update_progress(artifact_id: UUID, done: int, total: int) -> None:
    await aupdate_progress_artifact(artifact_id, progress=100.0 * done / max(total, 1))


async def batch_summary(job_id: str, items: list[ItemResult], all_results_uri: str | None) -> None:
    rows = [
        {"recording": i.source_name, "status": i.status, "verdict": i.verdict or "", "score": i.total_score,
         "iterations": i.iterations_used, "item": i.item_id, "package": i.uri(i.output_zip_path) or "",
         "error": (i.error or "")[:200]}
        for i in items
    ]  # fmt: skip
    await acreate_table_artifact(rows, key=_key(job_id, "summary"), description=f"Job {job_id}")
    if all_results_uri:
        await acreate_link_artifact(
            all_results_uri, link_text=f"all-results-{job_id}.zip", key=_key(job_id, "all-results")
        )
