"""Real servers started by the tests on loopback: helpers shared by the conftest fixtures."""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

# Ports for servers the tests start by number (`--port P`): below Linux's ephemeral range
# (32768-60999), so no outgoing connection takes one between free_port() and the server's bind,
# in a slice per xdist worker, so two workers never hand out the same one. The walk starts at a
# random place: test runs of other checkouts on the same machine use the same slices.
FIRST_PORT, PORTS_PER_WORKER, SLICES = 20000, 500, 25
_handed_out: set[int] = set()


def worker_index() -> int:
    """0 without xdist (and in its controller), N + 1 in worker gwN."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) + 1 if worker.startswith("gw") else 0


def free_port() -> int:
    """A loopback port nobody listens on, from this worker's slice, not handed out before here."""
    first = FIRST_PORT + (worker_index() % SLICES) * PORTS_PER_WORKER
    start = random.randrange(PORTS_PER_WORKER)
    for step in range(PORTS_PER_WORKER):
        port = first + (start + step) % PORTS_PER_WORKER
        if port not in _handed_out and _bindable(port):
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free loopback port in {first}-{first + PORTS_PER_WORKER - 1}")


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_http(url: str, timeout: float = 60.0, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server for {url} exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.HTTPError as exc:
            last = exc
        time.sleep(0.3)
    raise TimeoutError(f"{url} not healthy after {timeout}s: {last}")


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Stop a server started in a session of its own, and every process of that session.

    `prefect server start` runs uvicorn as a child; the leader may exit on SIGTERM while the
    child is still shutting down (or stuck in "Application shutdown failed"): such a child was
    left behind, serving and costing CPU for the rest of the suite. So the group is waited for
    too, and killed when it outlives the leader by `timeout`.
    """
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    if not _group_ended_within(proc.pid, timeout):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        _group_ended_within(proc.pid, 5.0)  # SIGKILL takes effect a moment after it is sent


def _group_ended_within(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _group_alive(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prefect_env(api_url: str, home: Path) -> dict[str, str]:
    """Environment for a process that talks to the test Prefect server."""
    return {
        "PREFECT_API_URL": api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_RESULTS_PERSIST_BY_DEFAULT": "true",
        # a worker takes a scheduled run at its next poll, every 10 s by default: tests that run
        # through a worker would wait that out in series, run after run
        "PREFECT_WORKER_QUERY_SECONDS": "1",
    }


@contextmanager
def prefect_api_at(api_url: str, **settings: object) -> Iterator[None]:
    """This process talks to `api_url` (with `settings`, Prefect setting objects by name) inside
    the block, and to the server it talked to before once the block ends.

    Prefect's event and log shippers are per-process singletons that bind the API URL in force
    when they first send: one started inside a block that points at a relay or a short-lived
    server would send every later test's task-run events there, and those task runs would never
    exist on the session's server (CI lost a leak scan's control run this way). Both are drained
    on the way in and on the way out, so each side starts its own."""
    import prefect.settings as prefect_settings
    from prefect.settings import temporary_settings

    updates = {prefect_settings.PREFECT_API_URL: api_url}
    updates.update({getattr(prefect_settings, name): value for name, value in settings.items()})
    drain_prefect_shippers()
    try:
        with temporary_settings(updates=updates):
            try:
                yield
            finally:
                drain_prefect_shippers()
    finally:
        # again once the settings are back: a shipper the block's last work started after the
        # drain above would otherwise outlive the block (a fault test failed 1 run in 3 without it)
        drain_prefect_shippers()


def drain_prefect_shippers(timeout: float = 10.0) -> None:
    """Send what Prefect's event and log shippers hold and stop them; the next event or log line
    starts a shipper bound to the API URL in force then."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for shipper in (EventsWorker, APILogWorker):
        shipper.drain_all(timeout=timeout, at_exit=False)


@contextmanager
def prefect_server(
    home: Path,
    database_url: str | None = None,
    extra_env: Mapping[str, str] | None = None,
    sqlite_template: Path | None = None,
) -> Iterator[str]:
    """Start `prefect server start` on a free loopback port; yield its API URL.

    Without `database_url` the server keeps a SQLite database in `home`. With `sqlite_template`
    (a path shared by the test processes of one run), that database starts as a copy of the
    template, which the first server to get there makes of its own once Prefect has migrated it:
    the migrations are half of a server's start (about 6 of 12 CPU seconds), paid once per run
    instead of once per xdist worker.
    """
    port = free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    env = {**os.environ, **prefect_env(api_url, home), **(extra_env or {})}
    env.pop("PREFECT_API_URL")  # the server itself must not point at itself
    database = home / "prefect.db"
    if database_url:
        env["PREFECT_API_DATABASE_CONNECTION_URL"] = database_url
    else:
        env["PREFECT_API_DATABASE_CONNECTION_URL"] = f"sqlite+aiosqlite:///{database}"
    home.mkdir(parents=True, exist_ok=True)
    log = (home / "server.log").open("wb")
    try:
        with seeded_from(None if database_url else sqlite_template, database) as save_template:
            proc = subprocess.Popen(
                [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                wait_http(f"{api_url}/health", timeout=300, proc=proc)
                save_template()
            except BaseException:
                stop_process(proc)
                raise
        try:
            yield api_url
        finally:
            stop_process(proc)
    finally:
        log.close()


@contextmanager
def seeded_from(template: Path | None, database: Path) -> Iterator[Callable[[], None]]:
    """Copy `template` to `database` when it exists; when it does not, hold its lock while the
    caller's server migrates `database`, and yield the call that saves that as the template."""
    if template is None:
        yield lambda: None
        return
    with template.with_name(template.name + ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if template.exists():
            shutil.copyfile(template, database)
            fcntl.flock(lock, fcntl.LOCK_UN)
            yield lambda: None
        else:
            yield lambda: _copy_live_sqlite(database, template)


def _copy_live_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of a database a running server writes to (SQLite's backup API)."""
    partial = target.with_name(target.name + ".partial")
    with contextlib.closing(sqlite3.connect(source)) as src, contextlib.closing(sqlite3.connect(partial)) as dst:
        src.backup(dst)
    partial.rename(target)


# Prefect's CLI run several times in one process: each `prefect ...` process costs 4-8 CPU
# seconds to start, and `prefect deploy --pool` names the pool of one deployment per call.
# `_app.meta` is what `prefect.cli.app()` calls with the arguments (prefect/cli/_app.py).
_DEPLOY_SCRIPT = """
import sys
from prefect.cli._app import _app, _normalize_top_level_flags

pool, *names = sys.argv[1:]
calls = [["work-pool", "create", pool, "--type", "process"]]
calls += [["--no-prompt", "deploy", "-n", name, "--pool", pool] for name in names]
for args in calls:
    try:
        _app.meta(_normalize_top_level_flags(args))
    except SystemExit as exit:
        if exit.code not in (0, None):
            raise SystemExit(f"prefect {' '.join(args)} exited with {exit.code}")
"""


def deploy_on_new_pool(pool: str, names: list[str], env: Mapping[str, str]) -> None:
    """Create the process work pool `pool` and deploy the prefect.yaml entries `names` on it,
    in one process, from the checkout (what `prefect work-pool create` and one `prefect deploy -n
    NAME --pool POOL` per name do)."""
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", _DEPLOY_SCRIPT, pool, *names], cwd=repo, env=dict(env),
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
