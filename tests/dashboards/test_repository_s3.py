"""The repository over s3:// against moto's S3 server on loopback (fsspec registered with DuckDB)."""

from __future__ import annotations

import io
import zipfile

import pytest

from dashboards.models import ItemQuery
from dashboards.repository import Repository
from rlauto_core.store import add_review, store_uploads
from rlauto_core.store.storage import open_storage
from tests.dashboards.conftest import UNICODE_INSTRUCTION, sample_specs
from tests.dashboards.index_builder import write_item
from tests.fixtures.s3 import MotoS3

# moto's S3 server starts for these (2-3 s per worker), as for tests/dataset/test_s3.py
pytestmark = pytest.mark.slow


@pytest.fixture
def s3_url(moto_s3: MotoS3) -> str:
    url = f"s3://{moto_s3.new_bucket()}/team/rlauto"
    storage = open_storage(url, **moto_s3.storage_options)
    for spec in sample_specs():
        write_item(storage, spec)
    return url


def test_an_empty_bucket_is_an_empty_index(moto_s3: MotoS3) -> None:
    repository = Repository(f"s3://{moto_s3.new_bucket()}/x", **moto_s3.storage_options)
    assert repository.list_jobs() == [] and repository.find_items(ItemQuery()).total == 0


def test_queries_reviews_files_and_bundles_over_s3(moto_s3: MotoS3, s3_url: str) -> None:
    repository = Repository(s3_url, **moto_s3.storage_options)
    assert {job.job_id: job.items for job in repository.list_jobs()} == {"job-a": 3, "job-b": 3}
    page = repository.find_items(ItemQuery(text="张伟"))
    assert [row.item_id for row in page.rows] == ["it-unicode"]
    assert [it.total for it in repository.get_iterations("job-a", "it-pass")] == [8, 11]
    item = repository.get_item("job-b", "it-unicode")
    assert item is not None
    assert repository.read_json(item.package_path or "")["task"]["instruction"] == UNICODE_INSTRUCTION

    add_review(repository.storage, "job-b", "it-unicode", "accept", "ana")
    add_review(repository.storage, "job-b", "it-unicode", "needs-work", "bob", "second thoughts")
    # persisted in the bucket: a repository opened afresh sees the newest decision
    fresh = Repository(s3_url, **moto_s3.storage_options)
    assert fresh.get_item("job-b", "it-unicode").decision == "needs-work"  # type: ignore[union-attr]
    assert len(fresh.storage.list("index/reviews")) == 2

    bundle = repository.job_bundle("job-a")
    with zipfile.ZipFile(io.BytesIO(bundle.data)) as archive:
        assert sorted(archive.namelist()) == ["it-full.task-package.zip", "it-pass.task-package.zip"]

    stored = store_uploads(repository.storage, [("rec.zip", b"PK\x03\x04x")], max_files=1, max_upload_mb=1)
    assert stored.uris[0] == f"{s3_url}/{stored.paths[0]}"
    assert fresh.storage.read_bytes(stored.paths[0]) == b"PK\x03\x04x"


def test_the_environment_alone_points_the_repository_at_s3(
    moto_s3: MotoS3, s3_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `rlauto dashboard` does: RLAUTO_STORAGE_URL plus the usual AWS_* variables."""
    monkeypatch.setenv("RLAUTO_STORAGE_URL", s3_url)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_s3.endpoint_url)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    # s3fs hands back filesystems cached by argument, whatever the environment says now: one
    # made earlier in this process for another S3 server would miss this one's buckets
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()
    repository = Repository.from_environment()
    assert repository.root_uri == s3_url
    assert repository.count_items() == 6
