"""The `export-dataset` flow: `rlauto dataset export` from the Prefect UI.

Without `out`, the dataset goes beside the packages, to `<storage>/datasets/<job or all>-<format>`
(a worker's own disk would be out of the person's reach); a later run with the same options
replaces it (the folder holds only the export's files). Bad input fails the run with the
export's one-line message.
"""

from __future__ import annotations

from typing import Annotated

from prefect import flow
from prefect.artifacts import create_markdown_artifact
from pydantic import Field

from rlauto_core.config import Settings
from rlauto_core.dataset import DatasetFormat, ExportOptions, ExportSummary
from rlauto_core.redact import redact_text
from tasks.dataset_tasks import export_dataset_task


def default_out(storage_url: str, options: ExportOptions) -> str:
    return f"{storage_url.rstrip('/')}/datasets/{options.job_id or 'all'}-{options.format}"


def summary_markdown(summary: ExportSummary) -> str:
    def cell(text: object) -> str:
        return redact_text(str(text)).replace("|", "\\|").replace("\n", " ")

    lines = [
        f"# Dataset: {summary.rows} rows",
        "",
        f"- data: `{cell(summary.data_file)}`",
        f"- card: `{cell(summary.card_file)}`",
        f"- from: `{cell(summary.storage_url)}`",
        "",
        "| | items |",
        "|---|---|",
        f"| in the index | {summary.items_in_index} |",
        *(f"| left out: {cell(reason)} | {n} |" for reason, n in sorted(summary.filtered.items())),
        *(f"| skipped: {reason} | {n} |" for reason, n in summary.skipped_counts.items()),
        f"| exported | {summary.rows} |",
    ]
    return "\n".join(lines)


@flow(name="export-dataset", persist_result=False, log_prints=False)
def export_dataset(
    storage_url: str | None = None,
    out: str | None = None,
    format: DatasetFormat = "parquet",
    job_id: str | None = None,
    only_accepted: bool = False,
    min_score: Annotated[int | None, Field(ge=0, le=12)] = None,
) -> ExportSummary:
    """One row per task package (typed parquet or JSON Lines) plus a dataset card, from the
    newest item rows of the index; `only_accepted` keeps items whose newest review is accept,
    `min_score` those whose best judge total reaches it."""
    url = storage_url or Settings().rlauto_storage_url
    options = ExportOptions(format=format, job_id=job_id, only_accepted=only_accepted, min_score=min_score)
    summary = export_dataset_task(url, out or default_out(url, options), options)
    create_markdown_artifact(summary_markdown(summary), key="dataset-export", description=summary.line()[:500])
    return summary
