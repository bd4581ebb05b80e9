"""Scale-out on real parts: a Prefect server on the machine's PostgreSQL (a fresh database per run),
the deployments of prefect.yaml, two process workers on pool `rlauto`, the fake model server."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowFilter, FlowFilterName
from prefect.client.schemas.objects import StateType
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.states import Pending

from rlauto_core.config.options import RunOptions
from rlauto_core.store import layout
from rlauto_core.store.storage import open_storage
from tests.conftest import REPO_ROOT
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest
from tests.orchestration.backend import leftover_temp_files
from tests.orchestration.conftest import model_env
from tests.orchestration.recordings import marker, write_variants
from tests.servers import prefect_api_at, prefect_env, prefect_server, stop_process

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

PG = ["-h", "127.0.0.1", "-U", "postgres"]
SNAPSHOTS = ("evidence", "task-package", "judge-result", "iteration-memory")


@dataclass
class Cluster:
    api_url: str
    storage_url: str
    fake: FakeLlmServer
    env: dict[str, str]
    workers: dict[str, subprocess.Popen[bytes]]
    logs: Path

    def start_worker(self, name: str, extra_env: dict[str, str] | None = None) -> None:
        log = (self.logs / f"{name}.log").open("ab")
        self.workers[name] = subprocess.Popen(
            # a limit per worker: with the batch's 8 children neither worker can take them all
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", "rlauto", "--name", name, "--limit", "3"],
            cwd=REPO_ROOT, env={**self.env, **(extra_env or {})}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

    def restart_workers(self, extra_env: dict[str, str] | None = None) -> None:
        for name in list(self.workers):
            stop_process(self.workers[name])
            self.start_worker(name, extra_env)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    database = f"rlauto_test_{uuid.uuid4().hex[:10]}"
    subprocess.run(["createdb", *PG, database], check=True)
    home = tmp_path_factory.mktemp("pg-prefect")
    storage_url = (tmp_path_factory.mktemp("cluster-store")).as_uri()
    url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database}"
    cluster: Cluster | None = None
    try:
        with FakeLlmServer() as fake, prefect_server(home, database_url=url) as api_url:
            env = {
                **os.environ,
                **prefect_env(api_url, home),
                **model_env(fake),
                "RLAUTO_STORAGE_URL": storage_url,
                "PREFECT_FLOWS_HEARTBEAT_FREQUENCY": "30",
                "RLAUTO_CRASH_AFTER_SECONDS": "45",
                "RLAUTO_CRASH_PENDING_AFTER_SECONDS": "60",
                "PYTHONPATH": str(REPO_ROOT),
                "RLAUTO_PYTHON": sys.executable,  # the interpreter deploy.sh runs, as `rlauto up` passes it
            }
            deploy = subprocess.run(
                [str(REPO_ROOT / "infra" / "deploy.sh")], cwd=REPO_ROOT, env=env, capture_output=True, text=True
            )
            assert deploy.returncode == 0, deploy.stderr[-2000:]
            cluster = Cluster(api_url, storage_url, fake, env, {}, home)
            for name in ("worker-a", "worker-b"):
                cluster.start_worker(name)
            # the fake model's handler threads query this server too: they read the environment
            saved = os.environ.get("PREFECT_API_URL")
            os.environ["PREFECT_API_URL"] = api_url
            try:
                with prefect_api_at(api_url):
                    yield cluster
            finally:
                if saved is None:
                    os.environ.pop("PREFECT_API_URL", None)
                else:
                    os.environ["PREFECT_API_URL"] = saved
    finally:
        if cluster is not None:
            for proc in cluster.workers.values():
                stop_process(proc)
        subprocess.run(["dropdb", *PG, "--if-exists", "--force", database], check=False)


def job_runs(job: str) -> list[Any]:
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])))
    return [r for r in runs if r.parameters.get("job_id") == job]


def run_batch_via_deployment(cluster: Cluster, files: list[Path], job: str, timeout: float = 400) -> Any:
    """Start the package-batch deployment (children go to the workers) and wait for it to end."""
    from prefect.deployments import run_deployment

    flow_run = run_deployment(
        "package-batch/package-batch",
        parameters={
            "sources": [str(p) for p in files],
            "concurrency": 8,
            "job_id": job,
            "storage_url": cluster.storage_url,
        },
        timeout=timeout,
        poll_interval=2,
    )
    assert flow_run.state.is_final(), (
        f"batch still {flow_run.state.name} after {timeout}s\n{_cluster_story(cluster, job)}"
    )
    return flow_run


def _cluster_story(cluster: Cluster, job: str) -> str:
    """What a stuck batch left to read: its items' states and workers, and the workers' last lines
    (a CI run once waited 400 s on a batch after a worker was killed, with nothing to go on)."""
    runs = [f"{r.name}: {r.state_name} on {r.labels.get('prefect.worker.name')}" for r in job_runs(job)]
    tails = []
    for name in cluster.workers:
        log = cluster.logs / f"{name}.log"
        lines = log.read_text(errors="replace").splitlines()[-25:] if log.exists() else []
        tails.append(f"--- {name} ({len(lines)} last lines)\n" + "\n".join(lines))
    return "\n".join(["item runs:", *runs, *tails])


# Each item is its own worker subprocess (a fresh Python with Prefect imported, 5-8 CPU seconds).
# With 20 this test passed in 290 s on the shared, loaded 2-core machine (00:24 UTC, 2026-11-30);
# the suite runs 6, two workers' limits of 3 (so both must take part), to stay within its time
# budget. Set 20 to check the figure.
SCALE_OUT_RECORDINGS = 6


def test_two_workers_package_recordings_each_exactly_once(cluster: Cluster, tmp_path: Path) -> None:
    """Recordings through the deployment on two workers: each recording's model calls happen
    exactly once, every snapshot and package is stored, both workers took part."""
    count = SCALE_OUT_RECORDINGS
    files = write_variants(tmp_path / "in", count)
    cluster.fake.reset()
    cluster.fake.script("analyzer", faithful_analyzer())
    cluster.fake.script("judge", judge_answer())
    batch_run = run_batch_via_deployment(cluster, files, "scale")
    assert batch_run.state.type is StateType.COMPLETED, batch_run.state.message

    prompts = [r.prompt_text() for r in cluster.fake.requests("analyzer")]
    assert [sum(marker(n) in p for p in prompts) for n in range(count)] == [1] * count
    assert cluster.fake.calls("judge") == count

    runs = job_runs("scale")
    assert sorted(r.name for r in runs) == sorted(p.name for p in files)
    assert all(r.state.type is StateType.COMPLETED for r in runs)
    storage = open_storage(cluster.storage_url)
    folders = storage.glob("exports/scale/*/item.json")
    assert len(folders) == count
    for path in folders:
        folder = path.rsplit("/", 1)[0]
        files_here = set(storage.list(folder))
        assert {f"{folder}/{s}-iter-1.json" for s in SNAPSHOTS} <= files_here
        assert f"{folder}/output.zip" in files_here
    assert storage.exists(layout.all_results_path("scale"))
    assert {r.labels.get("prefect.worker.name") for r in runs} == {"worker-a", "worker-b"}


def _worker_running(
    cluster: Cluster, flow_run_name: str, job: str, notes: dict[str, Any]
) -> tuple[str, psutil.Process] | None:
    """The worker whose subprocess runs `flow_run_name` (found by the run id in its environment)."""
    # this runs on the fake model's handler thread: name the server explicitly
    with temporary_settings(updates={PREFECT_API_URL: cluster.api_url}):
        runs = job_runs(job)
    ids = {str(r.id) for r in runs if r.name == flow_run_name}
    notes["runs"] = [(r.name, r.state.name if r.state else None) for r in runs]
    for name, proc in cluster.workers.items():
        worker = psutil.Process(proc.pid)
        for child in worker.children(recursive=True):
            try:
                run_id = child.environ().get("PREFECT__FLOW_RUN_ID")
            except psutil.Error as exc:
                notes.setdefault("errors", []).append(repr(exc))
                continue
            notes.setdefault("children", []).append((name, child.pid, run_id))
            if run_id in ids:
                return name, worker
    return None


@flow(name="left-pending")
def _left_pending() -> None:
    """Never runs: the run a killed worker had taken (Pending) but not started."""


def _a_run_left_pending() -> Any:
    with get_client(sync_client=True) as client:
        run = client.create_flow_run(_left_pending, name="taken-then-orphaned")
        assert client.set_flow_run_state(run.id, Pending()).state.type is StateType.PENDING
    return run.id


def test_killed_worker_resumes_without_repaying_model_calls(cluster: Cluster, tmp_path: Path) -> None:
    """kill -9 of the worker running an item in its second iteration: the item shows Crashed, no
    output.zip is left half-written; after a restart and a re-run it completes, and the model
    calls of its completed first iteration are not paid again. A run such a worker had taken but
    not started (Pending, no heartbeat ever) is marked Crashed too, so nothing waits on it for
    ever (RLAUTO_CRASH_PENDING_AFTER_SECONDS, 60 s here)."""
    orphan = _a_run_left_pending()
    files = write_variants(tmp_path / "in", 3, start=40)
    target = "rec-41.zip"
    killed: dict[str, Any] = {}
    seen: dict[str, Any] = {}
    judged: Counter[str] = Counter()

    def judge(request: RecordedRequest) -> dict[str, Any]:
        text = request.prompt_text()
        which = next((f"rec-{n}.zip" for n in range(40, 43) if marker(n) in text), "?")
        judged[which] += 1
        if judged[which] == 1:
            return judge_answer(INSTRUCTION_CLARITY=1, RUBRIC_COVERAGE=1, TASK_COMPLEXITY=1)  # 9: one more round
        if which == target and not killed:
            found = _worker_running(cluster, target, "crash", seen)
            if found is not None:
                name, worker = found
                for proc in [worker, *worker.children(recursive=True)]:
                    proc.send_signal(signal.SIGKILL)
                killed["worker"] = name
                killed["calls"] = [(r.role, r.prompt_text()) for r in cluster.fake.requests()
                                   if marker(41) in r.prompt_text()]  # fmt: skip
                time.sleep(1)
        return judge_answer()

    cluster.fake.reset()
    cluster.fake.script("analyzer", faithful_analyzer())
    cluster.fake.script("judge", judge)
    first = run_batch_via_deployment(cluster, files, "crash")
    assert killed, f"the target item's worker was not killed: {seen}"
    assert first.state.is_final()
    # the automation marks each silent run on its own: the batch (on the same worker) may be
    # marked before the item, so wait for the item's turn
    deadline = time.monotonic() + 180
    while (states := [r.state.type for r in job_runs("crash") if r.name == target]) != [StateType.CRASHED]:
        if time.monotonic() > deadline:
            break
        time.sleep(2)
    assert states == [StateType.CRASHED]
    storage = open_storage(cluster.storage_url)
    target_item = layout.item_id(hashlib.sha256(files[1].read_bytes()).hexdigest(), RunOptions().options_hash())
    assert not storage.exists(layout.output_zip_path("crash", target_item))  # the crashed item has none
    assert leftover_temp_files(storage, "exports/crash") == []  # nothing half-written (list() hides .tmp)

    cluster.start_worker(str(killed["worker"]))
    second = run_batch_via_deployment(cluster, files, "crash")
    assert second.state.type is StateType.COMPLETED, second.state.message
    after = [(r.role, r.prompt_text()) for r in cluster.fake.requests() if marker(41) in r.prompt_text()]
    # the calls made before the kill are answered from the cache; only the judge call that was in
    # flight when the worker died is sent again
    before = killed["calls"]
    assert after[: len(before)] == before
    assert [role for role, _ in after[len(before) :]] == ["judge"]
    assert sorted(r.state.type.value for r in job_runs("crash") if r.name == target) == ["COMPLETED", "CRASHED"]
    assert len(storage.glob("exports/crash/*/output.zip")) == 3

    deadline = time.monotonic() + 120  # the test took longer than the 60 s window: usually no wait
    with get_client(sync_client=True) as client:
        while (left := client.read_flow_run(orphan)).state_type is StateType.PENDING and time.monotonic() < deadline:
            time.sleep(2)
    assert left.state_type is StateType.CRASHED and "the worker that took it is gone" in str(left.state.message)


def test_the_global_model_limit_holds_across_two_workers(cluster: Cluster, tmp_path: Path) -> None:
    """GLOBAL_LLM_CONCURRENCY=2 on both workers, a batch of 4 at concurrency 8, each model call
    slow: the fake model server never has more than 2 calls in flight (a limit per process would
    let each worker's flow runs call at once: up to 4), and it does reach 2 (the calls overlapped)."""
    latency = {"delay": 2.0}
    analyzer, judge = faithful_analyzer(), judge_answer()
    cluster.restart_workers({"GLOBAL_LLM_CONCURRENCY": "2"})
    try:
        files = write_variants(tmp_path / "in", 4, start=120)
        cluster.fake.reset()
        cluster.fake.script("analyzer", lambda request: {**analyzer(request), **latency})
        cluster.fake.script("judge", {**judge, **latency})
        batch_run = run_batch_via_deployment(cluster, files, "limited", timeout=600)
        assert batch_run.state.type is StateType.COMPLETED, batch_run.state.message
        assert cluster.fake.calls("analyzer") == 4 and cluster.fake.calls("judge") == 4
        assert cluster.fake.max_in_flight() == 2
        assert {r.labels.get("prefect.worker.name") for r in job_runs("limited")} == {"worker-a", "worker-b"}
    finally:
        cluster.restart_workers()
