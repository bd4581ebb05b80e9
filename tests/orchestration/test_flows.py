"""The flows against the session's Prefect server, moto S3 and the fake model server (in-process fan-out)."""

from __future__ import annotations

import asyncio
import io
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowFilter, FlowFilterName
from prefect.client.schemas.objects import StateType
from prefect.states import Cancelling

from flows import package_batch, scan_inbox
from rlauto_core.config.options import RunOptions
from rlauto_core.package import package_file_name
from rlauto_core.store import layout
from rlauto_core.store.index import read_table
from rlauto_core.store.index_schema import ITEMS_DIR, ITEMS_SCHEMA, ITERATIONS_DIR, ITERATIONS_SCHEMA
from rlauto_core.store.storage import open_storage
from tests.conftest import EXAMPLES
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest
from tests.orchestration.conftest import ANALYZER_KEY, JUDGE_KEY, S3Server
from tests.orchestration.recordings import marker, write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

SNAPSHOTS = ("evidence", "task-package", "judge-result", "iteration-memory")


def item_runs(job: str) -> list[Any]:
    """The job's item runs, found as `rlauto status` finds them: by their job_id parameter."""
    return [r for r in all_item_runs() if r.parameters.get("job_id") == job]


def all_item_runs() -> list[Any]:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])))


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_offline_batch_on_s3_survives_an_outage(
    prefect_api_url: str, s3_server: S3Server, s3_url: str, offline: None, tmp_path: Path
) -> None:
    """Three recordings on S3 storage, the S3 endpoint down for 3 s mid-batch: every item passes,
    every snapshot, package, index row and artifact is there; a re-run reuses everything."""
    names = ["discord_reply.zip", "shop_checkout.zip", "notes_jsonrpc.zip"]
    storage = open_storage(s3_url)

    def outage_once_started() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if storage.glob("exports/*/*/item.json"):
                s3_server.relay.outage(3.0)
                return
            time.sleep(0.2)

    watcher = threading.Thread(target=outage_once_started, daemon=True)
    watcher.start()
    batch = run(package_batch([str(EXAMPLES / n) for n in names], concurrency=1, storage_url=s3_url))
    watcher.join(timeout=1)

    assert batch.status == "completed"
    assert [i.status for i in batch.items] == ["completed"] * 3
    for item in batch.items:
        folder = layout.export_dir(batch.job_id, item.item_id)
        files = set(storage.list(folder))
        for snap in SNAPSHOTS:
            assert f"{folder}/{snap}-iter-1.json" in files and f"{folder}/{snap}.json" in files
        assert f"{folder}/output.zip" in files and f"{folder}/error.txt" not in files
        assert storage.exists(layout.upload_path(batch.job_id, item.item_id))
        with zipfile.ZipFile(io.BytesIO(storage.read_bytes(f"{folder}/output.zip"))) as package:
            assert any(n.endswith("task.json") for n in package.namelist())
    assert batch.all_results_path == layout.all_results_path(batch.job_id)
    with zipfile.ZipFile(io.BytesIO(storage.read_bytes(batch.all_results_path))) as bundle:
        assert sorted(bundle.namelist()) == sorted(package_file_name(n) for n in names)

    items = read_table(storage, ITEMS_DIR, ITEMS_SCHEMA).to_pylist()
    assert sorted(r["source_name"] for r in items) == sorted(names)
    assert {r["status"] for r in items} == {"completed"} and all(r["output_zip_path"] for r in items)
    iterations = read_table(storage, ITERATIONS_DIR, ITERATIONS_SCHEMA).to_pylist()
    assert len(iterations) == 3 and all(r["instruction_clarity"] is not None for r in iterations)

    runs = item_runs(batch.job_id)
    assert sorted(r.name for r in runs) == sorted(names)  # one flow run per recording, named after it
    assert all(r.state.type is StateType.COMPLETED and r.parent_task_run_id for r in runs)
    with get_client(sync_client=True) as client:
        scores = client.read_latest_artifacts()
    keys = {a.key for a in scores}
    pages = {a.key: str(a.data) for a in scores}
    for item in batch.items:
        # one page per item: the scores per iteration, the judge's reasons, where the package is
        page = pages[f"{item.item_id}-judge"]
        assert "| iteration | clarity |" in page and "**Best iteration 1**" in page and "output.zip" in page
    assert f"{batch.job_id}-progress" in keys and f"{batch.job_id}-summary" in keys

    again = run(package_batch([str(EXAMPLES / n) for n in names], concurrency=2, storage_url=s3_url))
    assert again.job_id == batch.job_id and all(i.reused for i in again.items)
    assert len(item_runs(batch.job_id)) == 3  # no new child run


def _judging_probe(seen: list[str]) -> Any:
    def step(request: RecordedRequest) -> dict[str, Any]:
        with get_client(sync_client=True) as client:
            runs = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])))
        seen.extend(r.name for r in runs if r.state and r.state.name == "Judging")
        return judge_answer()

    return step


