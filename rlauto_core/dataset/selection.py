"""Which packages an export holds: the newest index row per item ("latest wins", as the dashboard
reads the index), with the item's newest review, filtered by the export's options.

Only the index is read here, one parquet file at a time (eight at once, for an object store's
latency), and each file is reduced to the few fields the export needs before the next: memory
grows with the number of items, not with what their packages hold.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from rlauto_core.store import ITEMS_DIR, ITEMS_SCHEMA, REVIEWS_DIR, REVIEWS_SCHEMA, Storage

READERS = 8

_ITEM_FIELDS = (
    "job_id", "item_id", "source_name", "source_sha256", "options_hash", "mode", "rule_profile", "analyzer",
    "status", "verdict", "total_score", "max_score", "iterations_used", "best_iteration", "error",
    "package_path", "output_zip_path", "started_at", "finished_at",
)  # fmt: skip
_ITEMS = pa.schema([ITEMS_SCHEMA.field(name) for name in _ITEM_FIELDS])
_REVIEWS = REVIEWS_SCHEMA


@dataclass(frozen=True)
class Review:
    decision: str | None
    reviewer: str | None
    comment: str | None
    created_at: datetime | None
    index_file: str

    def order(self) -> tuple[bool, datetime | str, str]:
        return (self.created_at is not None, self.created_at or "", self.index_file)


@dataclass(frozen=True)
class Candidate:
    """An item's newest index row (the fields the export reads), with its newest review."""

    values: dict[str, Any]
    index_file: str
    review: Review | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (str(self.values["job_id"]), str(self.values["item_id"]))

    def get(self, name: str) -> Any:
        return self.values.get(name)

    def order(self) -> tuple[bool, datetime | str, bool, datetime | str, str]:
        # finished_at, then started_at, newest first with nulls last, then the file name
        finished, started = self.values.get("finished_at"), self.values.get("started_at")
        return (finished is not None, finished or "", started is not None, started or "", self.index_file)


@dataclass
class Selection:
    """What the index holds and what the options keep, counted for the dataset card."""

    items_in_index: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    filtered: dict[str, int] = field(default_factory=dict)  # reason -> items left out by an option
    unreadable_index_files: list[str] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)


def _decode(data: bytes, schema: pa.Schema) -> list[dict[str, Any]]:
    """The rows of one index file, each known column cast to the index's type (a file missing
    a column, as an older writer made it, reads it as null)."""
    table = pq.read_table(io.BytesIO(data))
    columns = {
        name: table.column(name).cast(schema.field(name).type) for name in schema.names if name in table.column_names
    }
    rows: list[dict[str, Any]] = pa.table(columns).to_pylist() if columns else []
    return rows


def _rows_of_files(
    storage: Storage, paths: list[str], schema: pa.Schema, unreadable: list[str]
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    def read(path: str) -> tuple[str, list[dict[str, Any]] | None]:
        try:
            data = storage.read_bytes(path)  # a storage failure propagates: not one broken file
        except FileNotFoundError:
            return path, []  # removed since it was listed: nothing to read
        try:
            return path, _decode(data, schema)
        except Exception:  # whatever pyarrow says of bytes that are no parquet of the index
            return path, None

    with ThreadPoolExecutor(max_workers=READERS) as pool:
        for start in range(0, len(paths), READERS * 4):  # a bounded window of reads in flight
            for path, rows in pool.map(read, paths[start : start + READERS * 4]):
                if rows is None:
                    unreadable.append(path)
                else:
                    yield path, rows


def newest_items(storage: Storage, job_id: str | None, unreadable: list[str]) -> dict[tuple[str, str], Candidate]:
    prefix = f"{ITEMS_DIR}/job={job_id}" if job_id else ITEMS_DIR
    paths = [p for p in storage.list(prefix) if p.endswith(".parquet")]
    newest: dict[tuple[str, str], Candidate] = {}
    for path, rows in _rows_of_files(storage, paths, _ITEMS, unreadable):
        for row in rows:
            if not row.get("job_id") or not row.get("item_id"):
                continue  # a row naming no item cannot be exported or joined to a review
            candidate = Candidate(values=row, index_file=path)
            known = newest.get(candidate.key)
            if known is None or candidate.order() > known.order():
                newest[candidate.key] = candidate
    return newest


def newest_reviews(
    storage: Storage, keys: set[tuple[str, str]], unreadable: list[str]
) -> dict[tuple[str, str], Review]:
    paths = [p for p in storage.list(REVIEWS_DIR) if p.endswith(".parquet")]
    newest: dict[tuple[str, str], Review] = {}
    for path, rows in _rows_of_files(storage, paths, _REVIEWS, unreadable):
        for row in rows:
            key = (str(row.get("job_id")), str(row.get("item_id")))
            if key not in keys:
                continue
            review = Review(row.get("decision"), row.get("reviewer"), row.get("comment"), row.get("created_at"), path)
            known = newest.get(key)
            if known is None or review.order() > known.order():
                newest[key] = review
    return newest


Keep = Callable[[Candidate], str | None]  # None: kept; else the reason it is left out


def select(storage: Storage, job_id: str | None, keeps: list[Keep]) -> Selection:
    """The newest row of every item (of `job_id`, when given) with its newest review; each `keep`
    returns why an item is left out, or None. Sorted by job, recording name and item id."""
    selection = Selection()
    items = newest_items(storage, job_id, selection.unreadable_index_files)
    reviews = newest_reviews(storage, set(items), selection.unreadable_index_files)
    selection.items_in_index = len(items)
    selection.jobs = sorted({job for job, _ in items})
    ordered = sorted(items.values(), key=lambda c: (c.key[0], str(c.get("source_name") or ""), c.key[1]))
    for candidate in ordered:
        candidate = Candidate(candidate.values, candidate.index_file, reviews.get(candidate.key))
        reason = next((r for r in (keep(candidate) for keep in keeps) if r is not None), None)
        if reason is None:
            selection.candidates.append(candidate)
        else:
            selection.filtered[reason] = selection.filtered.get(reason, 0) + 1
    return selection


def only_accepted(candidate: Candidate) -> str | None:
    decision = candidate.review.decision if candidate.review else None
    return None if decision == "accept" else "--only-accepted: newest review is not accept"


def min_score(threshold: int) -> Keep:
    def keep(candidate: Candidate) -> str | None:
        total = candidate.get("total_score")
        return (
            None
            if isinstance(total, int) and total >= threshold
            else f"--min-score {threshold}: best total below it or none"
        )

    return keep
