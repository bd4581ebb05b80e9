"""Appends rows to the parquet index (schema in `index_schema`): one new file per item per table.

Append-only, never rewritten: a re-run adds files and readers keep the newest `finished_at`.
"""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from rlauto_core.store.index_schema import (
    ITEMS_DIR,
    ITEMS_SCHEMA,
    ITERATIONS_DIR,
    ITERATIONS_SCHEMA,
    REVIEWS_DIR,
    REVIEWS_SCHEMA,
)
from rlauto_core.store.rows import ItemRow, IterationRow
from rlauto_core.store.storage import Storage


def _now() -> datetime:
    return datetime.now(UTC)


class IndexedItem(ItemRow):
    """An item's newest row as the index's readers see it, with its newest review (if any)."""

    decision: str | None = None
    reviewer: str | None = None
    review_comment: str | None = None
    reviewed_at: datetime | None = None


class ReviewRow(BaseModel):
    job_id: str
    item_id: str
    decision: str
    comment: str = ""
    reviewer: str = ""
    created_at: datetime = Field(default_factory=_now)


def _stamp() -> str:
    return f"{_now().strftime('%Y%m%dT%H%M%S%fZ')}-{uuid.uuid4().hex[:8]}"


def _parquet_bytes(rows: list[dict[str, object]], schema: pa.Schema) -> bytes:
    table = pa.Table.from_pylist(rows, schema=schema)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def append_item(storage: Storage, item: ItemRow, iterations: list[IterationRow]) -> list[str]:
    """Write the item's row and its iterations' rows; returns the two new file paths."""
    stamp = _stamp()
    item_file = f"{ITEMS_DIR}/job={item.job_id}/{item.item_id}-{stamp}.parquet"
    iter_file = f"{ITERATIONS_DIR}/job={item.job_id}/{item.item_id}-{stamp}.parquet"
    # iterations first: a reader that sees the item row also sees its iterations
    storage.write_bytes(iter_file, _parquet_bytes([r.model_dump() for r in iterations], ITERATIONS_SCHEMA))
    storage.write_bytes(item_file, _parquet_bytes([item.model_dump()], ITEMS_SCHEMA))
    return [item_file, iter_file]


def append_review(storage: Storage, review: ReviewRow) -> str:
    path = f"{REVIEWS_DIR}/{_stamp()}.parquet"
    storage.write_bytes(path, _parquet_bytes([review.model_dump()], REVIEWS_SCHEMA))
    return path


def read_table(storage: Storage, directory: str, schema: pa.Schema) -> pa.Table:
    """Every file of one index table as one arrow table (for tests and small tools)."""
    tables = [
        pq.read_table(io.BytesIO(storage.read_bytes(path)), schema=schema)
        for path in storage.list(directory)
        if path.endswith(".parquet")
    ]
    return pa.concat_tables(tables) if tables else schema.empty_table()
