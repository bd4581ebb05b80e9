"""The `export-dataset` deployment of prefect.yaml, deployed to the session's Prefect server and
run by a real process worker: the same export as the CLI, its summary as an artifact; bad input
fails the run with the export's one-line message."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
from prefect.deployments import run_deployment

from tests.conftest import REPO_ROOT
from tests.dataset.conftest import MAIN, Store
from tests.dataset.helpers import parquet_rows
from tests.servers import deploy_on_new_pool, stop_process

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


def test_the_entry_runs_the_flow_on_pool_rlauto() -> None:
    deployments = yaml.safe_load((REPO_ROOT / "prefect.yaml").read_text())["deployments"]
    entry = next(d for d in deployments if d["name"] == "export-dataset")
    assert entry["entrypoint"] == "flows/dataset.py:export_dataset"
    assert entry["work_pool"]["name"] == "rlauto"
    assert "-n export-dataset" in (REPO_ROOT / "infra" / "deploy.sh").read_text()  # `rlauto up` deploys it


@pytest.fixture
def worker(prefect_api_url: str, store: Store, tmp_path: Path) -> Iterator[str]:
    """The deployment from prefect.yaml on a pool of this test's own (other tests' workers serve
    `rlauto` on the same server), and one process worker on it; the worker's storage is `store`."""
    pool = f"dataset-{uuid.uuid4().hex[:6]}"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "RLAUTO_STORAGE_URL": store.storage.url}
    prefect = [sys.executable, "-m", "prefect"]
    deploy_on_new_pool(pool, ["export-dataset"], env)
    log = (tmp_path / "worker.log").open("wb")
    proc = subprocess.Popen(
        [*prefect, "worker", "start", "--pool", pool, "--name", pool],
        cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        yield pool
    finally:
        stop_process(proc)
        log.close()


def test_the_deployment_exports_beside_the_packages(worker: str, store: Store) -> None:
    run = run_deployment(
        "export-dataset/export-dataset", parameters={"job_id": MAIN, "min_score": 12}, timeout=300, poll_interval=1
    )
    assert run.state is not None and run.state.is_completed(), run.state
    out = store.root / "datasets" / f"{MAIN}-parquet"  # the default: under the storage, beside the packages
    rows = parquet_rows(out)
    assert rows and {r["job_id"] for r in rows} == {MAIN} and {r["total_score"] for r in rows} == {12}
    assert "- min score: 12" in (out / "README.md").read_text()
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id]))
        )
    pages = [a for a in artifacts if a.key == "dataset-export"]
    assert len(pages) == 1 and f"# Dataset: {len(rows)} rows" in str(pages[0].data)

    bad = run_deployment(
        "export-dataset/export-dataset", parameters={"job_id": "job-nope"}, timeout=300, poll_interval=1
    )
    assert bad.state is not None and bad.state.is_failed()
    assert "no such job in the index" in str(bad.state.message)
