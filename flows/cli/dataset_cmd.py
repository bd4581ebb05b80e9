"""`rlauto dataset export [STORAGE_URL] --out DIR`: the packages in storage as one dataset for RL
trainers (a typed parquet or JSON Lines file and its card). No Prefect: it reads the storage
directly, as the dashboard does; the `export-dataset` deployment runs the same core call."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from flows.cli.app import app, fail, load_settings

dataset_app = typer.Typer(help="Datasets of task packages for RL trainers.", no_args_is_help=True)
app.add_typer(dataset_app, name="dataset")


@dataset_app.command("export")
def export_command(
    storage_url: Annotated[
        str | None, typer.Argument(help="The storage to read (default: RLAUTO_STORAGE_URL).", show_default=False)
    ] = None,
    out: Annotated[str, typer.Option("--out", help="A new or empty folder (or fsspec URL) for the dataset.")] = "",
    fmt: Annotated[str, typer.Option("--format", help="parquet or jsonl.")] = "parquet",
    job: Annotated[str | None, typer.Option("--job", help="Only this job's items.")] = None,
    only_accepted: Annotated[
        bool, typer.Option("--only-accepted", help="Only items whose newest review is accept.")
    ] = False,
    min_score: Annotated[
        int | None, typer.Option("--min-score", help="Only items whose best judge total is at least N (0-12).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The export's summary as one JSON object.")] = False,
) -> None:
    """Export one row per package; exit 0 when written, 2 on bad input (one `error:` line)."""
    from pydantic import ValidationError

    from rlauto_core.dataset import DATASET_FORMATS, ExportOptions, export_dataset, open_source_storage
    from rlauto_core.errors import RlautoError

    if not out.strip():
        fail("--out: give the folder to write the dataset to")
    if fmt not in DATASET_FORMATS:
        fail(f"--format {fmt[:40]!r}: choose {' or '.join(DATASET_FORMATS)}")
    try:
        options = ExportOptions(format=fmt, job_id=job, only_accepted=only_accepted, min_score=min_score)
    except ValidationError as exc:
        first = exc.errors()[0]
        flag = "--" + str(first["loc"][0]).replace("_", "-") if first["loc"] else "options"
        fail(f"{flag.replace('--job-id', '--job')}: {first['msg']}")
    url = storage_url or load_settings().rlauto_storage_url
    try:
        summary = export_dataset(open_source_storage(url), out, options)
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(summary.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        typer.echo(summary.line())
