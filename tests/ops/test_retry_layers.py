"""One retry layer per concern, counted at the wire: a storage write is tried exactly the storage
layer's number of times in one export (requests counted at an HTTP relay in front of moto's S3
server), a model call exactly the HTTP client's number of times in one flow run (requests counted
by the fake model server). A second layer anywhere (task retries, botocore's or s3fs's own
retries, flow retries) multiplies the counts and fails these tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from flows import package_recording
from rlauto_core.config import RunOptions
from rlauto_core.pipeline import ItemOutcome, plan_item
from rlauto_core.store import open_storage
from rlauto_core.store.storage import RETRY_DELAYS_SECONDS
from tasks.recording_tasks import export
from tests.fakes.llm_server import FakeLlmServer
from tests.fakes.outage_relay import FaultRelay
from tests.orchestration.recordings import write_variants

STORAGE_TRIES = len(RETRY_DELAYS_SECONDS) + 1  # the first try and one per delay


def is_put_of(name: str) -> object:
    return lambda method, target: method == "PUT" and name in target


@pytest.mark.slow
def test_a_storage_write_failing_with_503_is_tried_the_storage_layers_times_in_one_export(
    relay: FaultRelay, s3_url: str, tmp_path: Path
) -> None:
    """The export of a failed item writes `error.txt`; S3 answers every PUT with 503: the write
    is sent exactly STORAGE_TRIES times, then the export fails once (nothing retries it again)."""
    source = write_variants(tmp_path / "in", 1)[0]
    item = plan_item(str(source), source.read_bytes(), RunOptions().options_hash(), "retry-layers")
    outcome = ItemOutcome(job_id=item.job_id, item_id=item.item_id, source=item.source, source_name=item.source_name,
                          status="failed", error="refused", storage_url=s3_url)  # fmt: skip
    relay.fail(503, "ServiceUnavailable", match=is_put_of("error.txt"))  # type: ignore[arg-type]
    with pytest.raises(OSError):
        export(item, outcome, None, "", False)
    sent = relay.count(is_put_of("error.txt"))  # type: ignore[arg-type]
    assert sent == STORAGE_TRIES, f"{sent} PUTs of error.txt for one write in one export"
    assert len(relay.faulted) == sent  # every one of them reached the relay and was refused


@pytest.mark.slow  # moto's S3 server starts for it (2-3 s per worker) and the relay in front
def test_a_key_named_like_a_status_failing_for_good_is_sent_once(relay: FaultRelay, s3_url: str) -> None:
    """`it-503abc` in the key and "503" in the message change nothing: access denied and a missing
    bucket are answers, not outages, and are never repeated."""
    storage = open_storage(s3_url)
    key = "exports/job-503/it-503abc/item.json"
    relay.fail(403, "AccessDenied", match=is_put_of("it-503abc"))  # type: ignore[arg-type]
    with pytest.raises(PermissionError):
        storage.write_bytes(key, b"{}")
    assert relay.count(is_put_of("it-503abc")) == 1  # type: ignore[arg-type]
    relay.clear()

    missing = open_storage("s3://no-such-bucket-503/rlauto")
    with pytest.raises(FileNotFoundError):
        missing.write_bytes("exports/job-503/it-503abc/error.txt", b"503 Service Unavailable")
    assert relay.count(is_put_of("no-such-bucket-503")) == 1  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.prefect
def test_a_model_call_answering_500_is_sent_the_clients_times_in_one_flow_run(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path
) -> None:
    """The analyzer answers 500 every time: one package-recording flow run sends its call exactly
    ITEM_MAX_ATTEMPTS (3) times, then the item fails naming the error."""
    source = write_variants(tmp_path / "in", 1, start=60)[0]
    fake_model.script("analyzer", {"status": 500, "error": "boom"})
    state = asyncio.run(package_recording(str(source), storage_url=(tmp_path / "store").as_uri(), return_state=True))
    assert state.is_failed()
    assert fake_model.calls("analyzer") == 3
    assert fake_model.calls("judge") == 0
    outcome = state.result(raise_on_failure=False)
    assert "HTTP 500" in (outcome.error or "") and "3 attempt" in (outcome.error or "")
