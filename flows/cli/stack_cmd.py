"""`rlauto up` / `rlauto down`: a local Prefect server, a worker on pool `rlauto` and the review
dashboard, for people who want the UI; `rlauto status JOB`: a job's items."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from flows.cli.app import app, fail, load_settings
from flows.cli.dashboard_cmd import dashboard_argv

REPO = Path(__file__).resolve().parents[2]


def _spawn(args: list[str], log: Path, env: dict[str, str]) -> int:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    return proc.pid


def _wait_healthy(url: str, timeout: float) -> bool:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


@app.command("up")
def up_command(
    port: Annotated[int, typer.Option(help="Prefect server port (127.0.0.1).")] = 4200,
    dashboard_port: Annotated[int, typer.Option(help="Review dashboard port.")] = 8501,
    workers: Annotated[int, typer.Option(help="Process workers on pool rlauto.")] = 1,
    no_dashboard: Annotated[bool, typer.Option("--no-dashboard", help="Skip the dashboard.")] = False,
) -> None:
    """Start a local Prefect server (SQLite), deploy the flows, start workers and the dashboard."""
    from flows import runtime

    if runtime.local_stack() is not None:
        fail(f"a local stack is already up ({runtime.stack_file()}); run `rlauto down` first")
    home = runtime.data_dir() / "prefect"
    home.mkdir(parents=True, exist_ok=True)
    api_url = f"http://127.0.0.1:{port}/api"
    base = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    server_env = {**base, "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{home}/prefect.db"}
    server_env.pop("PREFECT_API_URL", None)
    logs = runtime.data_dir() / "stack"
    stack: dict[str, Any] = {"api_url": api_url, "ui_url": f"http://127.0.0.1:{port}", "pids": []}
    stack["server_pid"] = _spawn(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        logs / "server.log",
        server_env,
    )
    stack["pids"].append(stack["server_pid"])
    _save(stack)
    if not _wait_healthy(f"{api_url}/health", 120):
        _stop_all(stack)
        fail(f"the Prefect server did not come up on {api_url}; see {logs / 'server.log'}")
    client_env = {**base, "PREFECT_API_URL": api_url}
    deploy = subprocess.run(
        [str(REPO / "infra" / "deploy.sh")], cwd=REPO, env=client_env, capture_output=True, text=True
    )
    if deploy.returncode != 0:
        _stop_all(stack)
        fail(f"deploying the flows failed: {deploy.stderr.strip()[-500:] or deploy.stdout.strip()[-500:]}")
    for n in range(max(workers, 1)):
        stack["pids"].append(
            _spawn(
                [sys.executable, "-m", "prefect", "worker", "start", "--pool", "rlauto", "--name", f"local-{n}"],
                logs / f"worker-{n}.log",
                client_env,
            )
        )
    if not no_dashboard:
        stack["dashboard_url"] = f"http://127.0.0.1:{dashboard_port}"
        stack["pids"].append(
            _spawn(
                dashboard_argv("127.0.0.1", dashboard_port, load_settings().max_upload_mb),
                logs / "dashboard.log",
                client_env,
            )
        )
    _save(stack)
    typer.echo(f"Prefect UI:  {stack['ui_url']}")
    typer.echo(f"API:         {api_url}   (rlauto package / the SDK use it while it runs)")
    if not no_dashboard:
        typer.echo(f"Dashboard:   {stack['dashboard_url']}")
    typer.echo(f"Logs:        {logs}")


@app.command("down")
def down_command() -> None:
    """Stop what `rlauto up` started."""
    from flows import runtime

    path = runtime.stack_file()
    if not path.is_file():
        typer.echo("no local stack is recorded")
        return
    stack = json.loads(path.read_text())
    _stop_all(stack)
    path.unlink()
    typer.echo("local stack stopped")


def _save(stack: dict[str, Any]) -> None:
    from flows import runtime

    path = runtime.stack_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(stack, indent=2))


def _stop_all(stack: dict[str, Any]) -> None:
    # workers and dashboard first, the server last; SIGTERM (a worker ignores SIGINT for 30 s)
    for pid in reversed(stack.get("pids", [])):
        try:
            os.killpg(int(pid), signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            continue
    deadline = time.monotonic() + 15
    for pid in stack.get("pids", []):
        while time.monotonic() < deadline:
            try:
                os.kill(int(pid), 0)
            except OSError:
                break
            time.sleep(0.2)
        else:
            with contextlib.suppress(OSError):
                os.killpg(int(pid), signal.SIGKILL)


@app.command("status")
def status_command(
    job: Annotated[str, typer.Argument(help="The job id (printed by rlauto package / the batch).")],
    storage_url: Annotated[str | None, typer.Option(help="Storage URL (default RLAUTO_STORAGE_URL).")] = None,
) -> None:
    """Print a job's items: status, verdict, score, package; running ones from Prefect."""
    from flows.status import job_status

    rows = job_status(job, storage_url or load_settings().rlauto_storage_url)
    if not rows:
        fail(f"job {job}: no item found in storage or in Prefect")
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
