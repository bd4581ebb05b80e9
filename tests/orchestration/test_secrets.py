"""Secrets nowhere (issue 15, item 8): planted canaries (the analyzer's and the judge's keys, the
recording's Authorization and Cookie values) are searched for in everything the Prefect server
holds (flow runs and their parameters, task runs, logs, artifacts, events) and in storage. A
control run that logs a canary on purpose shows the same scan finds one in each channel.

A run's own analyzer key reaches workers only as the name of a Prefect Secret block; a raw key
for a batch that fans out to workers is refused with what to do instead."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import subprocess
import sys
import time
import uuid
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.blocks.system import Secret
from prefect.client.orchestration import get_client
from prefect.events import emit_event

from flows.launch import launch_batch
from flows.pipeline import package_batch
from rlauto_core.config import PACKAGE_RECORDING_DEPLOYMENT, RunOptions, Settings
from rlauto_core.errors import ConfigError
from rlauto_core.store.storage import open_storage
from tests.conftest import EXAMPLES, REPO_ROOT
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer
from tests.orchestration.leak_scan import CHANNELS, found_in, prefect_holdings, storage_holdings
from tests.servers import stop_process

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


@pytest.fixture(autouse=True)
def run_logs_at_info() -> Iterator[None]:
    """Every INFO line of a run reaches the API, so the scan reads what a deployment's runs
    would log: an earlier test in this process may have left Prefect's loggers at WARNING (the
    CLI applies LOG_LEVEL in place, and the test environment sets PREFECT_LOGGING_LEVEL)."""
    names = ("prefect", "prefect.flow_runs", "prefect.task_runs")
    levels = {name: logging.getLogger(name).level for name in names}
    for name in names:
        logging.getLogger(name).setLevel(logging.INFO)
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@dataclass(frozen=True)
class Canaries:
    """Fresh per test: the session's server holds other tests' runs, so a find is ours."""

    key: str
    judge_key: str
    bearer: str
    cookie: str

    @classmethod
    def new(cls) -> Canaries:
        tag = uuid.uuid4().hex[:12]
        return cls(f"sk-canary-run-{tag}", f"sk-canary-judge-{tag}", f"CANARY-bearer-{tag}", f"CANARY-cookie-{tag}")

    @property
    def keys(self) -> list[str]:
        return [self.key, self.judge_key]

    @property
    def headers(self) -> list[str]:
        return [self.bearer, self.cookie]


def canary_recording(folder: Path, canaries: Canaries) -> Path:
    """The Firefox HAR example with these Authorization and Cookie values (and its own bytes)."""
    source = zipfile.ZipFile(EXAMPLES / "project_board_firefox.zip")
    har = source.read("capture.har").decode()
    assert "CANARY-board-bearer-0b6d" in har and "CANARY-board-cookie-44aa" in har
    har = har.replace("CANARY-board-bearer-0b6d", canaries.bearer).replace("CANARY-board-cookie-44aa", canaries.cookie)
    task_json = json.loads(source.read("task.json"))
    task_json["task"]["instruction"] += f" [{canaries.bearer[-12:]}]"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "board.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("task.json", json.dumps(task_json))
        out.writestr("capture.har", har)
    return path


@pytest.fixture
def model(_orchestration_llm: FakeLlmServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLlmServer]:
    """The fake model server as analyzer and judge; no analyzer key in the environment."""
    server = _orchestration_llm
    server.load_script({})
    server.reset()
    server.script("analyzer", faithful_analyzer())
    server.script("judge", judge_answer())
    monkeypatch.delenv("DEFAULT_API_KEY", raising=False)
    for key, value in model_env(server).items():
        monkeypatch.setenv(key, value)
    yield server


def model_env(server: FakeLlmServer) -> dict[str, str]:
    return {"DEFAULT_BASE_URL": server.base_url(), "DEFAULT_MODEL": "analyzer", "JUDGE_BASE_URL": server.base_url(),
            "JUDGE_MODEL": "judge", "ITEM_MAX_ATTEMPTS": "2"}  # fmt: skip


@task(task_run_name="leak-{secret}")
def leak_task(secret: str) -> None:
    return None


@flow(name="secrets-control")
def leaky(secret: str) -> None:
    """Puts `secret` in every channel on purpose: parameter, task run, log, artifact, event."""
    get_run_logger().info("the control logs %s", secret)
    leak_task(secret)
    create_markdown_artifact(f"control: {secret}", key=f"control-{uuid.uuid4().hex[:8]}")
    emit_event(event="rlauto.test.control", resource={"prefect.resource.id": "rlauto.test.control"},
               payload={"leaked": secret})  # fmt: skip


def scan_after_control(since: datetime) -> dict[str, list[str]]:
    """Run the control, wait until the scan finds its canary in every channel (logs and events
    are sent in the background, after everything the runs before it sent), and return the scan."""
    control = f"CANARY-control-{uuid.uuid4().hex[:12]}"
    leaky(control)
    deadline = time.monotonic() + 90
    while True:
        held = prefect_holdings(since)
        seen = found_in(held, [control])
        if set(seen) == set(CHANNELS):
            return held
        assert time.monotonic() < deadline, f"the control canary showed only in {sorted(seen)}"
        time.sleep(1)


def item_runs_in(held: dict[str, list[str]], storage_url: str) -> list[dict[str, Any]]:
    """The `package-recording` runs among the scanned flow runs (they have a `source_name`) of
    this test's store: a run the worker's previous test created in the second before `since`
    (CI saw a `rec-00.zip`) is not this test's."""
    runs = [json.loads(text) for text in held["flow runs"]]
    return [
        run
        for run in runs
        if "source_name" in run["parameters"] and run["parameters"].get("storage_url") == storage_url
    ]


