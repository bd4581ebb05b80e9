"""`rlauto agent policy LOG`: replay the run policy over a run's step log, without a phone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flows.cli.app import app, fail

agent_app = typer.Typer(help="The phone agent.", no_args_is_help=True)
app.add_typer(agent_app, name="agent")


def _read(path: Path) -> bytes:
    from rlauto_core.agent import MAX_LOG_BYTES

    try:
        size = path.stat().st_size
        if size > MAX_LOG_BYTES:
            fail(f"{path}: {size} bytes is over the {MAX_LOG_BYTES // 2**20} MiB limit for a step log")
        return path.read_bytes()
    except IsADirectoryError:
        fail(f"{path}: is a directory, expected a step log (JSON Lines)")
    except OSError as exc:
        fail(f"{path}: cannot read: {exc.strerror or exc}")


@agent_app.command("policy")
def policy_command(
    log: Annotated[Path, typer.Argument(help="A run's step log (steps.jsonl): one JSON object per tool call.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Replay the run policy over LOG: would the run go on, or pause, and where (1-based lines).

    Exit 0 either way (the verdict is the output); 2 when LOG cannot be read."""
    from rlauto_core.agent import StepLogError, parse_step_log, replay

    try:
        verdict = replay(parse_step_log(_read(log), str(log)))
    except StepLogError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(verdict.cli_dict()))
        return
    hints = ", ".join(str(n) for n in verdict.hints) or "none"
    reroutes = ", ".join(str(n) for n in verdict.reroutes) or "none"
    if verdict.verdict == "paused":
        typer.echo(f"paused: {verdict.fuse} at line {verdict.at}")
    else:
        typer.echo("continue: no fuse tripped")
    typer.echo(f"hints at lines: {hints}")
    typer.echo(f"re-routes at lines: {reroutes}")
