"""An in-memory copy of the parquet index that grows by the files added since the last look.

Why: the pipeline writes one small parquet file per finished item and table, so a cold DuckDB
scan of 10k items opens 20k files and takes seconds. The snapshot lists the index folders (at
most every `refresh_seconds`), reads only files it has not seen (DuckDB `read_parquet` over a
bound list of paths, through the registered fsspec filesystem for object stores), and keeps the
rows as Arrow tables. It also materializes the "latest wins" views once per change, so each
page query is a short-lived DuckDB connection over a few thousand in-memory rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from rlauto_core.index_schema import (
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.storage import FsspecStorage

INDEX_ROOT = "index"
TABLES: dict[str, tuple[str, pa.Schema]] = {
    "items_raw": (ITEMS_DIR, ITEMS_SCHEMA),
    "iterations_raw": (ITERATIONS_DIR, ITERATIONS_SCHEMA),
    "reviews_raw": (REVIEWS_DIR, REVIEWS_SCHEMA),
}

# One item = its newest row; its reviews joined as the newest decision (reviews never change).
ITEMS_LATEST_SQL = """
WITH latest_items AS (
    SELECT * EXCLUDE (filename) FROM items_raw
    QUALIFY row_number() OVER (
        PARTITION BY job_id, item_id
        ORDER BY finished_at DESC NULLS LAST, started_at DESC NULLS LAST, filename DESC) = 1
), latest_reviews AS (
    SELECT job_id, item_id, decision, reviewer, comment AS review_comment, created_at AS reviewed_at
    FROM reviews_raw
    QUALIFY row_number() OVER (
        PARTITION BY job_id, item_id ORDER BY created_at DESC NULLS LAST, filename DESC) = 1
)
SELECT i.*, r.decision, r.reviewer, r.review_comment, r.reviewed_at
FROM latest_items i LEFT JOIN latest_reviews r USING (job_id, item_id)
"""

# An iteration = its newest row; a re-run that used fewer iterations hides the older extra ones.
ITERATIONS_LATEST_SQL = """
SELECT it.* EXCLUDE (filename) FROM iterations_raw it
LEFT JOIN items_latest i USING (job_id, item_id)
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

    def __init__(self, storage: FsspecStorage, refresh_seconds: float = 5.0) -> None:
        self._storage = storage
        self._refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._state = {name: _TableState() for name in TABLES}
        self._unreadable: set[str] = set()
        self._checked_at = float("-inf")
        self._tables: SnapshotTables | None = None

    def invalidate(self) -> None:
        """Make the next call look at storage again (after this process wrote to the index)."""
        with self._lock:
            self._checked_at = float("-inf")

    def tables(self) -> SnapshotTables:
        with self._lock:
            now = time.monotonic()
            if self._tables is None or now - self._checked_at >= self._refresh_seconds:
                changed = self._load_new_files()
                if changed or self._tables is None:
                    self._tables = self._derive()
                self._checked_at = time.monotonic()
            return self._tables

    def _load_new_files(self) -> bool:
        changed = False
        # one listing of index/ (one paginated LIST on an object store) serves all three tables
        everything = [p for p in self._storage.list(INDEX_ROOT) if p.endswith(".parquet")]
        for name, (folder, schema) in TABLES.items():
            state = self._state[name]
            listed = {p for p in everything if p.startswith(folder + "/")}
            gone = state.seen - listed
            if gone:  # files are never deleted by the pipeline, but a person may clean up
                state.chunks = [self._drop_files(c, gone) for c in state.chunks]
                state.seen -= gone
                changed = True
            new = sorted(listed - state.seen - self._unreadable)
            if new:
                chunk = self._read(new, schema)
                if chunk.num_rows:
                    state.chunks.append(chunk)
                state.seen.update(new)
                changed = True
        return changed

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

    def _derive(self) -> SnapshotTables:
        raw = {
            name: pa.concat_tables(state.chunks) if state.chunks else _empty(TABLES[name][1])
            for name, state in self._state.items()
        }
        con = duckdb.connect(":memory:")
        try:
            for name, table in raw.items():
                con.register(name, table)
            items = con.sql(ITEMS_LATEST_SQL).to_arrow_table()
            con.register("items_latest", items)
            iterations = con.sql(ITERATIONS_LATEST_SQL).to_arrow_table()
            reviews = con.sql("SELECT * EXCLUDE (filename) FROM reviews_raw").to_arrow_table()
        finally:
            con.close()
        return SnapshotTables(
            items=items,
            iterations=iterations,
            reviews=reviews,
            files={name.removesuffix("_raw"): len(state.seen) for name, state in self._state.items()},
            unreadable=sorted(self._unreadable),
        )
