"""A large store made fast: one recording packaged by the core loop, its package, judge result and
index row cloned under new item ids (each package padded with a large recorded response, as
real captures carry), written straight to disk. For the memory test and bench_dataset_export."""

from __future__ import annotations

import hashlib
import io
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rlauto_core.pipeline import index_rows
from rlauto_core.store import ITEMS_DIR, ITEMS_SCHEMA, Storage, layout, open_storage
from tests.conftest import EXAMPLES
from tests.dataset.store_builder import package_into

JOB = "job-large"


def build_large_store(root: Path, items: int, pad_bytes: int = 100_000) -> Storage:
    storage = open_storage(root.as_uri())
    seed = package_into(storage, "issue_tracker.zip", (EXAMPLES / "issue_tracker.zip").read_bytes(), JOB)
    package = json.loads(storage.read_bytes(layout.best_path(JOB, seed.item_id, "task-package")))
    judge = storage.read_bytes(layout.best_path(JOB, seed.item_id, "judge-result"))
    base_row = index_rows(seed)[0].model_dump()
    for n in range(items):
        sha = hashlib.sha256(f"clone-{n}".encode()).hexdigest()
        item = layout.item_id(sha, seed.options_hash)
        package["metadata"]["sourceSha256"] = sha
        package["task"]["subtasks"][0]["apiCalls"][0]["output"]["body"] = f"{n:08d}" + "x" * pad_bytes
        folder = root / layout.export_dir(JOB, item)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "task-package.json").write_text(json.dumps(package), encoding="utf-8")
        (folder / "judge-result.json").write_bytes(judge)
        row = {**base_row, "item_id": item, "source_sha256": sha, "source_name": f"clone-{n:05d}.zip",
               "package_path": layout.best_path(JOB, item, "task-package")}  # fmt: skip
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist([row], schema=ITEMS_SCHEMA), sink)
        index = root / ITEMS_DIR / f"job={JOB}" / f"{item}.parquet"
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_bytes(sink.getvalue())
    return storage


def peak_bytes(call: Callable[[], Any], repeats: int = 3) -> int:
    """The peak of Python allocations while `call` runs (what a whole-table export would grow),
    the least of `repeats` runs: tracemalloc counts every thread, and in a long test session
    other threads (log shippers, servers) allocate meanwhile; they only ever add."""
    peaks = []
    for _ in range(repeats):
        tracemalloc.start()
        try:
            call()
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    return min(peaks)


def read_everything(storage: Storage) -> list[bytes]:
    """The naive baseline: every package of the store held at once."""
    return [storage.read_bytes(p) for p in storage.glob("exports/*/*/task-package.json")]
