"""Storage on a local folder and on S3 (moto's server on loopback) behaves the same."""

from __future__ import annotations

import errno
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rlauto_core.package import package_file_name
from rlauto_core.store import ItemRow, IterationRow, append_item, read_table
from rlauto_core.store.index_schema import ITEMS_DIR, ITEMS_SCHEMA, ITERATIONS_DIR, ITERATIONS_SCHEMA
from rlauto_core.store.layout import batch_job_id, item_id, iteration_path
from rlauto_core.store.storage import FsspecStorage, is_transient_storage_error, open_storage
from tests.orchestration.backend import backend_files, leftover_temp_files
from tests.orchestration.conftest import S3Server


@pytest.fixture(params=["file", "s3"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> FsspecStorage:
    if request.param == "file":
        return open_storage((tmp_path / "store").as_uri())
    return open_storage(request.getfixturevalue("s3_url"))


def test_write_read_list_delete_round_trip(storage: FsspecStorage) -> None:
    """Bytes written come back identical; listing is relative to the root; delete removes."""
    storage.write_bytes("exports/j1/i1/evidence-iter-1.json", b'{"a": 1}')
    storage.write_bytes("exports/j1/i1/output.zip", b"PK\x03\x04zip")
    storage.write_bytes("uploads/j1/i1.zip", b"raw")
    assert storage.read_bytes("exports/j1/i1/output.zip") == b"PK\x03\x04zip"
    assert storage.exists("uploads/j1/i1.zip")
    assert not storage.exists("uploads/j1/missing.zip")
    assert storage.list("exports/j1") == [
        "exports/j1/i1/evidence-iter-1.json",
        "exports/j1/i1/output.zip",
    ]
    assert storage.glob("exports/j1/*/*.zip") == ["exports/j1/i1/output.zip"]
    storage.delete("exports/j1")
    assert storage.list("exports/j1") == []
    with pytest.raises(FileNotFoundError):
        storage.read_bytes("exports/j1/i1/output.zip")


def test_overwrite_is_whole(storage: FsspecStorage) -> None:
    """A reader racing a writer sees the old or the new content, never a mix."""
    old, new = b"o" * 300_000, b"n" * 300_000
    storage.write_bytes("x/blob.bin", old)
    seen: set[bytes] = set()
    stop = threading.Event()

    def read_loop() -> None:
        while not stop.is_set():
            data = storage.read_bytes("x/blob.bin")
            seen.add(data[:1] + data[-1:] + str(len(data)).encode())

    reader = threading.Thread(target=read_loop)
    reader.start()
    for i in range(6):
        storage.write_bytes("x/blob.bin", new if i % 2 == 0 else old)
    stop.set()
    reader.join()
    assert seen <= {b"oo300000", b"nn300000"}
    assert backend_files(storage, "x") == ["x/blob.bin"]  # no temp file left beside it
    assert leftover_temp_files(storage, "x") == []


def test_the_backend_listing_sees_temp_files_that_list_hides(storage: FsspecStorage) -> None:
    """The check above can fail: a temp file left by a crashed writer shows in the backend
    listing, not in `list`."""
    storage.write_bytes("x/blob.bin", b"1")
    storage.fs.pipe_file(storage.full_path("x/.blob.bin.0123abcd.tmp"), b"half")
    assert storage.list("x") == ["x/blob.bin"]
    assert leftover_temp_files(storage, "x") == ["x/.blob.bin.0123abcd.tmp"]


def test_a_failed_local_write_leaves_no_temp_file(tmp_path: Path) -> None:
    storage = open_storage((tmp_path / "store").as_uri())
    storage.write_bytes("x/blob.bin", b"old")
    with pytest.raises(TypeError):
        storage.write_bytes("x/blob.bin", "not bytes")  # type: ignore[arg-type]  # fails mid-write
    assert storage.read_bytes("x/blob.bin") == b"old"
    assert backend_files(storage, "x") == ["x/blob.bin"]


def test_create_exclusive_has_one_winner(storage: FsspecStorage) -> None:
    """Of many racing claims on one name exactly one wins, and its content is what is stored."""
    with ThreadPoolExecutor(8) as pool:
        wins = list(pool.map(lambda n: storage.create_exclusive("claims/h/abc.json", str(n).encode()), range(8)))
    assert wins.count(True) == 1
    assert storage.read_bytes("claims/h/abc.json") == str(wins.index(True)).encode()


def test_path_may_not_escape_root(storage: FsspecStorage) -> None:
    with pytest.raises(ValueError, match="under the root"):
        storage.write_bytes("../outside.txt", b"x")


def test_index_rows_append_and_read_back(storage: FsspecStorage) -> None:
    """Each finished item adds files; nothing is rewritten; rows read back under the schema."""
    row = ItemRow(
        job_id="j",
        item_id="i",
        source_name="a.zip",
        source_sha256="s",
        options_hash="o",
        status="completed",
        verdict="PASS",
        total_score=11,
        flag_codes=["noise_tools_present"],
    )
    iters = [IterationRow(job_id="j", item_id="i", iteration=1, total=11, instruction_clarity=2)]
    first = append_item(storage, row, iters)
    second = append_item(storage, row.model_copy(update={"status": "failed"}), iters)
    assert set(first).isdisjoint(second)
    items = read_table(storage, ITEMS_DIR, ITEMS_SCHEMA)
    assert sorted(items.column("status").to_pylist()) == ["completed", "failed"]
    assert items.column("flag_codes").to_pylist()[0] == ["noise_tools_present"]
    iterations = read_table(storage, ITERATIONS_DIR, ITERATIONS_SCHEMA)
    assert iterations.column("instruction_clarity").to_pylist() == [2, 2]


@pytest.mark.slow
def test_s3_outage_mid_writes_is_retried_and_nothing_lost(s3_server: S3Server, s3_url: str) -> None:
    """The S3 endpoint goes away for 3 s during a stream of writes: every write lands."""
    storage = open_storage(s3_url)
    storage.write_bytes("warm/up.txt", b"1")
    written: list[str] = []
    timings: list[tuple[str, float, float]] = []
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for n in range(30):
                path = f"exports/j/i/snap-{n}.json"
                start = time.monotonic()
                storage.write_bytes(path, f'{{"n": {n}}}'.encode())
                timings.append((path, start, time.monotonic()))
                written.append(path)
                time.sleep(0.1)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.5)
    down_at = time.monotonic()
    s3_server.relay.outage(3.0)
    thread.join(timeout=60)
    assert not errors
    assert len(written) == 30
    # the outage hit a write: one began before the endpoint came back and ended after it (it
    # could only succeed once the endpoint was up again)
    up_at = s3_server.relay.last_up_at
    assert up_at is not None and up_at - down_at >= 2.9
    spanning = [path for path, start, end in timings if start < up_at < end]
    assert spanning, f"no write overlapped the outage {down_at:.1f}..{up_at:.1f}: {timings[:3]}..."
    assert storage.list("exports/j/i") == sorted(written)
    assert storage.read_bytes("exports/j/i/snap-29.json") == b'{"n": 29}'


def test_transient_classification() -> None:
    assert is_transient_storage_error(ConnectionRefusedError())
    assert is_transient_storage_error(TimeoutError())
    assert not is_transient_storage_error(FileNotFoundError("x"))
    assert not is_transient_storage_error(ValueError("bad"))


def s3_error(code: str, status: int, message: str, operation: str = "PutObject") -> BaseException:
    """What a storage call sees when S3 answers `status`/`code`: botocore's ClientError, turned into
    an OSError by s3fs exactly as s3fs does it (the ClientError kept as its cause)."""
    from botocore.exceptions import ClientError
    from s3fs.errors import translate_boto_error

    answer = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}}
    return translate_boto_error(ClientError(answer, operation))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("code", "status"),
    [("SlowDown", 503), ("ServiceUnavailable", 503), ("InternalError", 500), ("RequestTimeout", 400),
     ("503", 503), ("Whatever", 502), ("ThrottlingException", 400)],
)  # fmt: skip
def test_s3_answers_that_say_try_again_are_transient(code: str, status: int) -> None:
    assert is_transient_storage_error(s3_error(code, status, "please reduce your request rate"))


