"""`rlauto package PATH...`: recordings in, task packages out, through the `package-batch` flow.

The model path runs whenever an analyzer key is configured (or `--model/--base-url/--api-key-env`
are given), the offline analyzer otherwise; `--offline` forces it. The first line says which.
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

if TYPE_CHECKING:
    from rlauto_core.config.options import RunOptions
    from rlauto_core.config.settings import Settings
    from tasks.models import BatchResult, ItemResult


@app.command("package")
def package_command(
    paths: Annotated[list[str], typer.Argument(help="Recording ZIPs, .har files, folders or globs.")],
    out: Annotated[Path, typer.Option("--out", help="Where passing package ZIPs are copied.")] = Path("task-packages"),
    profile: Annotated[str, typer.Option("--profile", help="Rule profile.")] = "echo-05061347",
    strict_full_marks: Annotated[bool, typer.Option("--strict-full-marks", help="Pass only at 12/12.")] = False,
    ignore_task_complexity: Annotated[
        bool, typer.Option("--ignore-task-complexity", help="With --strict-full-marks: TASK COMPLEXITY may be 1.")
    ] = False,
    offline: Annotated[bool, typer.Option("--offline", help="The offline analyzer even with a model.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list of outcomes on stdout.")] = False,
    feedback: Annotated[str, typer.Option("--feedback", help="Guidance for the analyzer model.")] = "",
    max_iterations: Annotated[int, typer.Option("--max-iterations", help="Judge iterations, 1-5.")] = 5,
    api_mode: Annotated[str | None, typer.Option("--api-mode", help="chat or responses.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Analyzer model name.")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="Analyzer endpoint.")] = None,
    api_key_env: Annotated[
        str | None, typer.Option("--api-key-env", help="Name of the variable holding the analyzer key.")
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Recordings at once, 1-8.")] = 3,
    redact_secrets: Annotated[
        bool, typer.Option("--redact-secrets", help="Redact secrets in every file of the output, not only task.json.")
    ] = False,
) -> None:
    """Package each recording; exit 0 when all pass, 1 when some need revision, 2 on bad input."""
    from rlauto_core.package.pipeline import expand_paths

    settings = load_settings()
    options = _options(
        api_key_env,
        rule_profile=profile,
        strict_full_marks=strict_full_marks,
        ignore_task_complexity_for_full_marks=ignore_task_complexity,
        offline=offline,
        feedback=feedback,
        max_iterations=max_iterations,
        api_mode=api_mode,
        model=model,
        base_url=base_url,
        concurrency=concurrency,
        redact_secrets=redact_secrets,
    )
    files, missing = expand_paths(paths)
    if not files:
        fail(f"{' '.join(missing or paths)}: no recording (.zip or .har) found")
    from rlauto_core.errors import ConfigError

    try:
        analyzer = _analyzer_line(settings, options)
    except ConfigError as exc:
        fail(f"configuration: {exc}")
    if not as_json:  # with --json each outcome carries it instead: stdout stays one document
        typer.echo(analyzer)
    batch = _run(files, options, settings, quiet=as_json)
    from flows.sdk import copy_packages, where

    copied = {Path(p).name: p for p in copy_packages(batch, out)}
    outcomes = [{**_outcome(item, batch, copied), "analyzer": analyzer} for item in batch.items]
    outcomes += [{"source": m, "job_id": batch.job_id, "status": "error", "verdict": None, "total_score": None, "package_path": None,
                  "self_check": None, "error": f"{m}: no such file", "analyzer": analyzer} for m in missing]  # fmt: skip
    for outcome in outcomes:
        if outcome["status"] == "error":
            sys.stderr.write(f"error: {str(outcome['error']).replace(chr(10), ' ')}\n")
    if as_json:
        typer.echo(json.dumps(outcomes, ensure_ascii=False, indent=2))
    else:
        _summary(outcomes, where(batch), out)
    if any(o["status"] == "error" for o in outcomes):
        raise typer.Exit(code=2)
    raise typer.Exit(code=0 if all(o["status"] == "packaged" for o in outcomes) else 1)


# RunOptions fields whose command-line flag has another name
_FLAGS = {"rule_profile": "--profile", "ignore_task_complexity_for_full_marks": "--ignore-task-complexity"}


def _options(api_key_env: str | None, **fields: Any) -> RunOptions:
    """RunOptions from the flags (given by field name); the key only ever from a named variable."""
    from pydantic import ValidationError

    from rlauto_core.config.options import RunOptions

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
    from rlauto_core.llm.endpoints import resolve_endpoint
    from rlauto_core.llm.factory import analyzer_configured
    from rlauto_core.llm.types import Role

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


def _run(files: list[Path], options: RunOptions, settings: Settings, *, quiet: bool) -> BatchResult:
    from flows.sdk import run_batch
    from rlauto_core.errors import RlautoError
    from rlauto_core.store.layout import batch_job_id, item_id

    _quiet_prefect_console()
    sources = [str(f) for f in files]
    if quiet:
        try:
            return run_batch(sources, options, options.concurrency)
        except RlautoError as exc:
            fail(exc)
    import hashlib

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    # the job id is the flow's own (stable for the same recordings and options): known here, so
    # the bar can follow the items' outcome files as the flow writes them
    ids = [item_id(hashlib.sha256(f.read_bytes()).hexdigest(), options.options_hash()) for f in files]
    job = batch_job_id(ids)
    done = threading.Event()
    with Progress(
        TextColumn("packaging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=True
    ) as bar:
        task = bar.add_task("packaging", total=len(files))
        watcher = threading.Thread(
            target=_follow, args=(settings.rlauto_storage_url, job, ids, bar, task, done), daemon=True
        )
        watcher.start()
        try:
            return run_batch(sources, options, options.concurrency, job_id=job)
        except RlautoError as exc:
            fail(exc)
        finally:
            done.set()
            watcher.join(timeout=2)


def _follow(storage_url: str, job: str, ids: list[str], bar: Any, task: Any, done: threading.Event) -> None:
    from rlauto_core.store.layout import item_outcome_path
    from tasks.storage_io import get_storage

    storage = get_storage(storage_url)
    paths = [item_outcome_path(job, i) for i in ids]

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


def _outcome(item: ItemResult, batch: BatchResult, copied: dict[str, Path]) -> dict[str, Any]:
    from rlauto_core.store.layout import package_file_name

    status = "packaged" if item.status == "completed" else "needs_revision"
    if item.status == "failed" and item.verdict is None:
        status = "error"  # refused before any package was built: bad input
    elif item.status == "stopped":
        status = "stopped"
    local = copied.get(package_file_name(item.source_name))
    return {
        "source": item.source,
        "job_id": batch.job_id,
        "status": status,
        "verdict": item.verdict,
        "total_score": item.total_score,
        "package_path": str(local) if local else None,
        "self_check": _self_check(batch.storage_url, item.package_path),
        "error": item.error,
    }


def _self_check(storage_url: str, package_path: str | None) -> dict[str, Any] | None:
    if not package_path:
        return None
    from tasks.storage_io import get_storage

    try:
        package = json.loads(get_storage(storage_url).read_bytes(package_path))
    except (OSError, ValueError):
        return None
    check = (package.get("validation") or {}).get("self_check")
    if not isinstance(check, dict):
        return None
    keys = ("golden_full_marks", "empty_attempt_score", "mutants_total", "mutants_caught", "problems")
    return {k: check.get(k) for k in keys}


def _summary(outcomes: list[dict[str, Any]], places: dict[str, str | None], out: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    packaged = sum(o["status"] == "packaged" for o in outcomes)
    table = Table(title=f"{packaged}/{len(outcomes)} packaged")
    for column in ("recording", "status", "judge", "self-check", "package"):
        table.add_column(column)
    for o in outcomes:
        check = o["self_check"] or {}
        checked = (
            f"golden {'ok' if check.get('golden_full_marks') else 'FAIL'}, empty {check.get('empty_attempt_score') or 0:g}, "
            f"mutants {check.get('mutants_caught', 0)}/{check.get('mutants_total', 0)}"
            if check
            else (o["error"] or "")
        )
        judge = f"{o['total_score']}/12 {o['verdict']}" if o["total_score"] is not None else "-"
        package = Path(o["package_path"]).name if o["package_path"] else "-"
        table.add_row(Path(o["source"]).name, o["status"], judge, checked, package)
    console = Console()
    console.print(table)
    console.print(f"job:      {places['job']}  (rlauto status {places['job']})")
    console.print(f"packages: {out.resolve()}  (all snapshots: {places['packages']})")
    console.print(f"index:    {places['index']}")
    if places.get("all_results"):
        console.print(f"bundle:   {places['all_results']}")
    console.print(f"UI:       {places['ui'] or 'run `rlauto up` for the Prefect UI and the review dashboard'}")
