"""One plan, one read: a recording in a bucket is read twice by the entry point that plans the
batch (its hash, then its copy into `uploads/`), and its staged copy once by its item before
parsing (once more by the export, which packs the recording into `output.zip`). Counted on the
wire, as GETs through the relay in front of the S3 server."""

from __future__ import annotations

from pathlib import Path

import pytest

from flows.sdk import run_batch
from rlauto_core.config import RunOptions
from rlauto_core.store import open_storage
from tests.fakes.outage_relay import FaultRelay
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


def test_each_recording_is_read_once_from_where_it_was_staged(
    prefect_api_url: str, relay: FaultRelay, s3_url: str, offline: None, tmp_path: Path
) -> None:
    storage = open_storage(s3_url)
    sources = []
    for path in write_variants(tmp_path / "in", 2):
        storage.write_bytes(f"inbox/{path.name}", path.read_bytes())
        sources.append(storage.uri(f"inbox/{path.name}"))
    before = len(relay.requests)
    batch = run_batch(sources, RunOptions(offline=True), 2, storage_url=f"{s3_url}/store")
    assert [i.status for i in batch.items] == ["completed", "completed"]

    def gets(key: str) -> int:
        return sum(
            1 for method, target in relay.requests[before:] if method == "GET" and target.split("?")[0].endswith(key)
        )

    for source, item in zip(sources, batch.items, strict=True):
        upload = f"uploads/{item.job_id}/{item.item_id}.zip"
        assert gets(source.rsplit("/", 2)[-2] + "/" + source.rsplit("/", 1)[-1]) == 2  # the plan's hash, the staging
        assert gets(upload) == 2  # the item's one read before parsing, and the export's
