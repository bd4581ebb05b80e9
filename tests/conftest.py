"""Session-wide real servers. Fixtures of one area live in that area's conftest."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import prefect_env
from tests.servers import prefect_server as _prefect_server

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples" / "recordings"
# bare captures with no task.json: not part of the main job (they have no recorded instruction)
CAPTURES = REPO_ROOT / "examples" / "captures"
DATA = REPO_ROOT / "tests" / "data"  # files real tools wrote (tests/data/SOURCES.md)


@pytest.fixture(scope="session")
def prefect_api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One Prefect server (SQLite) per test session; this process's client points at it."""
    home = tmp_path_factory.mktemp("prefect-home")
    with _prefect_server(home) as api_url:
        saved = {k: os.environ.get(k) for k in prefect_env(api_url, home)}
        os.environ.update(prefect_env(api_url, home))
        # Prefect caches settings at import; the env covers subprocesses, this covers us.
        from prefect.settings import PREFECT_API_URL, PREFECT_HOME, temporary_settings

        try:
            with temporary_settings(updates={PREFECT_API_URL: api_url, PREFECT_HOME: str(home)}):
                yield api_url
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
