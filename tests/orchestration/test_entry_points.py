"""The ways in, each in a process of its own as a user would start it: the SDK in a notebook with
nothing started (Prefect's ephemeral mode), the README's main job, and `rlauto up` / `status` /
`down` with the local stack it starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.conftest import EXAMPLES, REPO_ROOT
from tests.servers import free_port

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
        batch = asyncio.run(package_batch([{str(EXAMPLES / "discord_reply.zip")!r}, {str(EXAMPLES / "project_board_firefox.zip")!r}]))
        again = run_batch([{str(EXAMPLES / "discord_reply.zip")!r}, {str(EXAMPLES / "project_board_firefox.zip")!r}])
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
    analyzer through ephemeral Prefect, and where to find packages, index and UI printed. HOME
    points nowhere (a container's user): the job still runs (it timed out after 20-120 s before,
    with only warnings about ~/.prefect) and Prefect's files go under the data folder."""
    env = {k: v for k, v in clean_env(tmp_path).items() if k != "PREFECT_HOME"}
    env["HOME"] = str(tmp_path / "no-such-home")
    # run from a folder of the test's own: the packages land in ./task-packages/ as for a user
    done = subprocess.run(
        [*RLAUTO, "package", str(EXAMPLES)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "data" / "prefect-home").is_dir()
    assert not os.path.exists(tmp_path / "no-such-home")
    assert done.stdout.startswith("analyzer: offline"), done.stdout[:300]
    assert done.stdout.count("PASS") >= 6
    for where in ("packages", "index"):
        assert f"{where}:" in done.stdout.lower(), done.stdout[-1500:]
    assert len(list((tmp_path / "store" / "exports").glob("*/*/output.zip"))) == 6
    assert len(list((tmp_path / "task-packages").glob("*.task-package.zip"))) == 6


@pytest.fixture
def stack_env(tmp_path: Path) -> dict[str, str]:
    # no virtual environment on PATH, as for a user who never activated one: everything the
    # stack starts must run on the interpreter `rlauto` runs on, not on `python` from PATH
    return clean_env(tmp_path) | {"PATH": "/usr/bin:/bin"}


CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip


def ui_shows_run(ui_url: str, run_name: str) -> list[str]:
    """Open the Prefect UI's runs page in headless Chromium, wait until `run_name` shows; the
    addresses of every API call the page made."""
    from playwright.sync_api import sync_playwright

    calls: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("request", lambda request: calls.append(request.url) if "/api/" in request.url else None)
            page.goto(f"{ui_url}/runs", wait_until="domcontentloaded", timeout=120_000)
            page.get_by_text(run_name).first.wait_for(timeout=120_000)
            assert "Can't connect to Server API" not in page.content()
        finally:
            browser.close()
    return calls


def ended(pid: int, create_time: float) -> bool:
    """The process we started is gone or a zombie (ended; its exit status not read yet)."""
    try:
        proc = psutil.Process(pid)
        return proc.create_time() != create_time or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def run_stack_job(tmp_path: Path, env: dict[str, str], port: int) -> tuple[dict[str, object], str]:
    """With the stack up: `rlauto package` one recording (it must run on the stack's server),
    then `rlauto status` its job; the item."""
    api = f"http://127.0.0.1:{port}/api"
    package = subprocess.run(
        [*RLAUTO, "package", str(EXAMPLES / "shop_checkout.zip"), "--json", "--out", str(tmp_path / "out")],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert package.returncode == 0, package.stderr[-3000:]
    [item] = json.loads(package.stdout)
    assert item["status"] == "completed"
    runs = httpx.post(f"{api}/flow_runs/filter", json={}, timeout=10).json()
    names = {r["name"] for r in runs}
    assert "shop_checkout.zip" in names, names  # the run went to the stack's server, not an ephemeral one
    job = str(item["job_id"])
    status = subprocess.run(
        [*RLAUTO, "status", job], cwd=REPO_ROOT, env={**env, "COLUMNS": "200"}, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert status.returncode == 0, status.stderr[-2000:]
    assert "shop_checkout.zip" in status.stdout and "completed" in status.stdout
    return item, job


def stop_stack(env: dict[str, str], stack_file: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    stack = json.loads(stack_file.read_text()) if stack_file.exists() else {"processes": []}
    down = subprocess.run([*RLAUTO, "down"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=180)
    return down, stack


def assert_all_ended(down: subprocess.CompletedProcess[str], stack: dict[str, object], stack_file: Path) -> None:
    assert down.returncode == 0 and "local stack stopped" in down.stdout, down.stdout + down.stderr
    assert not stack_file.exists()
    processes = stack["processes"]
    assert isinstance(processes, list) and processes
    alive = [p["name"] for p in processes if not ended(int(p["pid"]), float(p["create_time"]))]
    assert alive == [], f"still running when rlauto down returned: {alive}; down said: {down.stdout}"


# `rlauto up` with the dashboard, the UI in Chromium, a job, `status`, a second `up` refused and
# `down`: tests/agent/test_readme_demo.py, on the README's own stack (with the phones worker).


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A throwaway database on the machine's PostgreSQL (127.0.0.1:5432, trust auth)."""
    name = f"rlauto_stack_{uuid.uuid4().hex[:10]}"
    pg = ["-h", "127.0.0.1", "-p", "5432", "-U", "postgres"]
    subprocess.run(["createdb", *pg, name], check=True, capture_output=True, timeout=60)
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        subprocess.run(["dropdb", *pg, "--force", "--if-exists", name], capture_output=True, timeout=60)


def psql(url: str, sql: str) -> list[str]:
    done = subprocess.run(["psql", url, "-tAc", sql], capture_output=True, text=True, timeout=60, check=True)
    return [line for line in done.stdout.splitlines() if line]


@pytest.mark.slow
def test_up_on_postgresql(tmp_path: Path, stack_env: dict[str, str], postgres_database: str) -> None:
    """`rlauto up --database-url postgresql://...`: the server keeps its deployments and runs in
    that database (read back with psql), the job runs, and down stops everything."""
    port = free_port()
    up = subprocess.run(
        [*RLAUTO, "up", "--port", str(port), "--no-dashboard", "--database-url", postgres_database],
        cwd=REPO_ROOT, env=stack_env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    stack_file = tmp_path / "data" / "stack" / "stack.json"
    try:
        assert up.returncode == 0, (up.stdout + up.stderr)[-3000:]
        assert f"Database:    {postgres_database}" in up.stdout
        assert {"package-recording", "package-batch", "scan-inbox"} <= set(
            psql(postgres_database, "select name from deployment")
        )
        run_stack_job(tmp_path, stack_env, port)
        assert "shop_checkout.zip" in psql(postgres_database, "select name from flow_run")
        assert not (tmp_path / "data" / "prefect" / "prefect.db").exists(), "the server used SQLite after all"
    finally:
        down, stack = stop_stack(stack_env, stack_file)
    assert_all_ended(down, stack, stack_file)