@pytest.mark.parametrize(
    ("code", "status"),
    [("InvalidArgument", 400), ("NoSuchKey", 404), ("AccessDenied", 403), ("InvalidRequest", 400),
     ("EntityTooLarge", 400), ("NoSuchBucket", 404)],
)  # fmt: skip
def test_s3_answers_naming_a_file_like_a_status_are_not_transient(code: str, status: int) -> None:
    """A key that looks like a 5xx status (`it-503abc`, `500 days.json`) is no reason to retry:
    the S3 answer's code decides, not the message text."""
    for key in ("exports/it-503abc/item.json", "uploads/j/500 days-502.zip"):
        exc = s3_error(code, status, f"Invalid key {key}: SlowDown InternalError ServiceUnavailable")
        assert key in str(exc)
        assert not is_transient_storage_error(exc), (code, key)


def test_errors_without_an_s3_answer_are_not_transient_by_their_text() -> None:
    assert not is_transient_storage_error(OSError(errno.EIO, "could not write exports/it-503abc/item.json"))
    assert not is_transient_storage_error(OSError(errno.EINVAL, "bad key 500 ServiceUnavailable SlowDown"))
    assert is_transient_storage_error(OSError(errno.ECONNRESET, "exports/it-503abc/item.json"))


def test_ids_are_stable_and_distinct() -> None:
    assert item_id("sha", "opt") == item_id("sha", "opt")
    assert item_id("sha", "opt") != item_id("sha", "opt2")
    assert batch_job_id(["b", "a"]) == batch_job_id(["a", "b", "a"])
    assert iteration_path("j", "i", "judge-result", 2) == "exports/j/i/judge-result-iter-2.json"
    assert package_file_name("dir/rec_1.zip") == "rec_1.task-package.zip"
