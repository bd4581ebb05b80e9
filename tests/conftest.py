"""Session-wide real servers. Fixtures of one area live in that area's conftest."""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from flows import runtime
from flows.runtime import EPHEMERAL_SIZING
from tests.servers import prefect_env, worker_index
from tests.servers import prefect_server as _prefect_server

# Python's default, even where PYTHONDONTWRITEBYTECODE is set (as on the development machine):
# without it every xdist worker compiled the checkout's modules and pytest rewrote and compiled
# every test module again on every run, about 7 of the 11 CPU seconds a worker spent collecting
# (docs/operations.md §8). The caches go to __pycache__ (ignored by git); the Python processes the
# tests start read them (they inherit the variable, so they write none of their own).
sys.dont_write_bytecode = False

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples" / "recordings"
# bare captures with no task.json: not part of the main job (they have no recorded instruction)
CAPTURES = REPO_ROOT / "examples" / "captures"
DATA = REPO_ROOT / "tests" / "data"  # files real tools wrote (tests/data/SOURCES.md)

# fixtures several folders use, registered once for the whole tree (tests/fixtures/__init__.py),
# and the order and groups of the tests for xdist's workers (docs/operations.md §8)
pytest_plugins = ["tests.fixtures.s3", "tests.fixtures.models", "tests.fixtures.adb", "tests.xdist_groups"]


@pytest.fixture(scope="session")
def prefect_api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Prefect server (SQLite) per test process; this process's client points at it.

    Under xdist each worker has its own: tests that cancel "the batch being judged", change the
    global model limit or count runs by name must see only their own process's runs, as in a
    run without workers. Its database starts as a copy of one the first worker's server migrated.
    """
    home = tmp_path_factory.mktemp("prefect-home")
    # the folder every worker's base temp lives in: this run's, shared by its workers
    template = tmp_path_factory.getbasetemp().parent / "prefect-migrated.db" if worker_index() else None
    with _prefect_server(home, sqlite_template=template) as api_url:
        saved = {k: os.environ.get(k) for k in prefect_env(api_url, home)}
        os.environ.update(prefect_env(api_url, home))
        # Prefect reads its settings at import: the environment covers subprocesses, the refresh
        # the threads that never entered a Prefect context (the fake servers' handlers, which
        # otherwise started an ephemeral server of their own on this server's database file), and
        # temporary_settings this thread.
        from prefect.context import refresh_global_settings_context
        from prefect.settings import PREFECT_API_URL, PREFECT_HOME, temporary_settings

        refresh_global_settings_context()
        try:
            with temporary_settings(updates={PREFECT_API_URL: api_url, PREFECT_HOME: str(home)}):
                yield api_url
                # the run logs this process still holds go before the server stops, not to a
                # stopped server at exit ("--- Error logging to API ---" after the last test)
                runtime.ship_logs()
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            refresh_global_settings_context()


@pytest.fixture(scope="session", autouse=True)
def _streamlit_components_scanned_once() -> Iterator[None]:
    """Streamlit's AppTest scans every installed distribution's metadata for v2 components on each
    new AppTest (0.3-0.6 CPU s each, over a hundred AppTests in the fast tier); a served app scans
    once per process. The installed packages do not change during a run: scanned once per worker
    (when the first AppTest asks), each AppTest still registering what was found."""
    if "streamlit" not in sys.modules:  # collected no test module that imports it: nothing to do
        yield
        return
    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(manifest_scanner, "scan_component_manifests", lambda max_workers=None: list(scan()))
        yield


# What the CLI sets for its own process (`rlauto package` quiets Prefect's console, `LOG_LEVEL`
# hands its level to Prefect's loggers and environment): run in a test's process through the
# CLI's app, it would stay for every later test of that worker and every process they start. A
# worker's flow-run output went silent that way, two tests later; and with the test server's
# PREFECT_LOGGING_LEVEL=WARNING in this process's environment, an in-process `rlauto ...` set the
# `prefect` logger to WARNING, so a later in-process flow run's INFO lines never reached the API.
# (`flows.runtime.configure` also sizes the embedded server when no API is set: kept for the
# process, it would change a later test's client retries.)
_CLI_PROCESS_ENV = (
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL",
    "PREFECT_LOGGING_LEVEL",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS",
    *EPHEMERAL_SIZING,
)


def _logging_levels() -> tuple[dict[str, int], dict[logging.Handler, int]]:
    loggers = [
        logging.getLogger(),
        *(v for v in logging.Logger.manager.loggerDict.values() if isinstance(v, logging.Logger)),
    ]
    handlers = {h: h.level for logger in loggers for h in logger.handlers}
    return {logger.name: logger.level for logger in loggers}, handlers


@pytest.fixture(autouse=True)
def _cli_process_env_restored() -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in _CLI_PROCESS_ENV}
    logger_levels, handler_levels = _logging_levels()
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    for name, level in logger_levels.items():
        logger = logging.getLogger(name if name != "root" else None)
        if logger.level != level:
            logger.setLevel(level)
    for handler, level in handler_levels.items():
        if handler.level != level:
            handler.setLevel(level)
