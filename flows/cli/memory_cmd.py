"""The agent's memory from the command line, without Prefect (the storage is read directly):
`rlauto experience recall "TEXT" [--json]`, `rlauto experience audit [--json]`,
`rlauto actions check FILE [--json]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.cli.app import app, fail, load_settings

if TYPE_CHECKING:
    from rlauto_core.store import Storage

experience_app = typer.Typer(help="The phone agent's experience library (recipes).", no_args_is_help=True)
actions_app = typer.Typer(help="The phone agent's action library (named actions).", no_args_is_help=True)
app.add_typer(experience_app, name="experience")
app.add_typer(actions_app, name="actions")

MAX_TEXT_CHARS = 10_000
MAX_ACTION_FILE_BYTES = 1024 * 1024
StorageOption = Annotated[
    str | None, typer.Option("--storage", help="The storage URL (default: RLAUTO_STORAGE_URL).", show_default=False)
]
JsonOption = Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")]


def _storage(url: str | None) -> Storage:
    from rlauto_core.errors import RlautoError
    from rlauto_core.store import open_storage

    target = url or load_settings().rlauto_storage_url
    try:
        return open_storage(target)
    except (RlautoError, ValueError, OSError) as exc:
        fail(f"{target}: cannot open the storage: {exc}")


@experience_app.command("recall")
def recall_command(
    text: Annotated[str, typer.Argument(help="A task instruction, as a run would get it.")],
    storage_url: StorageOption = None,
    as_json: JsonOption = False,
) -> None:
    """The recipes and actions a run with TEXT would be given (hits are not counted: a look, not a use)."""
    from rlauto_core.memory import MAX_RECALLED, RECALL_THRESHOLD, ActionLibrary, ExperienceLibrary

    if not text.strip():
        fail("TEXT: empty: give the task instruction to recall for")
    if len(text) > MAX_TEXT_CHARS:
        fail(f"TEXT: {len(text)} characters: at most {MAX_TEXT_CHARS}")
    storage = _storage(storage_url)
    recipes = ExperienceLibrary(storage).recall(text, count_hits=False)
    actions = ActionLibrary(storage).recall(text, count_hits=False)
    if as_json:
        out: dict[str, Any] = {
            "threshold": RECALL_THRESHOLD,
            "max": MAX_RECALLED,
            "experiences": [
                {"id": r.experience.id, "score": r.score, "title": r.experience.title,
                 "instruction": r.experience.instruction, "recipe": r.experience.recipe, "hits": r.experience.hits}
                for r in recipes
            ],
            "actions": [
                {"id": a.action.id, "score": a.score, "name": a.action.name, "matched": a.matched,
                 "aliases": a.action.aliases, "steps": a.action.steps}
                for a in actions
            ],
        }  # fmt: skip
        typer.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    typer.echo(f"{len(recipes)} recipe(s) at least {RECALL_THRESHOLD} alike (at most {MAX_RECALLED}):")
    for hit in recipes:
        typer.echo(f"  {hit.score:.3f}  {hit.experience.id}  {hit.experience.title}")
        typer.echo("\n".join(f"      {line}" for line in hit.experience.recipe.splitlines()))
    typer.echo(f"{len(actions)} action(s):")
    for found in actions:
        typer.echo(
            f"  {found.score:.3f}  {found.action.name} (matched {found.matched!r}, {len(found.action.steps)} steps)"
        )


@experience_app.command("audit")
def audit_command(storage_url: StorageOption = None, as_json: JsonOption = False) -> None:
    """Rate every recipe keep / suggest delete with the agent's model; marks only, never deletes.
    An empty library needs no model (exit 0, as the daily flow)."""
    from rlauto_core.agent.run import AgentSettings
    from rlauto_core.errors import RlautoError
    from rlauto_core.memory import audit_client, audit_library

    storage = _storage(storage_url)
    try:
        summary = audit_library(storage, lambda: audit_client(AgentSettings.from_environment()))
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(summary.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    typer.echo(summary.line())
    for problem in summary.problems:
        typer.echo(f"  problem: {problem}")
    for path in summary.skipped:
        typer.echo(f"  skipped: {path}")


def _refuse(file: Path, problems: list[str], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps({"ok": False, "file": str(file), "problems": problems}, ensure_ascii=False))
    else:
        for problem in problems:
            sys.stderr.write(f"error: {file}: {problem}\n")
    raise typer.Exit(code=2)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


@actions_app.command("check")
def check_command(
    file: Annotated[Path, typer.Argument(help='One action as JSON: {"name", "aliases"?, "steps": [{"kind", ...}]}.')],
    as_json: JsonOption = False,
) -> None:
    """May FILE be saved as an action? Exit 0 (`{"ok": true}`) or 2 naming each problem."""
    from rlauto_core.memory import check_action

    try:
        if file.stat().st_size > MAX_ACTION_FILE_BYTES:
            _refuse(file, [f"{file.stat().st_size} bytes: an action file has at most {MAX_ACTION_FILE_BYTES}"], as_json)
        data = file.read_bytes()
    except IsADirectoryError:
        _refuse(file, ["is a directory, expected one action as JSON"], as_json)
    except OSError as exc:
        _refuse(file, [f"cannot read: {exc.strerror or exc}"], as_json)
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError:
        _refuse(file, ["not UTF-8 text"], as_json)
    except RecursionError:
        _refuse(file, ["not JSON: nested too deep"], as_json)
    except ValueError as exc:
        _refuse(file, [f"not JSON: {str(exc)[:200]}"], as_json)
    check = check_action(value)
    if not check.ok:
        _refuse(file, check.problems, as_json)
    if as_json:
        typer.echo(json.dumps({"ok": True}))
    else:
        assert check.action is not None
        typer.echo(f"{file}: ok: the action {check.action.name!r} may be saved ({len(check.action.steps)} steps)")
