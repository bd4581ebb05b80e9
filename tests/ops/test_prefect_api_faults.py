"""A Prefect API that answers 503 now and then is a transient fault for an item, not the end of
the batch: the item's run is started again after a pause, and when its tries are spent that
item alone fails with the reason. The faults come from a relay between this process and the
session's real Prefect server; Prefect's own client retries are off, so each 503 reaches us."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from flows import fanout
from flows.pipeline import package_batch
from rlauto_core.config import RunOptions
from rlauto_core.pipeline import BatchOutcome
from rlauto_core.store import layout, open_storage
from tests.fakes.outage_relay import FaultRelay
from tests.orchestration.recordings import write_variants
from tests.servers import prefect_api_at

# slow: the session's Prefect server starts for it (10-20 s per worker) and each batch takes 5-13 s
pytestmark = [pytest.mark.prefect, pytest.mark.slow]


def creates_task_run(method: str, target: str) -> bool:
    # the task run that stands for an item's child run in its batch: refused, the child never starts
    return method == "POST" and target.rstrip("/") == "/api/task_runs"


@pytest.fixture
def api_relay(prefect_api_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[FaultRelay]:
    relay = FaultRelay(int(urlsplit(prefect_api_url).port or 0))
    monkeypatch.setattr(fanout, "API_RETRY_DELAYS", (0.2,))  # two runs of an item, a short pause
    try:
        with prefect_api_at(f"{relay.endpoint_url}/api", PREFECT_CLIENT_MAX_RETRIES=0):
            yield relay
    finally:
        relay.close()


def run(tmp_path: Path, count: int) -> tuple[BatchOutcome, str]:
    files = write_variants(tmp_path / "in", count)
    url = (tmp_path / "store").as_uri()
    batch = asyncio.run(
        package_batch([str(f) for f in files], RunOptions(offline=True), 1, None, url, None, 1)
    )  # one item in flight: the refused requests are the first item's
    return batch, url


def test_a_503_for_an_item_is_retried_and_the_item_completes(
    api_relay: FaultRelay, offline: None, tmp_path: Path
) -> None:
    api_relay.fail(503, match=creates_task_run, times=1)
    batch, _ = run(tmp_path, 2)
    assert api_relay.faulted == [("POST", "/api/task_runs/")]  # the fault was met, and only once
    assert [i.status for i in batch.items] == ["completed", "completed"], [i.error for i in batch.items]


def test_an_item_whose_tries_are_spent_fails_alone_with_the_reason(
    api_relay: FaultRelay, offline: None, tmp_path: Path
) -> None:
    api_relay.fail(503, match=creates_task_run, times=2)  # both of the first item's runs
    batch, url = run(tmp_path, 2)
    first, second = batch.items
    assert len(api_relay.faulted) == 2
    assert first.status == "failed" and "503" in str(first.error) and "after 2 runs" in str(first.error)
    assert second.status == "completed"
    assert batch.status == "completed"  # the batch ended as a batch: job.json, not a traceback
    stored = BatchOutcome.model_validate_json(open_storage(url).read_bytes(layout.job_outcome_path(batch.job_id)))
    assert [i.status for i in stored.items] == ["failed", "completed"]


def test_an_error_that_is_no_api_fault_is_not_retried(api_relay: FaultRelay, offline: None, tmp_path: Path) -> None:
    """A 400 is an answer, not a fault: one run, the item fails with it, the batch goes on."""
    api_relay.fail(400, code="BadRequest", match=creates_task_run, times=1)
    batch, _ = run(tmp_path, 2)
    assert len(api_relay.faulted) == 1
    assert [i.status for i in batch.items] == ["failed", "completed"]
    assert "400 Bad Request" in str(batch.items[0].error) and "after 2 runs" not in str(batch.items[0].error)


def test_artifacts_the_api_refuses_cost_the_batch_nothing(api_relay: FaultRelay, offline: None, tmp_path: Path) -> None:
    """Every artifact write answered 503 (the items' pages, the progress, the summary): pages
    are missing, the packages and the record are not, and a refused recording keeps its reason
    (its run failed on the artifact after recording it: not a fault to run it again for)."""
    api_relay.fail(503, match=lambda method, target: target.startswith("/api/artifacts"))
    files = write_variants(tmp_path / "in", 2)
    broken = tmp_path / "in" / "zz-broken.zip"
    broken.write_bytes(b"PK\x03\x04 not a zip at all")
    url = (tmp_path / "store").as_uri()
    batch = asyncio.run(package_batch([*map(str, files), str(broken)], RunOptions(offline=True), 1, None, url, None, 1))
    assert any(target.startswith("/api/artifacts") for _, target in api_relay.faulted)
    assert [i.status for i in batch.items] == ["completed", "completed", "failed"]
    refused = batch.items[2]
    assert "zz-broken.zip" in str(refused.error) and "runs" not in str(refused.error).replace("task_runs", "")
    assert open_storage(url).exists(layout.job_outcome_path(batch.job_id))
