"""`rlauto agent policy LOG`: replay the run policy over a run's step log, without a phone.
`rlauto agent run "INSTRUCTION" --device SERIAL [--json]`: the agent on a phone, followed live."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from flows.cli.app import app, fail

if TYPE_CHECKING:
    from rlauto_core.agent.events import AgentEvent, TakeoverRequested
    from rlauto_core.agent.launch import LaunchedAgentRun
    from rlauto_core.agent.run import ModelChoice

agent_app = typer.Typer(help="The phone agent.", no_args_is_help=True)
app.add_typer(agent_app, name="agent")


def _read(path: Path) -> bytes:
    from rlauto_core.agent.policy import MAX_LOG_BYTES

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
    from rlauto_core.agent.policy import CHAT_ROUNDS_LIMIT, StepLogError, parse_step_log, replay

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
    elif verdict.verdict == "chat_ended":
        typer.echo(f"chat ended: {CHAT_ROUNDS_LIMIT} answers without a tool call, at line {verdict.at}")
    else:
        typer.echo("continue: no fuse tripped")
    typer.echo(f"hints at lines: {hints}")
    typer.echo(f"re-routes at lines: {reroutes}")


def model_choice(
    model: str | None, base_url: str | None, api_mode: str | None, key_secret: str | None
) -> ModelChoice | None:
    """The model options as a run's choice (None when none is given); a bad one exits 2 naming it."""
    from pydantic import ValidationError

    from rlauto_core.agent.run import ModelChoice

    try:
        choice = ModelChoice(model=model, base_url=base_url, api_mode=api_mode, key_secret=key_secret)
    except ValidationError as exc:
        first = exc.errors()[0]
        fail(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}")
    return choice if choice.given else None


class Console:
    """What a person following a run in a terminal reads: a line per event (`event_line`), and
    "a person is needed" once the run's flow run is paused for them, not when the run asks
    (it pauses a moment later, and may not pause at all: a stop, a refused pause)."""

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.asked: TakeoverRequested | None = None
        self.told = False  # the person-needed line of the takeover asked last was printed

    def event(self, event: AgentEvent) -> None:
        from rlauto_core.agent.events import TakeoverEnded, TakeoverRequested

        if isinstance(event, TakeoverRequested):
            self.asked, self.told = event, False
        elif isinstance(event, TakeoverEnded):
            # A pause handed back between two polls of the follower was never seen paused: the
            # run did pause, so tell it before the hand-back rather than never.
            if self.asked is not None and not self.told:
                self.paused()
            self.asked = None
        line = event_line(event)
        if line is not None and not self.quiet:
            typer.echo(line)

    def paused(self) -> None:
        self.told = True
        if not self.quiet:
            typer.echo(person_needed_line(self.asked))


def person_needed_line(asked: TakeoverRequested | None) -> str:
    why = f" ({asked.reason}): {asked.message}" if asked is not None else ": the run is paused"
    return (f"a person is needed{why}\n"
            "  do it on the phone, then Resume the flow run in the Prefect UI or hand back on the dashboard")  # fmt: skip


def event_line(event: AgentEvent) -> str | None:
    """One line per event a person follows in a terminal (heartbeats and model calls are quiet;
    a takeover's request is told once the run is paused: `Console.paused`)."""
    from rlauto_core.agent.events import (
        PolicyApplied,
        RunEnded,
        RunStarted,
        TakeoverEnded,
        TaskReported,
        ToolCalled,
    )

    if isinstance(event, RunStarted):
        changed = f"; the model changed, it was {event.model_was}" if event.model_was else ""
        return f"{'resumed' if event.resumed else 'started'} on {event.serial} ({event.model}{changed})"
    if isinstance(event, ToolCalled):
        args = json.dumps(event.args, ensure_ascii=False)[:120]
        outcome = event.result if event.ok else f"ERROR: {event.error}"
        return f"step {event.step}: {event.tool} {args} -> {' '.join(outcome.split())[:160]}"
    if isinstance(event, PolicyApplied):
        return f"policy: {event.kind} ({event.fuse}, {event.streak} in a row)"
    if isinstance(event, TakeoverEnded):
        return f"handed back{': ' + event.note if event.note else ''}"
    if isinstance(event, TaskReported):
        return f"report ({event.kind}{', refused' if not event.accepted else ''}): {event.summary[:200]}"
    if isinstance(event, RunEnded):
        return f"ended {event.outcome}: {event.answer[:500]}"
    return None


