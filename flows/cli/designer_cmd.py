"""`rlauto designer run "INSTRUCTION" --device SERIAL`: the phone agent in designer mode through
the `design-task` deployment (the flow and slots the dashboard's Designer page uses), followed
live; the draft it hands in waits for a person to confirm it on the Designer page."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from flows.cli.agent_cmd import Console, model_choice
from flows.cli.app import app, fail

if TYPE_CHECKING:
    from rlauto_core.agent.launch import LaunchedAgentRun

designer_app = typer.Typer(help="The phone agent in designer mode: it designs step tasks.", no_args_is_help=True)
app.add_typer(designer_app, name="designer")


@designer_app.command("run")
def run_command(
    instruction: Annotated[str, typer.Argument(help="What the automation should do on the phone.")],
    device: Annotated[str, typer.Option("--device", help="The phone's serial (adb devices).")] = "",
    model: Annotated[str | None, typer.Option("--model", help="Another model than AGENT_MODEL.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Another endpoint than AGENT_BASE_URL.")] = None,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    key_secret: Annotated[
        str | None, typer.Option("--key-secret", help="The Prefect Secret block holding this endpoint's key.")
    ] = None,
    storage: Annotated[str | None, typer.Option("--storage", help="Storage URL (default RLAUTO_STORAGE_URL).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout at the end.")] = False,
) -> None:
    """Explore the phone and hand in a step task for INSTRUCTION (a draft a person confirms).

    Exit 0 when a valid draft was handed in, 1 when the run ended without one, 2 when it could
    not start (a busy phone, another agent run, no deployment, bad input)."""
    from flows.agent_sdk import run_designer
    from rlauto_core.agent.designer import DraftStore
    from rlauto_core.config import Settings
    from rlauto_core.errors import RlautoError
    from rlauto_core.store import open_storage

    if not instruction.strip() or not device.strip():
        fail("give an INSTRUCTION and --device SERIAL")
    choice = model_choice(model, base_url, api_mode, key_secret)

    console = Console(quiet=as_json)

    def started(run: LaunchedAgentRun) -> None:
        if not as_json:
            typer.echo(f"designer run {run.run_id}" + (f"  {run.ui_url}" if run.ui_url else ""))

    try:
        outcome = run_designer(instruction, device.strip(), model=choice, storage_url=storage, on_event=console.event,
                               on_launch=started, on_pause=console.paused)  # fmt: skip
    except RlautoError as exc:
        fail(exc)
    if outcome.outcome is None:
        fail(outcome.message or f"the flow run ended {outcome.state} before the designer started")
    draft = DraftStore(open_storage(storage or Settings().rlauto_storage_url)).latest()
    mine = draft if draft is not None and draft.run_id == outcome.run_id else None
    if as_json:
        out = {**outcome.model_dump(mode="json"), "draft": mine.model_dump(mode="json") if mine else None}
        typer.echo(json.dumps(out, ensure_ascii=False))
    elif mine is not None:
        typer.echo(
            f"draft {mine.name!r}: {len(mine.steps)} steps"
            + (f"; warnings: {'; '.join(mine.warnings)}" if mine.warnings else "")
        )
        typer.echo("confirm or discard it on the dashboard's Designer page: only a confirmed draft becomes a task")
    raise typer.Exit(code=0 if outcome.outcome == "completed" and mine is not None else 1)
