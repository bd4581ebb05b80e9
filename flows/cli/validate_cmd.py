"""`rlauto validate PACKAGE`: the package's self-check (golden, empty attempt, mutants, valid variants) and
rule judge."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Annotated, Any

import typer

from flows.cli.app import app, fail
from rlauto_core.errors import RlautoError


def validate_package(path: Path) -> dict[str, Any]:
    from rlauto_core.importers import import_path
    from rlauto_core.judging import cli_dict, self_check, validate
    from rlauto_core.package import load_package

    package = load_package(path)
    # a package ZIP still holds the recording; a bare task.json replays its own call objects
    recording = import_path(path) if zipfile.is_zipfile(path) else None
    check = self_check(package, recording)
    judged = validate(package, recording, check=check)
    report = cli_dict(check)
    report["judge"] = {
        "total": judged.total,
        "verdict": judged.verdict,
        "scores": {s.dimension.value: {"score": s.score, "explanation": s.explanation} for s in judged.scores},
    }
    return report


@app.command("validate")
def validate_command(
    package: Annotated[Path, typer.Argument(help="A task package ZIP or its task.json.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Self-check a package; exit 0 when it has no problem, 1 when it has some."""
    try:
        report = validate_package(package)
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        typer.echo(
            f"golden full marks: {report['golden_full_marks']}; empty attempt: {report['empty_attempt_score']:g}; "
            f"mutants caught: {report['mutants_caught']}/{report['mutants_total']}; "
            f"valid variants at full marks: {report['variants_passed']}/{report['variants_total']}; "
            f"judge: {report['judge']['total']}/12 {report['judge']['verdict']}"
        )
        covered, excluded = report["writes_covered"], report["writes_excluded"]
        unruled = sum(1 for w in excluded if not w["rule"])
        typer.echo(
            f"recorded writes: {len(covered)} covered, {len(excluded) - unruled} excluded by a rule, "
            f"{unruled} with no rule; "
            f"recording mutants caught: {report['recording_mutants_caught']}/{report['recording_mutants_total']}; "
            f"behaviour variants at full marks: "
            f"{report['behaviour_variants_passed']}/{report['behaviour_variants_total']}"
        )
        for write in excluded:
            rule = f"({write['rule']})" if write["rule"] else "(NO RULE)"
            typer.echo(f"  excluded {write['call_id']} {write['name']} {rule}: {write['reason']}")
        if report["ungrounded"]:
            typer.echo(f"  no rubric checks: {', '.join(repr(c) for c in report['ungrounded'])}")
        failing = report["failing_variant"]
        if failing is not None:
            broken = ", ".join(f"{r['id']} ({r['title']})" for r in failing["rubrics"])
            typer.echo(f"  failing variant: {failing['id']} {failing['description']}: breaks {broken}")
        for problem in report["problems"]:
            typer.echo(f"  problem: {problem}")
    raise typer.Exit(code=1 if report["problems"] else 0)
