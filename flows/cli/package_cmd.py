"""`rlauto package PATH...`: recordings in, task packages out (offline analyzer and validator for now)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows.cli.app import app, fail

if TYPE_CHECKING:
    from rlauto_core.package.pipeline import PackageOutcome


@app.command("package")
def package_command(
    paths: Annotated[list[str], typer.Argument(help="Recording ZIPs, .har files, folders or globs.")],
    out: Annotated[Path, typer.Option("--out", help="Where the package ZIPs go.")] = Path("task-packages"),
    profile: Annotated[str, typer.Option("--profile", help="Rule profile.")] = "echo-05061347",
    strict_full_marks: Annotated[bool, typer.Option("--strict-full-marks", help="Pass only at 12/12.")] = False,
    ignore_task_complexity: Annotated[
        bool, typer.Option("--ignore-task-complexity", help="With --strict-full-marks: TASK COMPLEXITY may be 1.")
    ] = False,
    offline: Annotated[bool, typer.Option("--offline", help="Use the offline analyzer even with a model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of outcomes on stdout.")] = False,
) -> None:
    """Package each recording; exit 0 when all pass, 1 when some need revision, 2 on bad input."""
    from pydantic import ValidationError

    from rlauto_core.options import RunOptions
    from rlauto_core.package.pipeline import expand_paths, package_paths

    try:
        options = RunOptions(
            rule_profile=profile,
            strict_full_marks=strict_full_marks,
            ignore_task_complexity_for_full_marks=ignore_task_complexity,
        )
    except ValidationError as exc:
        fail(f"--profile: {exc.errors()[0]['msg']}")
    del offline  # the offline path is the only one until the model path lands
    files, missing = expand_paths(paths)
    if not files and not missing:
        fail(f"{' '.join(paths)}: no recording (.zip or .har) found")
    if as_json:
        outcomes = package_paths(paths, options, out)
    else:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), transient=True) as bar:
            task = bar.add_task("packaging", total=len(files) + len(missing))

            def advance(outcome: PackageOutcome) -> None:
                bar.update(task, advance=1, description=Path(outcome.source).name)

            outcomes = package_paths(paths, options, out, on_done=advance)
        _summary(outcomes)
    for outcome in outcomes:
        if outcome.status == "error":
            sys.stderr.write(f"error: {(outcome.error or outcome.source).replace(chr(10), ' ')}\n")
    if as_json:
        typer.echo(json.dumps([o.cli_dict() for o in outcomes], ensure_ascii=False, indent=2))
    if any(o.status == "error" for o in outcomes):
        raise typer.Exit(code=2)
    raise typer.Exit(code=1 if any(o.status != "packaged" for o in outcomes) else 0)


def _summary(outcomes: list[PackageOutcome]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{sum(o.status == 'packaged' for o in outcomes)}/{len(outcomes)} packaged")
    for column in ("recording", "status", "judge", "self-check", "package"):
        table.add_column(column)
    for o in outcomes:
        check = o.self_check or {}
        checked = (
            f"golden {'ok' if check.get('golden_full_marks') else 'FAIL'}, empty {check.get('empty_attempt_score', 0):g}, "
            f"mutants {check.get('mutants_caught', 0)}/{check.get('mutants_total', 0)}"
            if check
            else (o.error or "")
        )
        judge = f"{o.total_score}/12 {o.verdict}" if o.total_score is not None else "-"
        table.add_row(
            Path(o.source).name, o.status, judge, checked, Path(o.package_path).name if o.package_path else "-"
        )
    Console().print(table)