def test_model_path_faults_auth_failure_and_retry_of_one_item(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path
) -> None:
    """429/500 for a while: items pass after retries; a permanent 401 for one recording fails it
    with a clear message while the others pass; once fixed, re-running the job re-runs only
    that item, and no completed model call is paid twice."""
    files = write_variants(tmp_path / "in", 3)
    storage_url = (tmp_path / "store").as_uri()
    broken = {"on": True}
    faithful = faithful_analyzer()
    faults = iter([{"status": 429, "error": "slow down"}, {"status": 500, "error": "boom"}])

    def analyzer(request: RecordedRequest) -> dict[str, Any]:
        if broken["on"] and marker(1) in request.prompt_text():
            return {"status": 401, "error": "invalid api key"}
        return next(faults, None) or faithful(request)

    judging: list[str] = []
    fake_model.script("analyzer", analyzer)
    fake_model.script("judge", _judging_probe(judging))

    batch = run(package_batch([str(p) for p in files], RunOptions(), concurrency=3, storage_url=storage_url))
    by_name = {i.source_name: i for i in batch.items}
    assert by_name["rec-00.zip"].status == "completed" and by_name["rec-02.zip"].status == "completed"
    failed = by_name["rec-01.zip"]
    assert failed.status == "failed" and "401" in (failed.error or "") and "analyzer model" in (failed.error or "")
    storage = open_storage(storage_url)
    error_text = storage.read_bytes(layout.error_path(batch.job_id, failed.item_id)).decode()
    assert "401" in error_text
    assert not storage.exists(layout.output_zip_path(batch.job_id, failed.item_id))
    assert set(judging) >= {"rec-00.zip", "rec-02.zip"}  # "Judging" was the visible state
    states = {r.name: r.state.type for r in item_runs(batch.job_id)}
    assert states == {"rec-00.zip": StateType.COMPLETED, "rec-01.zip": StateType.FAILED,
                      "rec-02.zip": StateType.COMPLETED}  # fmt: skip

    def calls_for(n: int) -> int:
        return sum(marker(n) in r.prompt_text() for r in fake_model.requests())

    paid = {n: calls_for(n) for n in range(3)}
    broken["on"] = False
    again = run(package_batch([str(p) for p in files], RunOptions(), concurrency=3, storage_url=storage_url))
    assert [i.status for i in again.items] == ["completed"] * 3
    assert [i.reused for i in again.items] == [True, False, True]
    assert calls_for(0) == paid[0] and calls_for(2) == paid[2]  # only the failed item ran again
    assert len(item_runs(batch.job_id)) == 4

    before = len(fake_model.requests())
    other_job = run(
        package_batch([str(p) for p in files], RunOptions(), concurrency=3, job_id="fresh", storage_url=storage_url)
    )
    assert [i.status for i in other_job.items] == ["completed"] * 3
    assert len(fake_model.requests()) == before  # every model call came from the cache

    leaked = [
        p for p in storage.list("") if any(k.encode() in storage.read_bytes(p) for k in (ANALYZER_KEY, JUDGE_KEY))
    ]
    assert leaked == []


def test_cancel_stops_new_items_and_keeps_snapshots(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path
) -> None:
    """Cancelling the batch while its first item is being judged: that item ends Cancelled with its
    iteration-1 snapshots kept, no other item starts, the batch ends cancelled."""
    files = write_variants(tmp_path / "in", 3, start=10)
    storage_url = (tmp_path / "store").as_uri()

    def judge_then_cancel(request: RecordedRequest) -> dict[str, Any]:
        with get_client(sync_client=True) as client:
            runs = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])))
            judging = [r for r in runs if r.state and r.state.name == "Judging"]
            for item_run in judging:
                parent = client.read_task_run(item_run.parent_task_run_id).flow_run_id
                client.set_flow_run_state(parent, Cancelling(), force=True)
        return judge_answer(INSTRUCTION_CLARITY=1, RUBRIC_COVERAGE=1, TASK_COMPLEXITY=1)  # 9/12: not a pass

    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", judge_then_cancel)
    # one item in flight (one model call too): the second is not under way yet when the cancel comes
    state = run(package_batch([str(p) for p in files], concurrency=1, storage_url=storage_url, items_in_flight=1,
                              return_state=True))  # fmt: skip
    assert state.is_cancelled()
    batch = state.result(raise_on_failure=False)
    assert batch.status == "stopped"
    assert [i.status for i in batch.items] == ["stopped"] * 3
    runs = item_runs(batch.job_id)
    assert [r.name for r in runs] == ["rec-10.zip"]  # no new item started
    assert runs[0].state.type is StateType.CANCELLED
    storage = open_storage(storage_url)
    first = batch.items[0]
    folder = layout.export_dir(batch.job_id, first.item_id)
    assert {f"{folder}/{s}-iter-1.json" for s in SNAPSHOTS} <= set(storage.list(folder))
    assert not storage.exists(f"{folder}/judge-result-iter-2.json")
    assert not storage.exists(f"{folder}/output.zip")
    assert fake_model.calls("judge") == 1