@agent_app.command("run")
def run_command(
    instruction: Annotated[str, typer.Argument(help="What the agent should do on the phone.")] = "",
    device: Annotated[str, typer.Option("--device", help="The phone's serial (adb devices).")] = "",
    conversation: Annotated[str | None, typer.Option("--conversation", help="Continue this conversation id.")] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Another model than AGENT_MODEL (must read images).")
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Another endpoint than AGENT_BASE_URL.")] = None,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    key_secret: Annotated[
        str | None, typer.Option("--key-secret", help="The Prefect Secret block holding this endpoint's key.")
    ] = None,
    resume: Annotated[
        str | None, typer.Option("--resume", help="Go on with this paused/stopped/failed agent run.")
    ] = None,
    note: Annotated[str | None, typer.Option("--note", help="With --resume: what the agent should know.")] = None,
    storage: Annotated[str | None, typer.Option("--storage", help="Storage URL (default RLAUTO_STORAGE_URL).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout at the end.")] = False,
) -> None:
    """Run the phone agent through the `run-agent` deployment (pool `phones`) and follow it.

    The run keeps its model: `--resume` goes on with it, and a model option given with
    `--resume` changes it (the step log says so). `--model scripted` plays the demo phone's
    tasks without a key (`rlauto phone demo`).

    Exit 0 when the run completed, 1 when it ended otherwise (paused, budget_exhausted, stopped,
    failed, blocked, chat_ended: see the answer), 2 when it could not start (a busy phone, another agent
    run, no deployment, bad input). Ctrl-C stops the run (resumable)."""
    from flows.agent_sdk import AgentRunOutcome, resume_agent, run_agent
    from rlauto_core.errors import RlautoError

    if resume is None and (not instruction.strip() or not device.strip()):
        fail("give an INSTRUCTION and --device SERIAL (or --resume RUN)")
    choice = model_choice(model, base_url, api_mode, key_secret)
    launched: list[LaunchedAgentRun] = []
    console = Console(quiet=as_json)

    def started(run: LaunchedAgentRun) -> None:
        launched.append(run)
        if not as_json:
            typer.echo(f"agent run {run.run_id}" + (f"  {run.ui_url}" if run.ui_url else ""))

    try:
        if resume is not None:
            outcome: AgentRunOutcome = resume_agent(resume, note, model=choice, storage_url=storage,
                                                    on_event=console.event, on_launch=started,
                                                    on_pause=console.paused)  # fmt: skip
        else:
            outcome = run_agent(instruction, device, conversation_id=conversation, model=choice, storage_url=storage,
                                on_event=console.event, on_launch=started, on_pause=console.paused,
                                origin="cli")  # fmt: skip
    except RlautoError as exc:
        fail(exc)
    except KeyboardInterrupt:
        _stop(launched, storage, device.strip())
        raise typer.Exit(code=130) from None
    if outcome.outcome is None:
        fail(outcome.message or f"the flow run ended {outcome.state} before the agent started")
    if as_json:
        typer.echo(json.dumps({**outcome.model_dump(mode="json"), "resumable": outcome.resumable}, ensure_ascii=False))
    raise typer.Exit(code=0 if outcome.outcome == "completed" else 1)


STOP_WAIT_S = 30.0  # a stopped run ends at its next checkpoint; one not started yet, at once


def _stop(launched: list[LaunchedAgentRun], storage: str | None, device: str) -> None:
    """Ctrl-C: stop the run, and say what became of it (stopped and resumable, or stopped before
    it started: then nothing holds the phone for it, and what holds the phone is named)."""
    from flows.agent_launch import PrefectAgentLauncher
    from rlauto_core.config import Settings
    from rlauto_core.errors import RlautoError

    if not launched:
        return
    run_id = launched[-1].run_id
    try:
        launcher = PrefectAgentLauncher(storage or Settings().rlauto_storage_url)
        launcher.stop(run_id)
        deadline = time.monotonic() + STOP_WAIT_S
        while not (ended := launcher.status(run_id).final) and time.monotonic() < deadline:
            time.sleep(0.5)
        if launcher.started(run_id):
            verb = "stopped" if ended else "stopping"
            sys.stderr.write(f"{verb} agent run {run_id}: resume it with --resume\n")
            return
        holder = next((d.busy for d in launcher.devices() if device and d.serial == device and d.busy), None)
        why = f"; device {device} is {holder}" if holder else ""
        state = "stopped before it started" if ended else "is being stopped before it started"
        sys.stderr.write(f"agent run {run_id} {state}{why}: nothing to resume\n")
    except RlautoError as exc:
        sys.stderr.write(f"error: {exc}\n")


@agent_app.command("key")
def key_command(
    name: Annotated[str, typer.Argument(help="The Secret block's name (lowercase letters, digits, dashes).")],
) -> None:
    """Save an endpoint's key in a Prefect Secret block NAME (read from stdin, or asked for
    without echo), for `rlauto agent run ... --key-secret NAME`: runs then name the block,
    never the key, and the phone host's worker loads it."""
    import re

    from prefect.blocks.system import Secret

    from flows import runtime
    from rlauto_core.agent.run import SECRET_NAME

    if not re.fullmatch(SECRET_NAME, name):
        fail(f"{name!r}: a Secret block's name is 1-100 lowercase letters, digits and dashes")
    key = sys.stdin.readline() if not sys.stdin.isatty() else typer.prompt("key", hide_input=True)
    if not key.strip():
        fail("no key given (an empty line)")
    if runtime.configure() is None:
        fail("no Prefect server to keep the key in: start one (`rlauto up`) or set PREFECT_API_URL")
    Secret(value=key.strip()).save(name, overwrite=True)
    typer.echo(f"saved in Secret block {name!r}; use it with --key-secret {name}")
