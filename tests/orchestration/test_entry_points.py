"""The ways in, each in a process of its own as a user would start it: the SDK in a notebook with
nothing started (Prefect's ephemeral mode), the README's main job, and `rlauto up` / `status` /
`down` with the local stack it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from tests.conftest import CAPTURES, EXAMPLES, REPO_ROOT
from tests.servers import free_port, wait_http

# these start Prefect (the session server or an ephemeral one) or whole stacks: the slow tier
pytestmark = pytest.mark.slow

RLAUTO = [sys.executable, "-m", "flows.cli"]


def clean_env(tmp_path: Path) -> dict[str, str]:
    """No Prefect server, no model key, data and storage under `tmp_path`."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PREFECT_", "DEFAULT_", "ANALYZER_", "JUDGE_", "RLAUTO_"))
    }
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "RLAUTO_DATA_DIR": str(tmp_path / "data"),
        "RLAUTO_STORAGE_URL": (tmp_path / "store").as_uri(),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    return env


def test_sdk_in_a_notebook_with_nothing_started(tmp_path: Path) -> None:
    """`from flows import package_recording, package_batch` with no server and no key: Prefect
    starts its ephemeral API; both return typed results; the sync helper does too."""
    script = textwrap.dedent(
        f"""
        import asyncio, json
        from flows import package_batch, package_recording
        from flows.sdk import run_batch
        from rlauto_core.pipeline import BatchOutcome, ItemOutcome

        one = asyncio.run(package_recording({str(EXAMPLES / "issue_tracker.zip")!r}))
        batch = asyncio.run(package_batch([{str(EXAMPLES / "discord_reply.zip")!r}, {str(CAPTURES / "project_board.har")!r}]))
        again = run_batch([{str(EXAMPLES / "discord_reply.zip")!r}, {str(CAPTURES / "project_board.har")!r}])
        print(json.dumps({{
            "one": [type(one).__name__, isinstance(one, ItemOutcome), one.status, one.verdict, one.output_zip_path],
            "batch": [type(batch).__name__, isinstance(batch, BatchOutcome), [i.status for i in batch.items]],
            "again": [batch.job_id == again.job_id, [i.reused for i in again.items]],
            "storage": batch.storage_url,
        }}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, env=clean_env(tmp_path), capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["one"][:4] == ["ItemOutcome", True, "completed", "PASS"] and out["one"][4].endswith("output.zip")
    assert out["batch"] == ["BatchOutcome", True, ["completed", "completed"]]
    assert out["again"] == [True, [True, True]]  # the same job, both items reused
    assert out["storage"] == (tmp_path / "store").as_uri()
    assert (tmp_path / "store" / "index").is_dir()


def test_readme_main_job_on_the_embedded_default(tmp_path: Path) -> None:
    """The README's first command, minus the install: every example packaged by the offline
    analyzer through ephemeral Prefect, and where to find packages, index and UI printed."""
    # run from a folder of the test's own: the packages land in ./task-packages/ as for a user
    done = subprocess.run(
        [*RLAUTO, "package", str(EXAMPLES)], cwd=tmp_path, env=clean_env(tmp_path), capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("analyzer: offline"), done.stdout[:300]
    assert done.stdout.count("PASS") >= 7
    for where in ("packages", "index"):
        assert f"{where}:" in done.stdout.lower(), done.stdout[-1500:]
    assert len(list((tmp_path / "store" / "exports").glob("*/*/output.zip"))) == 7
    assert len(list((tmp_path / "task-packages").glob("*.task-package.zip"))) == 7


@pytest.fixture
def stack_env(tmp_path: Path) -> dict[str, str]:
    return clean_env(tmp_path)


def test_up_package_status_down(tmp_path: Path, stack_env: dict[str, str]) -> None:
    """`rlauto up` starts a server (with the flows deployed), a worker on pool `rlauto` and the
    dashboard; `rlauto package` then runs on that server; `rlauto status` lists the job;
    a second `up` is refused; `rlauto down` stops every process it started."""
    port, dashboard_port = free_port(), free_port()
    up = subprocess.run(
        [*RLAUTO, "up", "--port", str(port), "--dashboard-port", str(dashboard_port)],
        cwd=REPO_ROOT, env=stack_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    stack_file = tmp_path / "data" / "stack" / "stack.json"
    try:
        assert up.returncode == 0, (up.stdout + up.stderr)[-3000:]
        stack = json.loads(stack_file.read_text())
        api = f"http://127.0.0.1:{port}/api"
        assert stack["api_url"] == api and f"http://127.0.0.1:{port}" in up.stdout
        assert httpx.get(f"{api}/health", timeout=5).status_code == 200
        deployments = httpx.post(f"{api}/deployments/filter", json={}, timeout=10).json()
        assert {"package-recording", "package-batch", "scan-inbox"} <= {d["name"] for d in deployments}
        wait_http(f"http://127.0.0.1:{dashboard_port}/", timeout=120)

        workers: list[dict[str, object]] = []
        for _ in range(60):  # the worker registers with its first heartbeat
            workers = httpx.post(f"{api}/work_pools/rlauto/workers/filter", json={}, timeout=10).json()
            if any(w.get("status") == "ONLINE" for w in workers):
                break
            subprocess.run(["sleep", "1"], check=True)
        assert any(w.get("status") == "ONLINE" for w in workers), workers

        again = subprocess.run(
            [*RLAUTO, "up", "--port", str(free_port())], cwd=REPO_ROOT, env=stack_env, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
        assert again.returncode != 0 and "already up" in again.stderr

        package = subprocess.run(
            [*RLAUTO, "package", str(EXAMPLES / "shop_checkout.zip"), "--json", "--out", str(tmp_path / "out")],
            cwd=REPO_ROOT, env=stack_env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert package.returncode == 0, package.stderr[-3000:]
        [item] = json.loads(package.stdout)
        assert item["status"] == "completed"
        runs = httpx.post(f"{api}/flow_runs/filter", json={}, timeout=10).json()
        names = {r["name"] for r in runs}
        assert "shop_checkout.zip" in names, names  # the run went to the stack's server, not an ephemeral one
        job = item["job_id"]
        status = subprocess.run(
            [*RLAUTO, "status", job], cwd=REPO_ROOT, env={**stack_env, "COLUMNS": "200"}, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        assert status.returncode == 0, status.stderr[-2000:]
        assert "shop_checkout.zip" in status.stdout and "completed" in status.stdout
    finally:
        down = subprocess.run(
            [*RLAUTO, "down"], cwd=REPO_ROOT, env=stack_env, capture_output=True, text=True, timeout=120
        )
    assert down.returncode == 0 and "stopped" in down.stdout
    assert not stack_file.exists()
    for pid in stack["pids"]:
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid), 0)
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
