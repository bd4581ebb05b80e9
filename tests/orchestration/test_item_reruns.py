"""The dashboard launcher's Prefect side, against the loopback Prefect server and the fake model
server: regenerate starts one `package-recording` run whose first analyzer prompt carries the
reviewer's comment and the old item's iteration memory (a new item of the same job); retry
runs the failed item alone, with its own options, and writes the same item afresh."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.config import RunOptions, Settings
from rlauto_core.pipeline import ItemOutcome, RerunError
from rlauto_core.store import layout, open_storage
from tests.conftest import EXAMPLES
from tests.fakes.llm_requests import RecordedRequest
from tests.fakes.llm_scripts import faithful_analyzer, judge_scores
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.slow, pytest.mark.prefect]

MEMORY_CANARY = "MEMORY-CANARY-91 the task is too simple"
DISCORD = "release-planning"  # in discord_reply's prompts only
COMMENT = "REVIEWER-CANARY-37 ask for the reply in the thread, by the message id"


def _too_simple() -> dict[str, Any]:
    answer = judge_scores("needs more", TASK_COMPLEXITY=0)
    for score in answer["scores"]:
        if score["dimension"] == "TASK COMPLEXITY":
            score["explanation"] = MEMORY_CANARY
    return {"json": answer}


def _wait_outcome(storage_url: str, job: str, item: str, not_before: float, timeout: float = 240) -> ItemOutcome:
    storage = open_storage(storage_url)
    path = layout.item_outcome_path(job, item)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if storage.exists(path):
            outcome = ItemOutcome.model_validate_json(storage.read_bytes(path))
            if outcome.finished_at is not None and outcome.finished_at.timestamp() >= not_before:
                return outcome
        time.sleep(0.5)
    raise AssertionError(f"{path} was not written in {timeout} s")


def _flow_run(flow_run_id: str) -> Any:
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_run(flow_run_id)


def _items(storage_url: str, job: str) -> dict[str, str]:
    """source name -> item id of the job's written items."""
    storage = open_storage(storage_url)
    found = {}
    for path in storage.list(layout.job_exports_dir(job)):
        if path.endswith("/item.json"):
            outcome = ItemOutcome.model_validate_json(storage.read_bytes(path))
            found[outcome.source_name] = outcome.item_id
    return found


def test_regenerate_and_retry_run_one_item_each(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path
) -> None:
    from flows.launch import PrefectLauncher

    # discord_reply fails by the judge (its memory holds the canary); issue_tracker by a refused
    # analyzer call (nothing cached, so a retry can pass)
    phase = {"broken": True, "strict": True}
    faithful = faithful_analyzer()

    def analyzer(request: RecordedRequest) -> dict[str, Any]:
        if phase["broken"] and DISCORD not in request.prompt_text():
            return {"status": 400, "error": "analyzer refused the request"}
        return faithful(request)

    def judge(request: RecordedRequest) -> dict[str, Any]:
        return _too_simple() if phase["strict"] and DISCORD in request.prompt_text() else {"json": judge_scores("good")}

    fake_model.script("analyzer", analyzer)
    fake_model.script("judge", judge)
    storage_url = (tmp_path / "storage").as_uri()
    launcher = PrefectLauncher(Settings(), storage_url)
    started = time.time()
    files = [(name, (EXAMPLES / name).read_bytes()) for name in ("discord_reply.zip", "issue_tracker.zip")]
    batch = launcher.launch(files, RunOptions(max_iterations=2, feedback="keep ids exact"), 2)
    deadline = time.monotonic() + 240
    while len(items := _items(storage_url, batch.job_id)) < 2:
        assert time.monotonic() < deadline, "the batch did not write its two items"
        time.sleep(0.5)
    discord, tracker = items["discord_reply.zip"], items["issue_tracker.zip"]
    failed = _wait_outcome(storage_url, batch.job_id, discord, started)
    assert failed.status == "failed" and failed.iterations_used == 2
    assert _wait_outcome(storage_url, batch.job_id, tracker, started).status == "failed"

    # regenerate: a new item of the job, its first analyzer prompt has the comment and the memory
    fake_model.reset()
    phase["strict"] = False
    regen = launcher.regenerate_item(batch.job_id, discord, COMMENT)
    assert regen.job_id == batch.job_id and regen.item_id not in (None, discord)
    new = _wait_outcome(storage_url, batch.job_id, str(regen.item_id), started)
    assert new.status == "completed", new.error
    first_prompt = fake_model.requests("analyzer")[0].prompt_text()
    assert COMMENT in first_prompt and "keep ids exact" in first_prompt
    assert MEMORY_CANARY in first_prompt, "the new run starts from the old item's iteration memory"
    params = _flow_run(regen.flow_run_id).parameters
    assert params["memory_path"] == layout.iteration_path(batch.job_id, discord, "iteration-memory", 2)

    # retry: the failed item alone, same options (same item id), written afresh; no batch run
    fake_model.reset()
    phase["broken"] = False
    again_at = time.time()
    retry = launcher.retry_item(batch.job_id, tracker)
    assert retry.item_id == tracker
    run = _flow_run(retry.flow_run_id)
    assert run.name == "issue_tracker.zip" and f"job-{batch.job_id}" in run.tags
    redone = _wait_outcome(storage_url, batch.job_id, tracker, again_at)
    assert redone.status == "completed" and redone.flow_run_id == retry.flow_run_id, redone.error
    assert all(DISCORD not in r.prompt_text() for r in fake_model.requests("analyzer")), "one item only"
    assert COMMENT not in fake_model.requests("analyzer")[0].prompt_text()
    written = [
        p for p in open_storage(storage_url).list(layout.job_exports_dir(batch.job_id)) if p.endswith("item.json")
    ]
    assert len(written) == 3  # the two items and the regenerated one; the retry wrote no new item

    # a completed item is not retried; a made-up id is refused before anything starts
    with pytest.raises(RerunError, match="only a failed or stopped item"):
        launcher.retry_item(batch.job_id, tracker)
    with pytest.raises(RerunError, match="not in storage"):
        launcher.retry_item(batch.job_id, "it-0000000000000000")
