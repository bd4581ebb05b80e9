"""Large files are streamed into storage, never built whole in memory (issue 15, item 4).

The bound is a ratio: the peak of Python allocations (tracemalloc) while a file is written, over
the file's size. Holding the file once is a ratio of 1 or more; streaming holds a few blocks.
"""

from __future__ import annotations

import hashlib
import io
import os
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.config.options import RunOptions
from rlauto_core.package import TaskPackage
from rlauto_core.pipeline import BatchOutcome, ItemOutcome, plan_batch
from rlauto_core.store import layout, stage_recording
from rlauto_core.store.storage import FsspecStorage, open_storage
from tasks.recording_tasks import export
from tasks.storage_io import bundle_all_results
from tests.orchestration.backend import backend_files

MiB = 1024 * 1024
# a streamed write holds a few 1 MiB copy blocks (and, on S3, one 8 MiB part): well under this
# share of a file of 24 MiB or more; a write that builds the file in memory holds all of it
MAX_SHARE = 0.5


def peak_share(work: Callable[[], Any], size: int) -> float:
    tracemalloc.start()
    try:
        work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / size


def package_zip(n: int, size: int) -> bytes:
    """A package-like ZIP of `size` random bytes (stored: it does not shrink)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("task.json", f'{{"n": {n}}}')
        archive.writestr("screen-recording.webm", os.urandom(size))
    return out.getvalue()


def completed(job: str, n: int, storage: FsspecStorage, **fields: Any) -> ItemOutcome:
    return ItemOutcome(job_id=job, item_id=f"it-{n:04d}", source=f"rec-{n}.zip", source_name=f"rec-{n}.zip",
                       status="completed", storage_url=storage.url, **fields)  # fmt: skip


def stored_batch(storage: FsspecStorage, members: int, size: int) -> tuple[BatchOutcome, dict[str, bytes]]:
    job, items, packages = "job-stream", [], {}
    for n in range(members):
        path = layout.output_zip_path(job, f"it-{n:04d}")
        packages[f"rec-{n}.task-package.zip"] = data = package_zip(n, size)
        storage.write_bytes(path, data)
        items.append(completed(job, n, storage, output_zip_path=path))
    return BatchOutcome(job_id=job, status="completed", storage_url=storage.url, items=items), packages


def check_bundle(storage: FsspecStorage, path: str, packages: dict[str, bytes]) -> None:
    with storage.open_read(path) as handle, zipfile.ZipFile(io.BytesIO(handle.read())) as bundle:
        assert sorted(bundle.namelist()) == sorted(packages)
        for name, data in packages.items():
            assert bundle.read(name) == data  # byte-identical members


def test_the_job_bundle_is_streamed_into_storage(tmp_path: Path) -> None:
    """The batch's `all-results` bundle of 6 packages (24 MiB): the task holds a fraction of it."""
    storage = open_storage((tmp_path / "store").as_uri())
    batch, packages = stored_batch(storage, members=6, size=4 * MiB)
    total = sum(map(len, packages.values()))
    written: list[str | None] = []
    share = peak_share(lambda: written.append(bundle_all_results.fn(storage.url, batch)), total)
    assert written == [layout.all_results_path(batch.job_id)]
    assert share < MAX_SHARE, f"the bundle write held {share:.2f} of the bundle's size"
    check_bundle(storage, layout.all_results_path(batch.job_id), packages)


EXAMPLE = Path(__file__).parents[2] / "examples" / "recordings" / "project_board_firefox.zip"


def big_recording(path: Path, size: int) -> Path:
    source = zipfile.ZipFile(EXAMPLE)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            out.writestr(info, source.read(info))
        out.writestr(zipfile.ZipInfo("screen-recording.webm"), os.urandom(size), zipfile.ZIP_STORED)
    return path


def test_a_recording_is_hashed_staged_and_exported_streaming(tmp_path: Path) -> None:
    """A 24 MiB recording: planning hashes it, staging copies it into `uploads/`, the export
    writes its `output.zip`, each holding a fraction of it; the attachment arrives byte for byte."""
    recording = big_recording(tmp_path / "big.zip", 24 * MiB)
    size = recording.stat().st_size
    storage = open_storage((tmp_path / "store").as_uri())
    plans: list[Any] = []
    shares = {"plan": peak_share(lambda: plans.append(plan_batch([str(recording)], RunOptions(), max_files=5,
                                                                 max_upload_mb=100)), size)}  # fmt: skip
    item = plans[0].items[0]
    assert item.source_sha256 == hashlib.sha256(recording.read_bytes()).hexdigest() and item.size == size
    shares["stage"] = peak_share(
        lambda: stage_recording(storage, item.source, item.upload_path, item.source_sha256, 100), size
    )
    assert storage.read_bytes(item.upload_path) == recording.read_bytes()
    outcome = completed(item.job_id, 0, storage).model_copy(update={"item_id": item.item_id})
    # once on a small recording first: the index rows import pyarrow's pandas support once per
    # process (24 MB of module objects), which is no part of the export's own memory
    small = plan_batch([str(EXAMPLE)], RunOptions(), max_files=5, max_upload_mb=100).items[0]
    stage_recording(storage, small.source, small.upload_path, small.source_sha256, 100)
    export(small, completed(small.job_id, 1, storage).model_copy(update={"item_id": small.item_id}),
              TaskPackage(), "", False)  # fmt: skip
    done: list[ItemOutcome] = []
    shares["export"] = peak_share(lambda: done.append(export(item, outcome, TaskPackage(), "", False)), size)
    assert done[0].output_zip_path == layout.output_zip_path(item.job_id, item.item_id)
    with storage.open_read(done[0].output_zip_path) as handle, zipfile.ZipFile(io.BytesIO(handle.read())) as out:
        assert out.read("screen-recording.webm") == zipfile.ZipFile(recording).read("screen-recording.webm")
    assert all(share < MAX_SHARE for share in shares.values()), shares


