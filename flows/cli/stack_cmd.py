"""`rlauto up` / `rlauto down`: a local Prefect server, a worker on pool `rlauto` and the review
dashboard, for people who want the UI (with `--phones`, also pool `phones`, the device
deployments and a phones worker); `rlauto status JOB`: a job's items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated, Any

import typer

from flows import stack_procs
from flows.cli.app import app, fail, load_settings
from flows.cli.dashboard_cmd import dashboard_argv
from flows.cli.phone_cmd import stop_demo

REPO = Path(__file__).resolve().parents[2]


def _wait_healthy(url: str, timeout: float, server: dict[str, Any]) -> bool:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if stack_procs.find_ours(server) is None:
            return False  # the server exited (a bad database URL, a port in use): no use waiting
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


def database_url(url: str | None, home: Path) -> str:
    """The server's SQLAlchemy URL: SQLite under the data folder, or the given PostgreSQL
    database (`postgresql://user@host:port/db` gets Prefect's asyncpg driver)."""
    if not url:
        return f"sqlite+aiosqlite:///{home}/prefect.db"
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgres", "postgresql", "postgresql+asyncpg", "sqlite+aiosqlite"):
        fail(f"--database-url {shown_url(url)}: expected postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE")
    return f"postgresql+asyncpg://{rest}" if scheme in ("postgres", "postgresql") else url


def shown_url(url: str) -> str:
    """`url` without its password, for people and for stack.json."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in userinfo:
        return url
    return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}"


@app.command("up")
def up_command(
    port: Annotated[int, typer.Option(help="Prefect server port (127.0.0.1).")] = 4200,
    dashboard_port: Annotated[int, typer.Option(help="Review dashboard port.")] = 8501,
    workers: Annotated[int, typer.Option(help="Process workers on pool rlauto.")] = 1,
    no_dashboard: Annotated[bool, typer.Option("--no-dashboard", help="Skip the dashboard.")] = False,
    phones: Annotated[
        bool, typer.Option("--phones", help="Also pool `phones`, the device deployments and a phones worker.")
    ] = False,
    database: Annotated[
        str | None,
        typer.Option(
            "--database-url", help="PostgreSQL for the server (postgresql://USER@HOST:PORT/DB); default SQLite."
        ),
    ] = None,
) -> None:
    """Start a local Prefect server, deploy the flows, start workers and the dashboard; with
    `--phones` also the phone host's part: pool `phones`, run-agent, design-task and the other
    device deployments, and a worker on it (this machine is the phone host)."""
    from flows import runtime

    if runtime.local_stack() is not None:
        fail(f"a local stack is already up ({runtime.stack_file()}); run `rlauto down` first")
    if phones and (find_spec("adbutils") is None or find_spec("uiautomator2") is None):
        fail("--phones needs the phone tools: pip install -e '.[device]'")
    home = runtime.data_dir() / "prefect"
    home.mkdir(parents=True, exist_ok=True)
    api_url = f"http://127.0.0.1:{port}/api"
    base = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    server_env = {
        **base,
        "PREFECT_API_DATABASE_CONNECTION_URL": database_url(database, home),
        # the UI asks this address for its data; unset, it asks port 4200 whatever port it is served on
        "PREFECT_UI_API_URL": api_url,
    }
    server_env.pop("PREFECT_API_URL", None)
    logs = runtime.data_dir() / "stack"
    stack: dict[str, Any] = {
        "api_url": api_url,
        "ui_url": f"http://127.0.0.1:{port}",
        "database": shown_url(database) if database else "sqlite",
        "processes": [],
    }
    server = stack_procs.spawn(
        "server",
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        logs / "server.log",
        server_env,
        REPO,
    )
    stack["processes"].append(server)
    _save(stack)
    if not _wait_healthy(f"{api_url}/health", 120, server):
        _stop_all(stack)
        fail(f"the Prefect server did not come up on {api_url}; see {logs / 'server.log'}")
    # every program we start runs on this interpreter, whatever `python` on PATH is
    client_env = {**base, "PREFECT_API_URL": api_url, "RLAUTO_PYTHON": sys.executable}
    deploy = subprocess.run(
        ["bash", str(REPO / "infra" / "deploy.sh")], cwd=REPO, env=client_env, capture_output=True, text=True
    )
    if deploy.returncode != 0:
        _stop_all(stack)
        fail(f"deploying the flows failed: {deploy.stderr.strip()[-500:] or deploy.stdout.strip()[-500:]}")
    if phones:
        deployed = subprocess.run(["bash", str(REPO / "infra" / "deploy-phones.sh")], cwd=REPO, env=client_env,
                                  capture_output=True, text=True)  # fmt: skip
        if deployed.returncode != 0:
            _stop_all(stack)
            fail(f"deploying the device flows failed: {(deployed.stderr.strip() or deployed.stdout.strip())[-500:]}")
        worker = [sys.executable, "-m", "prefect", "worker", "start", "--pool", "phones", "--name", "local-phones"]
        stack["processes"].append(
            stack_procs.spawn("phones-worker", worker, logs / "phones-worker.log", client_env, REPO)
        )
        stack["phones"] = True
        _save(stack)
    for n in range(max(workers, 1)):
        stack["processes"].append(
            stack_procs.spawn(
                f"worker-{n}",
                [sys.executable, "-m", "prefect", "worker", "start", "--pool", "rlauto", "--name", f"local-{n}"],
                logs / f"worker-{n}.log",
                client_env,
                REPO,
            )
        )
        _save(stack)
    if not no_dashboard:
        stack["dashboard_url"] = f"http://127.0.0.1:{dashboard_port}"
        stack["processes"].append(
            stack_procs.spawn(
                "dashboard",
                dashboard_argv("127.0.0.1", dashboard_port, load_settings().max_upload_mb),
                logs / "dashboard.log",
                client_env,
                REPO,
            )
        )
    _save(stack)
    typer.echo(f"Prefect UI:  {stack['ui_url']}")
    typer.echo(f"API:         {api_url}   (rlauto package / the SDK use it while it runs)")
    typer.echo(f"Database:    {stack['database']}")
    if not no_dashboard:
        typer.echo(f"Dashboard:   {stack['dashboard_url']}")
    if phones:
        typer.echo(
            "Phones:      pool phones, a worker on it; run-agent, design-task, eval-agent-suite, run-steps deployed"
        )
        typer.echo("             no phone? `rlauto phone demo` starts the demo phone")
    typer.echo(f"Logs:        {logs}")


@app.command("down")
def down_command() -> None:
    """Stop what `rlauto up` started (only processes that are still the ones it started) and the
    demo phone, and wait until they have ended."""
    from flows import runtime

    demo = stop_demo()
    if demo is not None:
        typer.echo("demo phone stopped" if not demo.still_running else "the demo phone is still running")
    path = runtime.stack_file()
    if not path.is_file():
        typer.echo("no local stack is recorded")
        return
    try:
        stack = json.loads(path.read_text())
    except ValueError:
        path.unlink()
        fail(f"{path}: not a stack record (unreadable JSON); removed it, stopped nothing")
    report = _stop_all(stack)
    for label in report.not_ours:
        typer.echo(f"{label}: no longer the process rlauto up started (another program has that pid); left alone")
    for label in report.killed:
        typer.echo(f"{label}: did not stop on SIGTERM within {stack_procs.TERM_GRACE_SECONDS:.0f} s; killed")
    if report.still_running:
        fail(f"still running after SIGKILL: {', '.join(report.still_running)}; {path} kept")
    path.unlink()
    typer.echo(f"local stack stopped: {', '.join(report.stopped) or 'nothing was running'}")


def _save(stack: dict[str, Any]) -> None:
    from flows import runtime

    stack["pids"] = [p["pid"] for p in stack["processes"]]  # for people reading the file
    stack["server_pid"] = stack["processes"][0]["pid"]
    path = runtime.stack_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stack, indent=2))


def _stop_all(stack: dict[str, Any]) -> stack_procs.StopReport:
    # workers and dashboard first, the server last; SIGTERM (a worker ignores SIGINT for 30 s)
    records = stack.get("processes")
    if isinstance(records, list):
        return stack_procs.stop(records)
    # a record written before start times were kept: no pid in it can be proven ours
    return stack_procs.StopReport(not_ours=[f"pid {pid}" for pid in stack.get("pids", [])])


@app.command("status")
def status_command(
    job: Annotated[str, typer.Argument(help="The job id (printed by rlauto package / the batch).")],
    storage_url: Annotated[str | None, typer.Option(help="Storage URL (default RLAUTO_STORAGE_URL).")] = None,
) -> None:
    """Print a job's items: status, verdict, score, package; running ones from Prefect."""
    from flows.status import job_status

    report = job_status(job, storage_url or load_settings().rlauto_storage_url)
    rows = report.rows
    if not rows:
        fail(
            f"job {job}: no item found in storage"
            + (f"; {report.prefect_unreachable}" if report.prefect_unreachable else " or in Prefect")
        )
    if report.prefect_unreachable:
        typer.echo(f"note: {report.prefect_unreachable}: items still running are not shown", err=True)
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"job {job}")
    for column in ("recording", "status", "verdict", "score", "iterations", "package / error"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            row.source_name, row.status, row.verdict or "", "" if row.total_score is None else f"{row.total_score}/12",
            str(row.iterations_used), row.detail,
        )  # fmt: skip
    Console().print(table)
