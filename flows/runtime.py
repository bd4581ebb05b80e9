"""Which Prefect API a process talks to: a running local server (`rlauto up`) if there is one,
else what PREFECT_API_URL says, else Prefect's ephemeral mode. Call `configure()` before the
first Prefect import of a CLI/SDK entry point."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

from rlauto_core.config import default_storage_url


def data_dir() -> Path:
    """Where `rlauto up` keeps its server database, logs and `stack.json`: RLAUTO_DATA_DIR, else
    `.data/` next to the default storage folder (the project's data directory)."""
    if os.environ.get("RLAUTO_DATA_DIR"):
        return Path(os.environ["RLAUTO_DATA_DIR"])
    return Path(default_storage_url().removeprefix("file://")).parent


def stack_file() -> Path:
    return data_dir() / "stack" / "stack.json"


def local_stack() -> dict[str, object] | None:
    """What `rlauto up` recorded, when its server is still the process it started."""
    path = stack_file()
    if not path.is_file():
        return None
    try:
        stack = json.loads(path.read_text())
        server = stack["processes"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    from flows.stack_procs import find_ours

    return dict(stack) if isinstance(server, dict) and find_ours(server) is not None else None


def ensure_prefect_home() -> None:
    """Prefect keeps its database and settings in PREFECT_HOME (default `~/.prefect`); with a
    missing or unwritable home its temporary server only times out. Then use the project's data
    folder, and say so."""
    if os.environ.get("PREFECT_HOME"):
        return
    try:
        default: Path | None = Path.home() / ".prefect"
    except RuntimeError:  # no HOME and no account entry
        default = None
    if default is not None and _writable_folder(default, parents=False):  # Prefect makes no parents
        return
    fallback = data_dir() / "prefect-home"
    where = str(default) if default is not None else "~/.prefect (no home folder)"
    if _writable_folder(fallback, parents=True):
        os.environ["PREFECT_HOME"] = str(fallback)
        sys.stderr.write(
            f"note: {where} cannot be written; Prefect keeps its files in {fallback} (set PREFECT_HOME to choose)\n"
        )
    else:
        sys.stderr.write(
            f"warning: neither {where} nor {fallback} can be written: set PREFECT_HOME to a writable folder\n"
        )


def _writable_folder(path: Path, parents: bool) -> bool:
    try:
        path.mkdir(parents=parents, exist_ok=True)
        probe = path / f".rlauto-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return False
    return True


# The embedded default (Prefect's temporary server on SQLite) sized for a batch's default
# items in flight: a writer waits for SQLite's lock up to 60 s instead of the server answering
# 503 after 10 s, and the client tries a refused request 8 times, not 5 (issue 21: 200
# recordings offline ended in 503s for /api/task_runs/ after 137 items).
EPHEMERAL_SIZING = {
    "PREFECT_SERVER_DATABASE_TIMEOUT": "60",
    "PREFECT_SERVER_DATABASE_CONNECTION_TIMEOUT": "30",
    "PREFECT_CLIENT_MAX_RETRIES": "8",
}


def configure() -> str | None:
    """Point Prefect at the local stack when it runs; returns the API URL used (None: ephemeral,
    then sized by `EPHEMERAL_SIZING` unless the environment says otherwise)."""
    ensure_prefect_home()
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # the ephemeral server needs 8-16 s to start on a small machine; Prefect's default gives up at 20 s
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    stack = local_stack()
    if stack is not None:
        os.environ["PREFECT_API_URL"] = str(stack["api_url"])
        return str(stack["api_url"])
    for name, value in EPHEMERAL_SIZING.items():
        os.environ.setdefault(name, value)
    return None


def ui_url_for(flow_run_id: str | None) -> str | None:
    api = os.environ.get("PREFECT_API_URL")
    if not api or not flow_run_id:
        return None
    ui = os.environ.get("PREFECT_UI_URL") or api.removesuffix("/api")
    return f"{ui}/runs/flow-run/{flow_run_id}"


def ship_logs(timeout_s: float = 5.0) -> None:
    """Send the run logs this process still holds to the Prefect API now, while its server runs.

    Prefect's shipper sends them on a 2 s timer and once more at exit; a process that exits after
    its server stopped (`rlauto down`, a test's server, a script's) had its last lines still
    held and printed "--- Error logging to API ---" on the way out. Called where a process is
    done running flows (the CLI's exit, `flows.sdk.run_plan`, a run started in the dashboard's
    process). With no server to reach the lines are dropped without a word: their runs' states
    are on the server already, or nowhere."""
    handlers = sys.modules.get("prefect.logging.handlers")
    if handlers is None or getattr(handlers.APILogWorker, "_instances", True) == {}:
        return  # this process holds no shipper (none started, or it was drained already)
    quiet = contextlib.nullcontext() if _api_reachable() else contextlib.redirect_stderr(io.StringIO())
    with quiet:
        handlers.APILogWorker.drain_all(timeout=timeout_s)


def _api_reachable() -> bool:
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value()
    if not url:
        return True  # the temporary server lives until this process ends
    import httpx

    try:
        return httpx.get(f"{url.rstrip('/')}/health", timeout=2.0).status_code < 500
    except httpx.HTTPError:
        return False