def authorizations(server: FakeLlmServer, role: str) -> set[str]:
    return {r.headers.get("authorization", "") for r in server.requests(role)}


def test_a_model_batch_leaves_no_key_or_header_canary_in_prefect_or_storage(
    prefect_api_url: str, model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    canaries = Canaries.new()
    monkeypatch.setenv("JUDGE_API_KEY", canaries.judge_key)
    recording = canary_recording(tmp_path / "in", canaries)
    storage = open_storage((tmp_path / "store").as_uri())
    since = datetime.now(UTC) - timedelta(seconds=1)
    options = RunOptions(api_key=canaries.key, redact_secrets=True)  # a per-run key, in this process
    batch = asyncio.run(package_batch([str(recording)], options, concurrency=1, storage_url=storage.url))
    assert [i.status for i in batch.items] == ["completed"], [i.error for i in batch.items]
    assert batch.items[0].analyzer == "analyzer"  # the model path ran
    assert authorizations(model, "analyzer") == {f"Bearer {canaries.key}"}  # the key was really sent
    assert authorizations(model, "judge") == {f"Bearer {canaries.judge_key}"}
    # the dashboard's and the CLI's way in, on the embedded default: the run is created on the
    # server with its parameters first, then run in this process with the key
    launched = launch_batch([str(recording)], options, Settings(), concurrency=1, job_id="launched",
                            storage_url=storage.url)  # fmt: skip
    assert launched.via == "in-process"
    assert _wait_final(launched.flow_run_id, None).state.is_completed()

    held = scan_after_control(since)
    assert len(held["flow runs"]) >= 5 and held["logs"] and held["artifacts"] and held["events"]
    assert found_in(held, [*canaries.keys, *canaries.headers]) == {}

    files = storage_holdings(storage)
    assert any(p.endswith("output.zip!capture.har") for p, _ in files)  # ZIP members are read
    keyed = [p for p, text in files if any(k in text for k in canaries.keys)]
    assert keyed == []
    # the upload is the user's recording as given, kept byte for byte: the storage scan finds
    # its headers there (so it can find them), and nowhere else
    headed = sorted({p.split("!")[0] for p, text in files if any(h in text for h in canaries.headers)})
    assert headed and all(p.startswith("uploads/") for p in headed), headed


def test_a_raw_key_is_refused_for_a_batch_that_fans_out_to_workers(
    prefect_api_url: str, model: FakeLlmServer, tmp_path: Path
) -> None:
    canaries = Canaries.new()
    recording = canary_recording(tmp_path / "in", canaries)
    since = datetime.now(UTC) - timedelta(seconds=1)
    with pytest.raises(ConfigError) as refused:
        asyncio.run(package_batch([str(recording)], RunOptions(api_key=canaries.key), concurrency=1,
                                  storage_url=(tmp_path / "store").as_uri(), via_deployment=PACKAGE_RECORDING_DEPLOYMENT))  # fmt: skip
    message = str(refused.value)
    assert "DEFAULT_API_KEY" in message and "Secret block" in message and "--api-key-secret" in message
    assert model.requests() == [] and not (tmp_path / "store" / "uploads").exists()  # refused before anything
    held = scan_after_control(since)
    assert item_runs_in(held, (tmp_path / "store").as_uri()) == []  # no child started
    assert found_in(held, [canaries.key]) == {}


@dataclass
class Runner:
    proc: subprocess.Popen[bytes]
    log: Path


@pytest.fixture
def served(prefect_api_url: str, model: FakeLlmServer, tmp_path: Path) -> Iterator[Runner]:
    """`package-batch` (fanning out) and `package-recording` served by a runner in its own process:
    a worker whose environment has the model's address and the judge's key, no analyzer key."""
    env = {k: v for k, v in os.environ.items() if k != "DEFAULT_API_KEY"}
    env.update({**model_env(model), "JUDGE_API_KEY": "sk-worker-judge", "PYTHONPATH": str(REPO_ROOT),
                "PREFECT_RUNNER_POLL_FREQUENCY": "1", "RLAUTO_STORAGE_URL": (tmp_path / "worker-store").as_uri()})  # fmt: skip
    code = (
        "from prefect import serve\n"
        "from flows.pipeline import package_batch, package_recording\n"
        "from rlauto_core.config import PACKAGE_RECORDING_DEPLOYMENT\n"
        "serve(package_recording.to_deployment(name='package-recording'),\n"
        "      package_batch.to_deployment(name='package-batch',"
        " parameters={'via_deployment': PACKAGE_RECORDING_DEPLOYMENT}))\n"
    )
    log = tmp_path / "runner.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _deployed("package-batch/package-batch") or not _deployed(PACKAGE_RECORDING_DEPLOYMENT):
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(1)
        yield Runner(proc, log)
    finally:
        stop_process(proc)
        with get_client(sync_client=True) as client:  # later tests must not find these deployments
            for name in ("package-batch/package-batch", PACKAGE_RECORDING_DEPLOYMENT):
                with contextlib.suppress(Exception):
                    client.delete_deployment(client.read_deployment_by_name(name).id)


def _deployed(name: str) -> bool:
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            client.read_deployment_by_name(name)
        except ObjectNotFound:
            return False
    return True


def _wait_final(flow_run_id: str, runner: Runner | None, timeout: float = 400) -> Any:
    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            run = client.read_flow_run(uuid.UUID(flow_run_id))
            if run.state is not None and run.state.is_final():
                return run
            assert time.monotonic() < deadline, runner.log.read_text()[-3000:] if runner else run.state
            time.sleep(2)


def test_a_secret_block_key_reaches_the_model_from_a_worker_and_travels_nowhere(
    served: Runner, model: FakeLlmServer, tmp_path: Path
) -> None:
    """The batch launched through the deployment: its item runs on the worker, which reads the
    key from the Secret block named in the options; the model sees it as the Authorization
    header; the block's name, never the key, is in the runs' parameters. A raw key for the same
    launch is refused, and a block that does not exist fails the batch with how to create it."""
    canaries = Canaries.new()
    name = f"rlauto-analyzer-{uuid.uuid4().hex[:8]}"
    Secret(value=canaries.key).save(name)
    recording = canary_recording(tmp_path / "in", canaries)
    store = (tmp_path / "store").as_uri()
    since = datetime.now(UTC) - timedelta(seconds=1)

    with pytest.raises(ConfigError, match="Secret block"):
        launch_batch([str(recording)], RunOptions(api_key=canaries.key), Settings(), concurrency=1, storage_url=store)
    assert model.requests() == []

    launched = launch_batch([str(recording)], RunOptions(api_key_secret=name), Settings(), concurrency=1,
                            storage_url=store)  # fmt: skip
    assert launched.via == "deployment"
    batch_run = _wait_final(launched.flow_run_id, served)
    assert batch_run.state.is_completed(), (batch_run.state.message, served.log.read_text()[-3000:])
    assert authorizations(model, "analyzer") == {f"Bearer {canaries.key}"}
    assert authorizations(model, "judge") == {"Bearer sk-worker-judge"}

    held = scan_after_control(since)
    item_runs = item_runs_in(held, store)
    assert len(item_runs) == 1 and item_runs[0]["parameters"]["options"]["api_key_secret"] == name
    assert "api_key" not in item_runs[0]["parameters"]["options"]
    assert found_in(held, [canaries.key]) == {}
    files = storage_holdings(open_storage(store))
    assert files and [p for p, text in files if canaries.key in text] == []

    missing = launch_batch([str(recording)], RunOptions(api_key_secret="no-such-block-here"), Settings(),
                           concurrency=1, job_id="missing-block", storage_url=store)  # fmt: skip
    failed = _wait_final(missing.flow_run_id, served)
    assert failed.state.is_failed()
    assert "no-such-block-here" in str(failed.state.message) and "prefect block create secret" in str(
        failed.state.message
    )


def test_rlauto_package_reads_the_key_from_the_named_secret_block(
    prefect_api_url: str, model: FakeLlmServer, tmp_path: Path
) -> None:
    """`rlauto package --api-key-secret NAME`: the model path, with the block's key."""
    canaries = Canaries.new()
    name = f"rlauto-cli-{uuid.uuid4().hex[:8]}"
    Secret(value=canaries.key).save(name)
    recording = canary_recording(tmp_path / "in", canaries)
    env = {k: v for k, v in os.environ.items() if k != "DEFAULT_API_KEY"}
    env.update({**model_env(model), "JUDGE_API_KEY": canaries.judge_key, "PYTHONPATH": str(REPO_ROOT),
                "RLAUTO_STORAGE_URL": (tmp_path / "store").as_uri(), "CLI_KEY": "sk-from-a-variable"})  # fmt: skip
    rlauto = [sys.executable, "-m", "flows.cli", "package", str(recording), "--out", str(tmp_path / "out")]
    both = subprocess.run([*rlauto, "--api-key-secret", name, "--api-key-env", "CLI_KEY"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert both.returncode == 2 and "not both" in both.stderr
    done = subprocess.run([*rlauto, "--api-key-secret", name], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "analyzer: model analyzer at 127.0.0.1" in done.stdout
    assert authorizations(model, "analyzer") == {f"Bearer {canaries.key}"}
    assert canaries.key not in done.stdout + done.stderr


def test_the_polish_flow_reads_the_key_from_the_named_secret_block(prefect_api_url: str, model: FakeLlmServer) -> None:
    from flows.pipeline import polish

    canaries = Canaries.new()
    name = f"rlauto-polish-{uuid.uuid4().hex[:8]}"
    Secret(value=canaries.key).save(name)
    model.script("analyzer", {"json": {"zh": "回复 Alice。", "en": "Reply to Alice.", "notes": []}})
    since = datetime.now(UTC) - timedelta(seconds=1)
    polished = polish(f"reply to alice {canaries.bearer}", RunOptions(api_key_secret=name))
    assert polished.en == "Reply to Alice."
    assert authorizations(model, "analyzer") == {f"Bearer {canaries.key}"}
    assert found_in(scan_after_control(since), [canaries.key]) == {}
