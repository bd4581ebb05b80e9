"""`rlauto package PATH...`: recordings in, task packages out, through the `package-batch` flow.

The model path runs whenever an analyzer key is configured (or `--model/--base-url/--api-key-env/
--api-key-secret` are given), the offline analyzer otherwise; `--offline` forces it. The first line says which.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from flows.cli.app import app, fail, load_settings
from rlauto_core.config import MAX_ITEMS_IN_FLIGHT
from rlauto_core.rules import DEFAULT_PROFILE

if TYPE_CHECKING:
    from rlauto_core.config import RunContext, RunOptions, Settings
    from rlauto_core.pipeline import BatchOutcome, BatchPlan, ItemOutcome


@app.command("package")
def package_command(
    paths: Annotated[list[str], typer.Argument(help="Recording ZIPs, .har files, folders or globs.")],
    out: Annotated[Path, typer.Option("--out", help="Where passing package ZIPs are copied.")] = Path("task-packages"),
    profile: Annotated[str, typer.Option("--profile", help="Rule profile.")] = DEFAULT_PROFILE,
    strict_full_marks: Annotated[bool, typer.Option("--strict-full-marks", help="Pass only at 12/12.")] = False,
    ignore_task_complexity: Annotated[
        bool, typer.Option("--ignore-task-complexity", help="With --strict-full-marks: TASK COMPLEXITY may be 1.")
    ] = False,
    offline: Annotated[bool, typer.Option("--offline", help="The offline analyzer even with a model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of outcomes on stdout.")] = False,
    feedback: Annotated[str, typer.Option("--feedback", help="Guidance for the analyzer model.")] = "",
    optimize_task: Annotated[
        bool, typer.Option("--optimize-task", help="Also polish the instruction into Chinese and English.")
    ] = False,
    max_iterations: Annotated[int, typer.Option("--max-iterations", help="Judge iterations, 1-5.")] = 5,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Analyzer model name.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Analyzer endpoint.")] = None,
    api_key_env: Annotated[
        str | None, typer.Option("--api-key-env", help="Name of the variable holding the analyzer key.")
    ] = None,
    api_key_secret: Annotated[
        str | None,
        typer.Option(
            "--api-key-secret",
            help="Name of a Prefect Secret block holding the analyzer key (read where each item runs).",
        ),
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Model calls in flight for the batch, 1-8 (what the provider allows).")
    ] = 3,
    items_in_flight: Annotated[
        int | None,
        typer.Option(
            "--items-in-flight",
            help="Recordings worked on at once, 1-16 (default: twice --concurrency): parsing and bookkeeping "
            "overlap other recordings' model waits.",
        ),
    ] = None,
    redact_secrets: Annotated[
        bool, typer.Option("--redact-secrets", help="Redact secrets in every file of the output, not only task.json.")
    ] = False,
) -> None:
    """Package each recording; exit 0 when all pass, 1 when some need revision, 2 on bad input."""
    settings = load_settings()
    if api_key_env and api_key_secret:
        fail("give --api-key-env or --api-key-secret, not both")
    if items_in_flight is not None and not 1 <= items_in_flight <= MAX_ITEMS_IN_FLIGHT:
        fail(f"--items-in-flight: between 1 and {MAX_ITEMS_IN_FLIGHT}")
    options = _options(
        api_key_env,
        api_key_secret=api_key_secret,
        rule_profile=profile,
        strict_full_marks=strict_full_marks,
        ignore_task_complexity_for_full_marks=ignore_task_complexity,
        offline=offline,
        feedback=feedback,
        optimize_task=optimize_task,
        max_iterations=max_iterations,
        api_mode=api_mode,
        model=model,
        base_url=base_url,
        concurrency=concurrency,
        redact_secrets=redact_secrets,
    )
    from rlauto_core.config import RunContext
    from rlauto_core.errors import ConfigError, RlautoError
    from rlauto_core.pipeline import plan_batch

    try:
        analyzer = _analyzer_line(settings, options)
        plan = plan_batch(paths, options, max_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb)
    except ConfigError as exc:
        fail(f"configuration: {exc}")
    except RlautoError as exc:
        fail(exc)
    for missing in plan.missing:
        sys.stderr.write(f"error: {missing}\n")
    if not plan.items:
        raise typer.Exit(code=2)
    if not as_json:  # with --json each outcome carries it instead: stdout stays one document
        typer.echo(analyzer)
    context = RunContext.resolve(settings)  # once: the flow and the progress bar get this one
    batch = _run(plan, options, context, items_in_flight, quiet=as_json)
    from flows.sdk import copy_packages, where

    copied = copy_packages(batch, out)
    for item in batch.items:
        if item.refused:
            sys.stderr.write(f"error: {str(item.error).replace(chr(10), ' ')}\n")
    if as_json:
        documents = [
            {**item.model_dump(mode="json"), "package_file": str(copied[item.item_id]) if item.item_id in copied else None,
             "analyzer_line": analyzer}
            for item in batch.items
        ]  # fmt: skip
        typer.echo(json.dumps(documents, ensure_ascii=False, indent=2))
    else:
        _summary(batch.items, copied, where(batch), out)
    if plan.missing or any(item.refused for item in batch.items):
        raise typer.Exit(code=2)
    raise typer.Exit(code=0 if all(item.passed for item in batch.items) else 1)


# RunOptions fields whose command-line flag has another name
_FLAGS = {"rule_profile": "--profile", "ignore_task_complexity_for_full_marks": "--ignore-task-complexity"}


def _options(api_key_env: str | None, **fields: Any) -> RunOptions:
    """RunOptions from the flags (given by field name); the key only ever from a named variable."""
    from pydantic import ValidationError

    from rlauto_core.config import RunOptions

    key = None
    if api_key_env:
        key = os.environ.get(api_key_env)
        if not key:
            fail(f"--api-key-env: the variable {api_key_env} is not set")
    try:
        return RunOptions(api_key=key, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else "options"
        flag = _FLAGS.get(field, "--" + field.replace("_", "-"))
        fail(f"{flag}: {first['msg']}")


def _analyzer_line(settings: Settings, options: RunOptions) -> str:
    from rlauto_core.llm import Role, analyzer_configured, resolve_endpoint

    if not analyzer_configured(settings, options):
        why = "--offline" if options.offline else "no analyzer key configured"
        return f"analyzer: offline ({why}); judge: deterministic validator"
    endpoint = resolve_endpoint(Role.ANALYZER, settings, options)
    judge = resolve_endpoint(Role.JUDGE, settings, options)
    judge_text = f"model {judge.model} at {judge.host}" if judge.configured else "deterministic validator"
    return f"analyzer: model {endpoint.model} at {endpoint.host} ({endpoint.api_mode}); judge: {judge_text}"


def _quiet_prefect_console() -> None:
    """Prefect's console lines (and task tracebacks for refused recordings) would bury the
    one-line errors and the summary; its logs still reach the API, so the UI keeps them."""
    import logging

    # the console handler's level through Prefect's own override; set up now (or updated in
    # place when this process already ran a flow) so that later setups keep it
    level = os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "CRITICAL")
    from prefect.logging.configuration import setup_logging
    from prefect.logging.handlers import PrefectConsoleHandler

    setup_logging()
    loggers = [logging.getLogger(), *(logging.getLogger(n) for n in list(logging.Logger.manager.loggerDict))]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, PrefectConsoleHandler):
                handler.setLevel(level)


def _run(
    plan: BatchPlan, options: RunOptions, context: RunContext, items_in_flight: int | None, *, quiet: bool
) -> BatchOutcome:
    from flows.sdk import run_plan
    from rlauto_core.errors import RlautoError

    _quiet_prefect_console()
    if quiet:
        try:
            return run_plan(plan, options, context, options.concurrency, items_in_flight)
        except RlautoError as exc:
            fail(exc)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    # the job id is the plan's, the flow's own: known here, so the bar can follow the items'
    # outcome files as the flow writes them
    done = threading.Event()
    with Progress(
        TextColumn("packaging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    ) as bar:
        task = bar.add_task("packaging", total=len(plan.items))
        watcher = threading.Thread(target=_follow, args=(context.storage_url, plan, bar, task, done), daemon=True)
        watcher.start()
        try:
            return run_plan(plan, options, context, options.concurrency, items_in_flight)
        except RlautoError as exc:
            fail(exc)
        finally:
            done.set()
            watcher.join(timeout=2)


def _follow(storage_url: str, plan: BatchPlan, bar: Any, task: Any, done: threading.Event) -> None:
    from rlauto_core.store import layout
    from tasks.storage_io import get_storage

    storage = get_storage(storage_url)
    paths = [layout.item_outcome_path(plan.job_id, item.item_id) for item in plan.items]

    def snapshot() -> dict[str, bytes]:
        found = {}
        for path in paths:
            try:
                found[path] = storage.read_bytes(path)
            except Exception:  # not written yet, or the store is briefly away: look again later
                continue
        return found

    before = snapshot()
    while not done.wait(0.5):
        now = snapshot()
        bar.update(task, completed=sum(1 for p, data in now.items() if before.get(p) != data))


def _summary(items: list[ItemOutcome], copied: dict[str, Path], places: dict[str, str | None], out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    packaged = sum(item.passed for item in items)
    table = Table(title=f"{packaged}/{len(items)} packaged")
    for column in ("recording", "status", "judge", "self-check", "package"):
        table.add_column(column)
    for item in items:
        check = item.self_check
        checked = (
            f"golden {'ok' if check.golden_full_marks else 'FAIL'}, empty {check.empty_attempt_score:g}, "
            f"mutants {check.mutants_caught}/{check.mutants_total}"
            if check
            else (item.error or "")
        )
        judge = f"{item.total_score}/12 {item.verdict}" if item.total_score is not None else "-"
        package = copied[item.item_id].name if item.item_id in copied else "-"
        table.add_row(item.source_name, item.status, judge, checked, package)
    console = Console()
    console.print(table)
    console.print(f"job:      {places['job']}  (rlauto status {places['job']})")
    console.print(f"packages: {out.resolve()}  (all snapshots: {places['packages']})")
    console.print(f"index:    {places['index']}")
    if places.get("all_results"):
        console.print(f"bundle:   {places['all_results']}")
    console.print(f"UI:       {places['ui'] or 'run `rlauto up` for the Prefect UI and the review dashboard'}")
