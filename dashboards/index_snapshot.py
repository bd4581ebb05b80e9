"""An in-memory copy of the parquet index that grows by the files added since the last look.

Why: the pipeline writes one small parquet file per finished item and table, so a cold DuckDB
scan of 10k items opens 20k files and takes seconds. The snapshot lists the index folders (at
most every `refresh_seconds`), reads only files it has not seen (a few at a time: an object
store answers each read in milliseconds), and keeps the
rows as Arrow tables. Everything goes through the `Storage` protocol (list and read), so any
storage the pipeline writes to is one the dashboard reads. It also materializes the "latest wins" views once per change, so each
page query is a short-lived DuckDB connection over a few thousand in-memory rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from dashboards import snapshot_cache
from rlauto_core.store import (
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
    Storage,
)

INDEX_ROOT = "index"
READERS = 8  # index files read at once
CACHE_AFTER_FILES = 200  # rewrite the local cache once this many new index files were read
TABLES: dict[str, tuple[str, pa.Schema]] = {
    "items_raw": (ITEMS_DIR, ITEMS_SCHEMA),
    "iterations_raw": (ITERATIONS_DIR, ITERATIONS_SCHEMA),
    "reviews_raw": (REVIEWS_DIR, REVIEWS_SCHEMA),
}

# One item = its newest row.
ITEMS_BASE_SQL = """
SELECT * EXCLUDE (filename) FROM items_raw
QUALIFY row_number() OVER (
    PARTITION BY job_id, item_id
    ORDER BY finished_at DESC NULLS LAST, started_at DESC NULLS LAST, filename DESC) = 1
"""

# ... with its newest review as the decision (reviews are never rewritten, only added).
ITEMS_REVIEWED_SQL = """
WITH latest_reviews AS (
    SELECT job_id, item_id, decision, reviewer, comment AS review_comment, created_at AS reviewed_at
    FROM reviews_raw
    QUALIFY row_number() OVER (
        PARTITION BY job_id, item_id ORDER BY created_at DESC NULLS LAST, filename DESC) = 1
)
SELECT i.*, r.decision, r.reviewer, r.review_comment, r.reviewed_at
FROM items_base i LEFT JOIN latest_reviews r USING (job_id, item_id)
"""

# An iteration = its newest row; a re-run that used fewer iterations hides the older extra ones.
ITERATIONS_LATEST_SQL = """
SELECT it.* EXCLUDE (filename) FROM iterations_raw it
LEFT JOIN items_base i USING (job_id, item_id)
WHERE i.iterations_used IS NULL OR it.iteration <= i.iterations_used
QUALIFY row_number() OVER (
    PARTITION BY it.job_id, it.item_id, it.iteration
    ORDER BY it.created_at DESC NULLS LAST, it.filename DESC) = 1
"""


def _empty(schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist([], schema=schema.append(pa.field("filename", pa.string())))


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Exactly the contract's columns (+ filename): extra ones dropped, missing ones null."""
    columns = []
    for column in schema:
        if column.name in table.column_names:
            columns.append(table.column(column.name).cast(column.type))
        else:
            columns.append(pa.nulls(table.num_rows, type=column.type))
    columns.append(table.column("filename").cast(pa.string()))
    return pa.Table.from_arrays(columns, schema=schema.append(pa.field("filename", pa.string())))


@dataclass
class SnapshotTables:
    """Arrow tables a query registers in its own DuckDB connection."""

    items: pa.Table  # latest row per item, with its latest review
    iterations: pa.Table  # latest row per item iteration
    reviews: pa.Table  # every review ever written
    files: dict[str, int]
    unreadable: list[str]

    def as_views(self) -> dict[str, pa.Table]:
        return {"items": self.items, "iterations": self.iterations, "reviews": self.reviews}


@dataclass
class _TableState:
    seen: set[str] = field(default_factory=set)
    chunks: list[pa.Table] = field(default_factory=list)