def test_overlapping_inbox_scans_package_each_recording_once(
    prefect_api_url: str, offline: None, tmp_path: Path
) -> None:
    """Two scans of one inbox at the same time: every recording is claimed and packaged once;
    a later scan finds nothing new."""
    inbox = tmp_path / "inbox"
    write_variants(inbox, 3, example="shop_checkout.zip", start=20)
    storage_url = (tmp_path / "store").as_uri()
    names = {"rec-20.zip", "rec-21.zip", "rec-22.zip"}
    before = {r.id for r in all_item_runs()}

    async def both() -> list[Any]:
        return await asyncio.gather(
            scan_inbox(inbox.as_uri(), storage_url=storage_url), scan_inbox(inbox.as_uri(), storage_url=storage_url)
        )

    first, second = run(both())
    done = [i for b in (first, second) if b is not None for i in b.items]
    assert sorted(i.source_name for i in done) == sorted(names)
    assert all(i.status == "completed" for i in done)
    new_runs = [r for r in all_item_runs() if r.id not in before]
    assert sorted(r.name for r in new_runs) == sorted(names)
    assert len(open_storage(storage_url).list("claims")) == 3
    assert run(scan_inbox(inbox.as_uri(), storage_url=storage_url)) is None


def test_launch_batch_returns_at_once_and_status_follows(prefect_api_url: str, offline: None, tmp_path: Path) -> None:
    """`launch_batch` (the dashboard's way in) returns the job and run ids before the batch ends;
    `rlauto status JOB` then lists the item as completed with its package."""
    from typer.testing import CliRunner

    from flows.cli import app
    from flows.launch import launch_batch
    from rlauto_core.config import Settings

    storage_url = (tmp_path / "store").as_uri()
    launched = launch_batch([str(EXAMPLES / "issue_tracker.zip")], RunOptions(), Settings(), storage_url=storage_url)
    assert launched.via == "in-process" and launched.job_id.startswith("job-")
    assert launched.ui_url and launched.flow_run_id in launched.ui_url
    deadline = time.monotonic() + 180
    with get_client(sync_client=True) as client:
        while time.monotonic() < deadline:
            state = client.read_flow_run(launched.flow_run_id).state
            if state is not None and state.is_final():
                break
            time.sleep(1)
    assert state is not None and state.is_completed()
    with get_client(sync_client=True) as client:
        assert client.read_flow_run(launched.flow_run_id).name == launched.job_id  # named after its job
    result = CliRunner().invoke(app, ["status", launched.job_id, "--storage-url", storage_url], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "issue_tracker.zip" in result.output and "completed" in result.output


def test_polish_returns_both_languages_and_caches_the_call(prefect_api_url: str, fake_model: FakeLlmServer) -> None:
    """The polish flow answers {zh, en, notes}; the same raw text again costs no model call."""
    from flows import polish

    fake_model.script("analyzer", {"json": {"zh": "回复玛雅", "en": "Reply to Maya", "notes": "named the channel"}})
    first = polish("reply maya in #release-planning")
    assert (first.zh, first.en, first.notes) == ("回复玛雅", "Reply to Maya", "named the channel")
    assert polish("reply maya in #release-planning") == first
    assert fake_model.calls("analyzer") == 1


def test_another_model_is_asked_afresh_never_served_the_old_models_answers(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model-call cache key holds the endpoint (model, base URL, API mode): the same recording
    and options re-run under another DEFAULT_MODEL pays for new calls; under the same one, none."""
    files = [str(p) for p in write_variants(tmp_path / "in", 1)]
    storage_url = (tmp_path / "store").as_uri()
    fake_model.load_script({"models": {"analyzer-v2": "analyzer"}})
    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", judge_answer())
    first = run(package_batch(files, RunOptions(), job_id="model-a", storage_url=storage_url))
    paid = fake_model.calls("analyzer")
    assert first.items[0].status == "completed" and paid == 1
    run(package_batch(files, RunOptions(), job_id="model-a-again", storage_url=storage_url))
    assert fake_model.calls("analyzer") == paid  # same endpoint: read back from the cache
    monkeypatch.setenv("DEFAULT_MODEL", "analyzer-v2")
    other = run(package_batch(files, RunOptions(), job_id="model-b", storage_url=storage_url))
    assert other.items[0].status == "completed" and other.items[0].analyzer == "analyzer-v2"
    assert fake_model.calls("analyzer") == paid + 1
    assert [r.body["model"] for r in fake_model.requests("analyzer")] == ["analyzer", "analyzer-v2"]
    monkeypatch.setenv("DEFAULT_API_MODE", "responses")
    run(package_batch(files, RunOptions(), job_id="model-b-responses", storage_url=storage_url))
    assert fake_model.calls("analyzer") == paid + 2 and fake_model.requests("analyzer")[-1].path.endswith("/responses")
