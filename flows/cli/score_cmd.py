"""`rlauto score PACKAGE ATTEMPT`: score an agent's attempt (any recording) with a package's checkers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flows.cli.app import app, fail
from rlauto_core.errors import RlautoError


@app.command("score")
def score_command(
    package: Annotated[Path, typer.Argument(help="A task package ZIP or its task.json.")],
    attempt: Annotated[Path, typer.Argument(help="The attempt: a recording ZIP or a bare .har file.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Score ATTEMPT rubric by rubric; exit 0 when it passes the package's policy, 1 when it fails."""
    from rlauto_core.checkers import score
    from rlauto_core.importers import import_path
    from rlauto_core.package import load_package

    try:
        loaded = load_package(package)
        report = score(loaded, import_path(attempt))
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(report.cli_dict(), ensure_ascii=False, indent=2))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"{attempt.name}: {report.score}/{report.max_score} {'PASS' if report.passed else 'FAIL'}")
        for column in ("rubric", "points", "passed", "reason"):
            table.add_column(column)
        for rubric in report.rubrics:
            table.add_row(
                f"{rubric.id} {rubric.title}",
                f"{rubric.points}/{rubric.max_score}",
                "yes" if rubric.passed else "no",
                rubric.reason,
            )
        Console().print(table)
    raise typer.Exit(code=0 if report.passed else 1)
