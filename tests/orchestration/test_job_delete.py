"""Deleting a job whose items still run, through the dashboard against the loopback Prefect
server and a slow fake model: its runs are cancelled and waited for first, the message names
them, and nothing of the job is written after the deletion."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards.repository import Repository
from rlauto_core.config import RunOptions, Settings
from rlauto_core.store import layout, open_storage
from tests.conftest import EXAMPLES
from tests.dashboards.apptest_support import dashboard, texts
from tests.fakes.llm_requests import RecordedRequest
from tests.fakes.llm_scripts import faithful_analyzer, judge_scores
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.slow, pytest.mark.prefect]

SLOW = "release-planning"  # in discord_reply's prompts only: that item is the slow one
DELAY = 3.0  # seconds per analyzer call of the slow item


def _job_files(storage_url: str, job: str) -> list[str]:
    storage = open_storage(storage_url)
    folders = [layout.job_exports_dir(job), f"uploads/{job}", f"index/items/job={job}", f"index/iterations/job={job}"]
    return [path for folder in folders for path in storage.list(folder)]


def _runs_of(job: str) -> dict[str, str]:
    """name -> state type of the job's batch and item runs."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=["package-batch", "package-recording"])), limit=200
        )
    return {r.name: r.state.type.value for r in runs if r.parameters.get("job_id") == job and r.state is not None}


@pytest.fixture
def loopback_address() -> Iterator[None]:
    """What `rlauto dashboard` sets (AppTest runs the app in this process)."""
    from streamlit import config as streamlit_config

    saved = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "127.0.0.1")
    try:
        yield
    finally:
        streamlit_config.set_option("server.address", saved)


@pytest.mark.usefixtures("loopback_address")
def test_deleting_a_running_job_stops_its_runs_first(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.launch import PrefectLauncher

    faithful = faithful_analyzer()

    def analyzer(request: RecordedRequest) -> dict[str, Any]:
        answer = faithful(request)
        return {"delay": DELAY, **answer} if SLOW in request.prompt_text() else answer

    def judge(request: RecordedRequest) -> dict[str, Any]:
        # the slow item never passes: without a stop it would iterate max_iterations times
        weak = SLOW in request.prompt_text()
        return {"json": judge_scores("needs more", TASK_COMPLEXITY=0) if weak else judge_scores("good")}

    fake_model.script("analyzer", analyzer)
    fake_model.script("judge", judge)
    monkeypatch.chdir(tmp_path)  # no stray .env
    storage_url = (tmp_path / "storage").as_uri()
    launcher = PrefectLauncher(Settings(), storage_url)
    files = [(name, (EXAMPLES / name).read_bytes()) for name in ("discord_reply.zip", "issue_tracker.zip")]
    batch = launcher.launch(files, RunOptions(max_iterations=5), 2)
    assert batch.via == "in-process"
    job = batch.job_id
    repository = Repository(storage_url, refresh_seconds=0)

    deadline = time.monotonic() + 240
    while not (repository.list_jobs() and any(SLOW in r.prompt_text() for r in fake_model.requests("analyzer"))):
        assert time.monotonic() < deadline, "the fast item did not finish while the slow one runs"
        time.sleep(0.5)
    assert _runs_of(job).get("discord_reply.zip") == "RUNNING"

    at = dashboard(repository, launcher).run(timeout=120)
    at.selectbox(key="job_delete_pick").set_value(job).run()
    at.button(key="job_delete").click().run()
    at.text_input(key="job_delete_typed").input(job).run()
    at.button(key="job_delete_confirm").click().run(timeout=240)
    assert not at.exception
    [message] = texts(at, "success")
    assert message.startswith("Stopped 2 runs"), message
    assert f"{job} (batch)" in message and "discord_reply.zip (item)" in message
    assert f"deleted job {job}" in message

    runs = _runs_of(job)
    assert runs == {job: "CANCELLED", "discord_reply.zip": "CANCELLED", "issue_tracker.zip": "COMPLETED"}
    assert _job_files(storage_url, job) == []
    asked = len(fake_model.requests("analyzer"))
    time.sleep(2 * DELAY)  # longer than one more iteration of the slow item
    assert _job_files(storage_url, job) == [], "a run wrote into the deleted job"
    assert len(fake_model.requests("analyzer")) == asked
    assert repository.list_jobs() == []
