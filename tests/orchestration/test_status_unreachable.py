"""`rlauto status JOB` when Prefect's API does not answer (the stack is down, a wrong URL): the
finished items are still shown from storage with a note saying what could not be read; with
nothing in storage, one line naming the API; never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rlauto_core.pipeline import ItemOutcome
from rlauto_core.store import layout
from rlauto_core.store.storage import open_storage
from tests.conftest import REPO_ROOT
from tests.orchestration.test_entry_points import clean_env
from tests.servers import free_port


def _status(tmp_path: Path, job: str, api: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(tmp_path) | {"PREFECT_API_URL": api, "PREFECT_CLIENT_MAX_RETRIES": "0", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "flows.cli", "status", job], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=180)  # fmt: skip


@pytest.mark.slow  # two `rlauto status` processes, each importing Prefect: 7-8 s
def test_status_with_prefect_down_shows_storage_and_says_what_is_missing(tmp_path: Path) -> None:
    api = f"http://127.0.0.1:{free_port()}/api"  # nothing listens there
    storage = open_storage((tmp_path / "store").as_uri())
    item = ItemOutcome(job_id="job-down", item_id="item-1", source_name="shop.zip", source="shop.zip",
                       status="completed", verdict="PASS", total_score=12)  # fmt: skip
    storage.write_bytes(f"{layout.export_dir('job-down', 'item-1')}/item.json", item.model_dump_json().encode())

    shown = _status(tmp_path, "job-down", api)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "shop.zip" in shown.stdout and "completed" in shown.stdout and "12/12" in shown.stdout
    assert "Traceback" not in shown.stderr
    assert shown.stderr.startswith(f"note: the Prefect API at {api} did not answer")
    assert "items still running are not shown" in shown.stderr

    missing = _status(tmp_path, "job-none", api)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.startswith("error: job job-none: no item found in storage; the Prefect API at ")
    assert missing.stderr.count("\n") == 1
