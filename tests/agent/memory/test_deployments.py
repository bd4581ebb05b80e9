"""The memory's deployments from prefect.yaml on the session's Prefect server, with a real
process worker: the audit by hand (as the dashboard starts it), and the designer's whole way,
dashboard launcher -> design-task on the demo phone -> a person confirms -> run-steps runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

from device_flows.demo import DemoAdbServer, Home, NotesApp
from flows.memory_launch import PrefectMemoryLauncher
from rlauto_core.agent.designer import DraftStore
from rlauto_core.agent.run import RunStore
from rlauto_core.errors import ConfigError
from rlauto_core.memory import ExperienceLibrary
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import KEY, SERIAL
from tests.agent.memory.conftest import Brain
from tests.agent.scripts import PACKAGE, call, turn
from tests.conftest import REPO_ROOT
from tests.fakes.llm_server import FakeLlmServer
from tests.servers import deploy_on_new_pool, stop_process

STEPS = [
    {"kind": "app_start", "package": PACKAGE},
    {"kind": "click", "selector": {"text": "New note"}},
    {"kind": "click", "selector": {"resourceId": f"{PACKAGE}:id/body"}},
    {"kind": "input_text", "text": "Standup at 10"},
    {"kind": "click", "selector": {"text": "Save"}},
    {"kind": "assert_exists", "selector": {"text": "Standup at 10"}},
]


def _entries() -> dict[str, Any]:
    return {d["name"]: d for d in yaml.safe_load((REPO_ROOT / "prefect.yaml").read_text())["deployments"]}


def test_the_entries_schedule_the_audit_daily_on_rlauto_and_the_designer_on_phones() -> None:
    entries = _entries()
    audit = entries["audit-experience"]
    assert audit["entrypoint"] == "flows/memory.py:audit_experience" and audit["work_pool"]["name"] == "rlauto"
    assert audit["schedules"] == [{"cron": "47 3 * * *", "timezone": "UTC", "active": True}]
    design = entries["design-task"]
    assert (
        design["entrypoint"] == "device_flows/designer_flow.py:design_task" and design["work_pool"]["name"] == "phones"
    )
    assert "-n audit-experience" in (REPO_ROOT / "infra" / "deploy.sh").read_text()  # `rlauto up` deploys it


@pytest.fixture
def worker(
    prefect_api_url: str, storage: FsspecStorage, fake_llm: FakeLlmServer, demo_adb: DemoAdbServer, tmp_path: Path
) -> Iterator[str]:
    """The three deployments on a pool of this test's own, and one process worker on it that
    reaches the fake model and the demo phone of this process."""
    pool = f"memory-{uuid.uuid4().hex[:6]}"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "RLAUTO_STORAGE_URL": storage.url,
        "AGENT_BASE_URL": fake_llm.base_url(),
        "AGENT_MODEL": "agent",
        "AGENT_API_KEY": KEY,
        "AGENT_MAX_ATTEMPTS": "1",
    }
    deploy_on_new_pool(pool, ["audit-experience", "design-task", "run-steps"], env)
    prefect = [sys.executable, "-m", "prefect"]
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


def _finished(flow_run_id: str, timeout: float = 300) -> Any:
    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            run = client.read_flow_run(uuid.UUID(flow_run_id))
            if run.state is not None and run.state.is_final():
                return run
            assert time.monotonic() < deadline, f"flow run {flow_run_id} still {run.state}"
            time.sleep(1)


@pytest.mark.slow
@pytest.mark.prefect
def test_the_audit_by_hand_and_the_designer_from_request_to_run(
    worker: str, storage: FsspecStorage, fake_llm: FakeLlmServer, notes_app: NotesApp, home: Home
) -> None:
    library = ExperienceLibrary(storage)
    kept = library.add(
        "Write the note 'Call Alice'", "Write a note", "1. Open the notes app and tap New note.\n2. Type, Save."
    )
    library.keep(kept.id, "Ann")
    vague = library.add("Take a photo", "Photo", "1. Do the photo thing somehow with the camera app.")
    designer = turn(call("submit_task", name="Write the standup note", steps=STEPS))
    ratings = {"json": {"ratings": [{"id": vague.id, "verdict": "delete", "score": 1, "reason": "vague"}]}}
    brain = Brain(turns=[turn(call("ui_tree")), designer], memory=[ratings])
    fake_llm.script("agent", brain)
    launcher = PrefectMemoryLauncher(storage.url)

    audit = _finished(launcher.start_audit())
    assert audit.state.is_completed(), audit.state
    assert library.mark(vague.id).pending_delete and library.mark(kept.id).decision == "kept"
    assert [e.id for e in library.all()] == [kept.id, vague.id]  # marked, not deleted
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[audit.id]))
        )
        deployment = client.read_deployment_by_name("audit-experience/audit-experience")
    pages = [a for a in artifacts if a.key == "experience-audit"]
    assert len(pages) == 1 and "1 of 2 recipes rated" in str(pages[0].data)
    assert [s.schedule.cron for s in deployment.schedules] == ["47 3 * * *"]

    design_id = launcher.start_design(SERIAL, "Write the note 'Standup at 10' every morning")
    designed = _finished(design_id)
    assert designed.state.is_completed(), designed.state
    assert KEY not in str(designed.parameters)
    draft = DraftStore(storage).latest()
    assert draft is not None and draft.run_id == design_id and draft.steps == STEPS and draft.warnings == []
    assert RunStore(storage).load(design_id).mode == "designer"
    assert brain.turn_requests[0].body["max_tokens"] == 8192
    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[designed.id]))
        )
    pages = [a for a in artifacts if a.key == "designer-draft"]
    assert len(pages) == 1 and "Write the standup note" in str(pages[0].data)
    assert notes_app.notes == ["Buy milk"]  # designing explored; nothing was written yet

    task = DraftStore(storage).confirm("Ann", run_id=design_id)
    home.press("home")
    ran = _finished(launcher.run_task(task.name, task.steps, SERIAL))
    assert ran.state.is_completed(), ran.state
    assert ran.name == f"task Write the standup note on {SERIAL}"
    assert notes_app.notes == ["Buy milk", "Standup at 10"]


@pytest.mark.slow
@pytest.mark.prefect
def test_the_launcher_names_a_deployment_that_is_missing(prefect_api_url: str, storage: FsspecStorage) -> None:
    with pytest.raises(ConfigError, match=r"the deployment nope/nope does not exist on the Prefect server"):
        from flows.memory_launch import start_deployment

        start_deployment("nope/nope", {})
    with pytest.raises(ConfigError, match="needs the phone's serial and a description"):
        PrefectMemoryLauncher(storage.url).start_design(" ", "x")
