"""`rlauto dashboard`: the Streamlit review app, on loopback unless --host says otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from flows.cli.app import app, fail

PROJECT = Path(__file__).resolve().parents[2]
# the app with its launchers (dashboard_app.py hands review.py's `main` what starts runs), served
# as a Streamlit App whose page URLs name the server's root (dashboard_server.py)
REVIEW_APP = PROJECT / "flows" / "cli" / "dashboard_server.py"
PASSWORD_ENV = "RLAUTO_DASHBOARD_PASSWORD"


def _is_loopback(host: str) -> bool:
    # same rule as dashboards.auth.is_loopback, kept here so the CLI does not import Streamlit
    import ipaddress

    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def dashboard_argv(host: str, port: int, max_upload_mb: int) -> list[str]:
    """The `streamlit run` command line for the review app (also usable by `rlauto up`)."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(REVIEW_APP),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.maxUploadSize",
        str(max_upload_mb),
        "--client.toolbarMode",
        "viewer",  # no "Deploy" button or developer menu for reviewers
    ]


def dashboard_env(storage_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    project = str(PROJECT)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (project, env.get("PYTHONPATH", "")) if p)
    if storage_url:
        env["RLAUTO_STORAGE_URL"] = storage_url
    return env


@app.command("dashboard")
def dashboard_command(
    host: Annotated[str, typer.Option(help="Address to listen on; anything but loopback needs a password.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8501,
    storage: Annotated[
        str | None, typer.Option(help="Storage URL (default: RLAUTO_STORAGE_URL, else the project's data folder).")
    ] = None,
) -> None:
    """Serve the review dashboard (Streamlit) over the results index."""
    if not _is_loopback(host) and not os.environ.get(PASSWORD_ENV, "").strip():
        fail(f"--host {host}: listening beyond loopback needs a password; set {PASSWORD_ENV} first")
    from pydantic import ValidationError

    from rlauto_core.config import Settings

    try:
        max_upload_mb = Settings().max_upload_mb
    except ValidationError as exc:
        first = exc.errors()[0]
        fail(f"configuration: {'.'.join(map(str, first['loc']))}: {first['msg']}")
    typer.echo(f"Dashboard: http://{host if ':' not in host else f'[{host}]'}:{port}")
    sys.stdout.flush()
    argv = dashboard_argv(host, port, max_upload_mb)
    # this process becomes Streamlit (same pid): a SIGTERM or Ctrl-C sent to `rlauto dashboard`
    # reaches the server itself, and no child is left behind when we are stopped
    os.execve(argv[0], argv, dashboard_env(storage))
