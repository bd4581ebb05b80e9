"""`rlauto agent eval [SUITE] --device SERIAL --model M [--runs N] [--memory] [--json]`: the agent
measured on a task suite through the `eval-agent-suite` deployment, followed task by task."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.cli.agent_cmd import agent_app, model_choice
from flows.cli.app import fail

if TYPE_CHECKING:
    from flows.agent_eval import SuiteRunOutcome
    from rlauto_core.agent.suite import TaskRunRecord

MAX_RUNS = 20


def record_line(record: TaskRunRecord) -> str:
    """One line per task run, as a person follows the eval in a terminal."""
    verdict = "PASS" if record.success else "FAIL"
    figures = f"{record.steps} steps, {record.tokens_total:,} tokens, {record.wall_s:.1f} s"
    why = "" if record.success else f": {record.reason[:200]}"
    return f"{verdict} {record.task_id} (run {record.run}, {record.outcome or 'not run'}; {figures}){why}"


def outcome_json(outcome: SuiteRunOutcome) -> dict[str, Any]:
    summary = outcome.summary
    head: dict[str, Any] = {"eval_id": outcome.eval_id, "state": outcome.state, "ui_url": outcome.ui_url}
    if summary is None:
        return {**head, "message": outcome.message, "success_rate": None, "tasks": 0, "passed": 0, "results": []}
    return {
        **head,
        "suite": summary.suite, "model": summary.model, "memory": summary.memory,
        "success_rate": summary.success_rate, "tasks": summary.tasks, "runs": summary.runs,
        "passed": summary.passed, "errors": summary.errors, "per_tag": summary.per_tag,
        "results": [t.model_dump(mode="json") for t in summary.per_task],
    }  # fmt: skip


@agent_app.command("eval")
def eval_command(
    suite: Annotated[
        Path | None, typer.Argument(help="A suite file (YAML, docs/agent-suite.md); default: the demo suite.")
    ] = None,
    device: Annotated[str, typer.Option("--device", help="The phone's serial (adb devices).")] = "",
    model: Annotated[str | None, typer.Option("--model", help="The model (`scripted`: the demo's, no key).")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Another endpoint than AGENT_BASE_URL.")] = None,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    key_secret: Annotated[
        str | None, typer.Option("--key-secret", help="The Prefect Secret block holding this endpoint's key.")
    ] = None,
    runs: Annotated[int, typer.Option("--runs", help=f"Runs of each task (1-{MAX_RUNS}).")] = 1,
    memory: Annotated[
        bool, typer.Option("--memory/--no-memory", help="The experience library on (recall, distillation).")
    ] = False,
    storage: Annotated[str | None, typer.Option("--storage", help="Storage URL (default RLAUTO_STORAGE_URL).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout at the end.")] = False,
) -> None:
    """Measure the agent on a task suite: per task, the phone reset to its start state, the agent
    under the run policy, the task's checks read from the phone; the success rate at the end
    (overall, per tag, per task) and on the dashboard's Evals page.

    Exit 0 when every task ran (whatever the rate), 1 when the eval ended early (cancelled,
    failed), 2 when it could not start (a bad suite file, a busy phone, no deployment)."""
    from flows.agent_eval import eval_suite, stop_eval
    from rlauto_core.agent.suite import SuiteError, load_suite
    from rlauto_core.errors import RlautoError

    if not device.strip():
        fail("give --device SERIAL (adb devices; `rlauto phone demo` starts demo-1)")
    if not 1 <= runs <= MAX_RUNS:
        fail(f"--runs: 1 to {MAX_RUNS}, not {runs}")
    try:
        loaded = load_suite(suite) if suite is not None else None
    except SuiteError as exc:
        fail(exc)
    choice = model_choice(model, base_url, api_mode, key_secret)
    launched: list[str] = []

    def show(record: TaskRunRecord) -> None:
        if not as_json:
            typer.echo(record_line(record))

    def started(eval_id: str) -> None:
        launched.append(eval_id)
        if not as_json:
            typer.echo(f"eval {eval_id}: suite {loaded.name if loaded else 'demo'} on {device}")

    try:
        outcome = eval_suite(loaded, device, model=choice, runs=runs, memory=memory, storage_url=storage,
                             on_record=show, on_launch=started)  # fmt: skip
    except RlautoError as exc:
        fail(exc)
    except KeyboardInterrupt:
        if launched:
            stop_eval(launched[-1])
            sys.stderr.write(f"stopping eval {launched[-1]}\n")
        raise typer.Exit(code=130) from None
    summary = outcome.summary
    if summary is None and not outcome.records:
        fail(outcome.message or f"the eval ended {outcome.state} before its first task")
    if as_json:
        typer.echo(json.dumps(outcome_json(outcome), ensure_ascii=False))
    elif summary is not None:
        typer.echo(f"success rate: {summary.passed}/{summary.runs} ({summary.success_rate:.0%})")
        for tag, rate in summary.per_tag.items():
            typer.echo(f"  {tag}: {rate:.0%}")
        if outcome.ui_url:
            typer.echo(f"the eval in the Prefect UI: {outcome.ui_url}; compare evals on the dashboard's Evals page")
    raise typer.Exit(code=0 if outcome.state == "Completed" else 1)