@pytest.fixture(params=["file", pytest.param("s3", marks=pytest.mark.slow)])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> FsspecStorage:
    if request.param == "file":
        return open_storage((tmp_path / "store").as_uri())
    return open_storage(request.getfixturevalue("s3_url"))


def test_a_streamed_write_round_trips_byte_identical(storage: FsspecStorage) -> None:
    """20 MiB (on S3 a multipart upload of three parts) read back identical, streamed or whole."""
    data = os.urandom(20 * MiB + 123)
    storage.write_stream(
        "exports/j/big.bin", lambda out: [out.write(data[i : i + MiB]) for i in range(0, len(data), MiB)]
    )
    assert storage.read_bytes("exports/j/big.bin") == data
    with storage.open_read("exports/j/big.bin") as handle:
        assert hashlib.sha256(handle.read()).digest() == hashlib.sha256(data).digest()
    assert backend_files(storage, "exports/j") == ["exports/j/big.bin"]


class Interrupted(Exception):
    pass


def test_a_write_failing_midway_leaves_the_old_file_and_nothing_else(storage: FsspecStorage) -> None:
    """A write that fails after 20 MiB (on S3: parts already uploaded) leaves the earlier file
    as it was and no temp file, no object, no pending multipart upload behind it. The listing
    checked is the backend's own, which shows `.tmp` files."""
    storage.write_bytes("exports/j/output.zip", b"the earlier package")

    def fails_midway(out: Any) -> None:
        for _ in range(20):
            out.write(os.urandom(MiB))
        raise Interrupted("the producer died")

    with pytest.raises(Interrupted), storage.open_write("exports/j/output.zip") as out:
        fails_midway(out)
    with pytest.raises(Interrupted):
        storage.write_stream("exports/j/new.zip", fails_midway)
    assert storage.read_bytes("exports/j/output.zip") == b"the earlier package"
    assert backend_files(storage, "exports") == ["exports/j/output.zip"]
    if storage.fs.protocol not in ("file", ("file", "local")):
        import boto3

        bucket = storage.root.split("/", 1)[0]
        uploads = boto3.client("s3").list_multipart_uploads(Bucket=bucket).get("Uploads", [])
        assert uploads == [], [u["Key"] for u in uploads]


@pytest.mark.slow
def test_the_multipart_check_can_fail(s3_url: str) -> None:
    """The check above sees an upload left pending (a write abandoned without an abort)."""
    import boto3

    storage = open_storage(s3_url)
    handle = storage.fs.open(storage.full_path("exports/j/left.zip"), "wb", block_size=5 * MiB)
    handle.write(os.urandom(6 * MiB))
    handle.flush()  # the first part is uploaded: a multipart upload is pending
    bucket = storage.root.split("/", 1)[0]
    try:
        uploads = boto3.client("s3").list_multipart_uploads(Bucket=bucket).get("Uploads", [])
        assert [u["Key"] for u in uploads] == [storage.full_path("exports/j/left.zip").split("/", 1)[1]]
    finally:
        handle.discard()
        handle.closed = True


@pytest.mark.slow
def test_s3_bundle_round_trips(s3_url: str) -> None:
    storage = open_storage(s3_url)
    batch, packages = stored_batch(storage, members=3, size=4 * MiB)
    path = bundle_all_results.fn(storage.url, batch)
    assert path is not None
    check_bundle(storage, path, packages)
    assert backend_files(storage, f"exports/{batch.job_id}") == sorted(
        [*(i.output_zip_path for i in batch.items if i.output_zip_path), path]
    )


@pytest.mark.slow
def test_an_item_export_on_s3_is_byte_identical_to_the_local_one(s3_url: str, tmp_path: Path) -> None:
    """The same recording staged and exported on S3 and on a local disk: the same upload and the
    same `output.zip`, byte for byte, and nothing else beside them on S3."""
    recording = big_recording(tmp_path / "big.zip", 12 * MiB)
    written = {}
    for name, storage in (("file", open_storage((tmp_path / "store").as_uri())), ("s3", open_storage(s3_url))):
        item = plan_batch([str(recording)], RunOptions(), max_files=5, max_upload_mb=100).items[0]
        stage_recording(storage, item.source, item.upload_path, item.source_sha256, 100)
        outcome = completed(item.job_id, 0, storage).model_copy(update={"item_id": item.item_id})
        done = export(item, outcome, TaskPackage(), "", False)
        assert done.output_zip_path is not None
        written[name] = (storage.read_bytes(item.upload_path), storage.read_bytes(done.output_zip_path))
        if name == "s3":
            left = [p for p in backend_files(storage, "") if not p.startswith("index/")]
            assert left == sorted(
                [item.upload_path, done.output_zip_path, layout.item_outcome_path(item.job_id, item.item_id)]
            )
    assert written["s3"] == written["file"]
    assert written["s3"][0] == recording.read_bytes()