class IndexSnapshot:
    """Thread-safe: one snapshot serves every Streamlit session of a process."""

    def __init__(self, storage: Storage, refresh_seconds: float = 5.0, cache_dir: Path | None = None) -> None:
        self._storage = storage
        self._cache = None if cache_dir is None else snapshot_cache.cache_folder(cache_dir, storage.url)
        self._unsaved = 0
        self._refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._state = {name: _TableState() for name in TABLES}
        self._unreadable: set[str] = set()
        self._checked_at = float("-inf")
        self._tables: SnapshotTables | None = None
        self._items_base = _empty(ITEMS_SCHEMA)

    def invalidate(self) -> None:
        """Make the next call look at storage again (after this process wrote to the index)."""
        with self._lock:
            self._checked_at = float("-inf")

    def tables(self) -> SnapshotTables:
        with self._lock:
            now = time.monotonic()
            if self._tables is None or now - self._checked_at >= self._refresh_seconds:
                if self._tables is None and self._cache is not None:
                    self._restore_cache()
                changed = self._load_new_files()
                if changed or self._tables is None:
                    self._tables = self._derive(changed)
                self._checked_at = time.monotonic()
            return self._tables

    def _load_new_files(self) -> set[str]:
        """Read the index files not seen yet; returns the tables that changed."""
        changed: set[str] = set()
        # one listing of index/ (one paginated LIST on an object store) serves all three tables
        everything = [p for p in self._storage.list(INDEX_ROOT) if p.endswith(".parquet")]
        for name, (folder, schema) in TABLES.items():
            state = self._state[name]
            listed = {p for p in everything if p.startswith(folder + "/")}
            gone = state.seen - listed
            if gone:  # files are never deleted by the pipeline, but a person may clean up
                state.chunks = [self._drop_files(c, gone) for c in state.chunks]
                state.seen -= gone
                changed.add(name)
            # a file that could not be read is tried again at every refresh: a short outage of the
            # object store must not hide its items until the dashboard restarts
            new = sorted(listed - state.seen)
            if new:
                # one contiguous chunk: DuckDB scans an Arrow table of 10k one-row batches 10x slower
                chunk, read = self._read(new, schema)
                if chunk.num_rows:
                    state.chunks.append(chunk.combine_chunks())
                state.seen.update(read)
                self._unsaved += len(read)
                if read:
                    changed.add(name)
        return changed

    def _restore_cache(self) -> None:
        assert self._cache is not None
        schemas = {name: _empty(schema).schema for name, (_, schema) in TABLES.items()}
        for name, (seen, table) in snapshot_cache.load(self._cache, self._storage.url, schemas).items():
            self._state[name] = _TableState(seen=seen, chunks=[table] if table.num_rows else [])

    def _save_cache(self) -> None:
        assert self._cache is not None
        tables = {
            name: (state.seen, state.chunks[0] if state.chunks else _empty(TABLES[name][1]))
            for name, state in self._state.items()
        }
        try:
            snapshot_cache.save(self._cache, self._storage.url, tables)
            self._unsaved = 0
        except OSError:
            pass  # a cache that cannot be written only costs the next start some time

    def _drop_files(self, chunk: pa.Table, gone: set[str]) -> pa.Table:
        keep = [f not in gone for f in chunk.column("filename").to_pylist()]
        return chunk.filter(pa.array(keep))

    def _read(self, paths: Sequence[str], schema: pa.Schema) -> tuple[pa.Table, list[str]]:
        """The rows of the files that could be read, and which those were; the others are
        remembered as unreadable until a later refresh reads them."""
        with ThreadPoolExecutor(max_workers=READERS) as pool:
            tables = list(pool.map(lambda p: self._read_one(p, schema), paths))
        read = [p for p, table in zip(paths, tables, strict=True) if table is not None]
        self._unreadable.difference_update(read)
        self._unreadable.update(p for p, table in zip(paths, tables, strict=True) if table is None)
        good = [table for table in tables if table is not None]
        return (pa.concat_tables(good) if good else _empty(schema)), read

    def _read_one(self, path: str, schema: pa.Schema) -> pa.Table | None:
        try:
            table = pq.read_table(pa.BufferReader(self._storage.read_bytes(path)))
        except Exception:  # broken, half-copied or briefly unreachable: tried again later
            return None
        return _conform(table.append_column("filename", pa.array([path] * table.num_rows, pa.string())), schema)

    def _derive(self, changed: set[str]) -> SnapshotTables:
        """Recompute only what depends on the changed tables (a new review: just the join)."""
        raw: dict[str, pa.Table] = {}
        for name, state in self._state.items():
            if len(state.chunks) > 1:  # many small refreshes would slow every scan down again
                state.chunks = [pa.concat_tables(state.chunks).combine_chunks()]
            raw[name] = state.chunks[0] if state.chunks else _empty(TABLES[name][1])
        previous = self._tables
        con = duckdb.connect(":memory:")
        try:
            for name, table in raw.items():
                con.register(name, table)
            if previous is None or "items_raw" in changed:
                self._items_base = con.sql(ITEMS_BASE_SQL).to_arrow_table()
            con.register("items_base", self._items_base)
            if previous is None or changed & {"items_raw", "iterations_raw"}:
                iterations = con.sql(ITERATIONS_LATEST_SQL).to_arrow_table()
            else:
                iterations = previous.iterations
            items = con.sql(ITEMS_REVIEWED_SQL).to_arrow_table()
            # `written`: the order the review files were written in (their names start with a
            # microsecond stamp), to tell apart two reviews of the same millisecond
            reviews = con.sql(
                "SELECT * EXCLUDE (filename), row_number() OVER (ORDER BY filename) AS written FROM reviews_raw"
            ).to_arrow_table()
        finally:
            con.close()
        if self._cache is not None and self._unsaved >= CACHE_AFTER_FILES:
            self._save_cache()  # after _derive's merge: one chunk per table
        return SnapshotTables(
            items=items,
            iterations=iterations,
            reviews=reviews,
            files={name.removesuffix("_raw"): len(state.seen) for name, state in self._state.items()},
            unreadable=sorted(self._unreadable),
        )
