"""The inbox packages each recording exactly once, even when a scan dies between claim and run
(a real scan process killed with SIGKILL) or a claim's answer is lost on the way back."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowFilter, FlowFilterName

from flows import scan_inbox
from rlauto_core.store import Claim, open_storage
from tests.conftest import REPO_ROOT
from tests.fakes.outage_relay import FaultRelay
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


def item_runs(name: str, storage_url: str) -> list[Any]:
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])))
    return [r for r in runs if r.name == name and r.parameters.get("storage_url") == storage_url]


@pytest.fixture(params=["file", "s3"])
def storage_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "file":
        return (tmp_path / "store").as_uri()
    return str(request.getfixturevalue("s3_url"))


def start_scan(inbox: Path, storage_url: str, lease_seconds: float, cwd: Path) -> subprocess.Popen[bytes]:
    code = (
        "import asyncio, sys\n"
        "from flows import scan_inbox\n"
        "asyncio.run(scan_inbox(sys.argv[1], storage_url=sys.argv[2], lease_seconds=float(sys.argv[3])))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    log = (cwd / "scan.log").open("wb")
    return subprocess.Popen([sys.executable, "-c", code, inbox.as_uri(), storage_url, str(lease_seconds)],
                            cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)  # fmt: skip


def test_a_scan_killed_between_claim_and_run_leaves_the_recording_to_the_next_scan(
    prefect_api_url: str, offline: None, storage_url: str, tmp_path: Path
) -> None:
    """SIGKILL of the scan process as soon as its claim is stored: while the lease runs no other
    scan takes the recording; once it expired the next scan packages it; a later scan finds
    nothing new. One flow run of the recording, one package."""
    inbox = tmp_path / "inbox"
    name = write_variants(inbox, 1, start=70)[0].name
    storage = open_storage(storage_url)
    scan = start_scan(inbox, storage_url, 20.0, tmp_path)
    deadline = time.monotonic() + 120
    try:
        while not storage.list("claims"):
            assert scan.poll() is None, (tmp_path / "scan.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the scan never claimed the recording"
            time.sleep(0.02)
        scan.send_signal(signal.SIGKILL)
        scan.wait(timeout=30)
    finally:
        if scan.poll() is None:
            scan.kill()
    assert storage.list("exports") == [] or not storage.glob("exports/*/*/item.json")  # killed before its run
    (path,) = storage.list("claims")
    orphan = Claim.model_validate_json(storage.read_bytes(path))
    assert not orphan.done

    assert asyncio.run(scan_inbox(inbox.as_uri(), storage_url=storage_url)) is None  # its lease still runs
    time.sleep(max(0.0, (orphan.expires_at - datetime.now(UTC)).total_seconds()) + 0.5)
    batch = asyncio.run(scan_inbox(inbox.as_uri(), storage_url=storage_url))
    assert batch is not None and [(i.source_name, i.status) for i in batch.items] == [(name, "completed")]
    assert asyncio.run(scan_inbox(inbox.as_uri(), storage_url=storage_url)) is None

    assert len(storage.glob("exports/*/*/output.zip")) == 1
    assert len(item_runs(name, storage_url)) == 1  # the killed scan never started the item's run
    claims = [Claim.model_validate_json(storage.read_bytes(p)) for p in storage.list("claims")]
    assert [(c.owner == orphan.owner, c.done) for c in claims] == [(True, False), (False, True)]


def test_a_claim_that_landed_but_whose_answer_was_lost_is_ours(
    prefect_api_url: str, offline: None, relay: FaultRelay, s3_url: str, tmp_path: Path
) -> None:
    """The claim's PUT reaches S3 and its answer is cut: the storage layer repeats it, S3 says
    "already exists", and the scan reads the owner back and knows the claim is its own."""
    inbox = tmp_path / "inbox"
    name = write_variants(inbox, 1, start=75)[0].name
    relay.lose_answers(lambda method, target: method == "PUT" and "/claims/" in target, times=1)
    batch = asyncio.run(scan_inbox(inbox.as_uri(), storage_url=s3_url))
    assert relay.faulted, "no claim answer was lost"
    assert batch is not None and [(i.source_name, i.status) for i in batch.items] == [(name, "completed")]
    claim_puts = [t for m, t in relay.requests if m == "PUT" and "/claims/" in t]
    assert len(claim_puts) >= 2  # the lost one and the repeat that found it there
    assert asyncio.run(scan_inbox(inbox.as_uri(), storage_url=s3_url)) is None
