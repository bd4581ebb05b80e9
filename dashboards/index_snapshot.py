"""An in-memory copy of the parquet index that grows by the files added since the last look.

Why: the pipeline writes one small parquet file per finished item and table, so a cold DuckDB
scan of 10k items opens 20k files and takes seconds. The snapshot lists the index folders (at
most every `refresh_seconds`), reads only files it has not seen (DuckDB `read_parquet` over a
bound list of paths, through the registered fsspec filesystem for object stores), and keeps the
rows as Arrow tables. It also materializes the "latest wins" views once per change, so each
page query is a short-lived DuckDB connection over a few thousand in-memory rows.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from dashboards import snapshot_cache
from rlauto_core.store.index_schema import (
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.store.storage import FsspecStorage

INDEX_ROOT = "index"
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


def _protocols(storage: FsspecStorage) -> tuple[str, ...]:
    protocol = storage.fs.protocol
    return (protocol,) if isinstance(protocol, str) else tuple(protocol)


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

    def __init__(self, storage: FsspecStorage, refresh_seconds: float = 5.0, cache_dir: Path | None = None) -> None:
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
        everything = [p for p in self._list_index() if p.endswith(".parquet")]
        for name, (folder, schema) in TABLES.items():
            state = self._state[name]
            listed = {p for p in everything if p.startswith(folder + "/")}
            gone = state.seen - listed
            if gone:  # files are never deleted by the pipeline, but a person may clean up
                state.chunks = [self._drop_files(c, gone) for c in state.chunks]
                state.seen -= gone
                changed.add(name)
            new = sorted(listed - state.seen - self._unreadable)
            if new:
                # one contiguous chunk: DuckDB scans an Arrow table of 10k one-row batches 10x slower
                chunk = self._read(new, schema).combine_chunks()
                if chunk.num_rows:
                    state.chunks.append(chunk)
                state.seen.update(new)
                self._unsaved += len(new)
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

    def _list_index(self) -> list[str]:
        """Storage-relative paths under index/; a local disk is walked directly (15x faster than fsspec)."""
        if "file" not in _protocols(self._storage):
            return self._storage.list(INDEX_ROOT)
        root = self._storage.full_path(INDEX_ROOT)
        found: list[str] = []
        for directory, _, names in os.walk(root):
            relative = os.path.relpath(directory, self._storage.root).replace(os.sep, "/")
            found.extend(f"{relative}/{name}" for name in names if not name.endswith(".tmp"))
        return found

    def _drop_files(self, chunk: pa.Table, gone: set[str]) -> pa.Table:
        paths = {self._duckdb_path(p) for p in gone}
        keep = [f not in paths for f in chunk.column("filename").to_pylist()]
        return chunk.filter(pa.array(keep))

    def _duckdb_path(self, relative: str) -> str:
        full = self._storage.full_path(relative)
        protocols = _protocols(self._storage)
        return full if "file" in protocols else f"{protocols[0]}://{full}"

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = duckdb.connect(":memory:")
        if "file" not in _protocols(self._storage):
            # DuckDB's httpfs cannot be downloaded offline; fsspec serves s3:// (and others) instead
            con.register_filesystem(self._storage.fs)
        return con

    def _read(self, relative_paths: Sequence[str], schema: pa.Schema) -> pa.Table:
        paths = [self._duckdb_path(p) for p in relative_paths]
        con = self._connect()
        try:
            return self._read_with(con, paths, schema)
        except duckdb.Error:
            # one broken file must not hide the rest: read them one by one, remember the bad ones
            good = []
            for relative, path in zip(relative_paths, paths, strict=True):
                try:
                    good.append(self._read_with(con, [path], schema))
                except duckdb.Error:
                    self._unreadable.add(relative)
            return pa.concat_tables(good) if good else _empty(schema)
        finally:
            con.close()

    @staticmethod
    def _read_with(con: duckdb.DuckDBPyConnection, paths: list[str], schema: pa.Schema) -> pa.Table:
        relation = con.sql(
            "SELECT * FROM read_parquet($paths, union_by_name = true, filename = true, hive_partitioning = false)",
            params={"paths": paths},
        )
        return _conform(relation.to_arrow_table(), schema)

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
            reviews = con.sql("SELECT * EXCLUDE (filename) FROM reviews_raw").to_arrow_table()
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
