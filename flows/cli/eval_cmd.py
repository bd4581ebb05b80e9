"""`rlauto eval run PACKAGES... --model M [--base-url URL]`: a model acts in each package's
environment through the `eval-agent` flow; prints the success rate and each attempt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flows.cli.app import app, fail
from rlauto_core.errors import RlautoError

eval_app = typer.Typer(help="Evaluate an agent in package environments (docs/replay.md).")
app.add_typer(eval_app, name="eval")


def rubric_lines(rubrics: dict[str, float]) -> list[str]:
    """Per rubric, the share of attempts passing it: the rubrics some attempt missed, each named
    (what the model gets wrong), or one line when every attempt passed every rubric."""
    missed = {name: rate for name, rate in rubrics.items() if rate < 1.0}
    if not missed:
        return [f"rubrics: {len(rubrics)}, every one passed by every attempt"]
    lines = [f"rubrics: {len(rubrics)}, {len(missed)} missed by some attempt:"]
    return lines + [
        f"  {name}: {rate:.0%} of attempts pass it" for name, rate in sorted(missed.items(), key=lambda kv: kv[1])
    ]


@eval_app.command("run")
def run_command(
    packages: Annotated[list[Path], typer.Argument(help="Task package ZIPs (or task.json files).")],
    model: Annotated[str, typer.Option("--model", help="`scripted` (no key) or the endpoint's model.")] = "scripted",
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible API root.")] = None,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    key_secret: Annotated[str | None, typer.Option("--key-secret", help="Prefect Secret block with the key.")] = None,
    attempts: Annotated[int, typer.Option("--attempts", min=1, max=20, help="Attempts per package.")] = 1,
    max_turns: Annotated[int, typer.Option("--max-turns", min=1, max=200, help="Model turns per attempt.")] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """Run the eval; exit 0 when it ran (whatever the success rate)."""
    missing = [str(p) for p in packages if not p.is_file()]
    if missing:
        fail(f"{', '.join(missing)}: no such package file")
    if api_mode not in (None, "chat", "responses"):
        fail(f"--api-mode {api_mode!r}: chat or responses")
    from flows.evals import eval_agent

    try:
        outcome = eval_agent(
            [str(p.resolve()) for p in packages], model, base_url, api_mode, key_secret,  # type: ignore[arg-type]
            attempts, max_turns,
        )  # fmt: skip
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(outcome.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    summary = outcome.summary
    typer.echo(f"eval {outcome.eval_id}: {outcome.model}: success rate {summary['success_rate']:.0%} "
               f"({sum(r.passed for r in outcome.rows)}/{len(outcome.rows)}), mean score {summary['mean_score']:.0%}")  # fmt: skip
    for row in outcome.rows:
        verdict = "PASS" if row.passed else "FAIL"
        typer.echo(
            f"  {row.package} #{row.attempt}: {row.score}/{row.max_score} {verdict} ({row.turns} turns, {row.stopped})"
        )
    for line in rubric_lines(summary["rubrics"]):
        typer.echo(line)
    typer.echo(f"attempts under {outcome.storage_url.rstrip('/')}/evals/{outcome.eval_id}/; index {outcome.index_file}")
