"""The export on the moto S3 server: a store the core loop wrote to a bucket, exported to a local
folder and to the bucket itself; a brief outage is ridden out, a lasting one is one error line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import s3fs

from rlauto_core.dataset import DatasetError, ExportOptions, export_dataset, open_source_storage
from rlauto_core.store import add_review, open_storage
from tests.dataset.conftest import MAIN
from tests.dataset.helpers import parquet_rows
from tests.dataset.store_builder import CANARIES, CANARY_AUTH, CANARY_COOKIE, package_into, with_task
from tests.orchestration.conftest import S3Server

pytestmark = pytest.mark.slow  # moto's server, and the core loop writing through it


def _fill(url: str) -> dict[str, str]:
    storage = open_storage(url)
    items = {}
    for name, data in (
        ("slack.zip", with_task("slack_incident_channel.zip", {})),
        (
            "tracker_canary.zip",
            with_task("issue_tracker.zip", {}, {"Authorization": CANARY_AUTH, "Cookie": CANARY_COOKIE}),
        ),
        ("broken.zip", b"not a zip"),
    ):
        items[name] = package_into(storage, name, data, MAIN).item_id
    add_review(storage, MAIN, items["slack.zip"], "accept", "ana")
    return items


def test_export_from_a_bucket_to_a_folder_and_to_the_bucket(s3_url: str, tmp_path: Path) -> None:
    items = _fill(s3_url)
    storage = open_source_storage(s3_url)
    summary = export_dataset(storage, str(tmp_path / "ds"), ExportOptions())
    rows = parquet_rows(tmp_path / "ds")
    assert sorted(r["source_name"] for r in rows) == ["slack.zip", "tracker_canary.zip"]
    assert [(s.source_name, s.reason) for s in summary.skipped] == [("broken.zip", "no package")]
    assert next(r for r in rows if r["item_id"] == items["slack.zip"])["review_decision"] == "accept"
    text = json.dumps(rows, default=str)
    assert all(canary not in text for canary in CANARIES)

    out = f"{s3_url}/datasets/accepted"
    export_dataset(storage, out, ExportOptions(only_accepted=True))
    fs = s3fs.S3FileSystem()
    bucket_path = out.removeprefix("s3://")
    assert sorted(p.rsplit("/", 1)[-1] for p in fs.ls(bucket_path)) == ["README.md", "tasks.parquet"]
    table = pq.read_table(io.BytesIO(fs.cat_file(f"{bucket_path}/tasks.parquet")))
    assert table.column("item_id").to_pylist() == [items["slack.zip"]]
    assert "- only accepted: yes" in fs.cat_file(f"{bucket_path}/README.md").decode()
    # the index still reads as before: the dataset under the storage root is no index file
    assert export_dataset(storage, str(tmp_path / "again"), ExportOptions()).rows == 2


def test_a_brief_outage_is_ridden_out(s3_server: S3Server, s3_url: str, tmp_path: Path) -> None:
    _fill(s3_url)
    s3_server.relay.outage(2.0)
    summary = export_dataset(open_source_storage(s3_url), str(tmp_path / "ds"), ExportOptions())
    assert summary.rows == 2


def test_an_unreachable_store_is_one_clear_error(
    s3_server: S3Server, s3_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(s3_url)
    # botocore's own attempts inside each of the store's retries: one, so the test waits ~20 s, not 90
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    s3fs.S3FileSystem.clear_instance_cache()
    s3_server.relay.down()
    try:
        with pytest.raises(DatasetError, match=r"storage cannot be read \(") as caught:
            export_dataset(open_source_storage(s3_url), str(tmp_path / "ds"), ExportOptions())
    finally:
        s3_server.relay.up()
        s3fs.S3FileSystem.clear_instance_cache()
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "ds").exists()  # nothing made before the store answered
