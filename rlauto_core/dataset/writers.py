"""The data file, written a batch at a time: parquet through pyarrow's `ParquetWriter` (one row
group per batch), or JSON Lines from the same Arrow batch (so both formats hold the same typed
values). Nothing but the current batch is held in memory."""

from __future__ import annotations

import json
from datetime import datetime
from typing import IO, Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from rlauto_core.dataset.schema import DATASET_SCHEMA

# characters some line readers (Python's str.splitlines) take for a line end: escaped in JSON
# Lines so that one row is always one line; json.dumps escapes the ASCII control characters
_LINE_BREAKS = {"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


class RowSink(Protocol):
    row_groups: int

    def write(self, batch: pa.RecordBatch) -> None: ...

    def close(self) -> None: ...


def to_batch(rows: list[dict[str, Any]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist(rows, schema=DATASET_SCHEMA)


def fits(row: dict[str, Any]) -> str | None:
    """None when the row converts to the schema's types, else what does not fit."""
    try:
        to_batch([row])
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError) as exc:
        return str(exc).splitlines()[0][:200]
    return None


class ParquetSink:
    def __init__(self, handle: IO[Any]) -> None:
        # zstd: read by pyarrow, DuckDB and `datasets` alike; the schema's descriptions travel with it
        self._writer = pq.ParquetWriter(handle, DATASET_SCHEMA, compression="zstd")
        self.row_groups = 0

    def write(self, batch: pa.RecordBatch) -> None:
        if batch.num_rows:
            self._writer.write_batch(batch)
            self.row_groups += 1

    def close(self) -> None:
        self._writer.close()


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON")


class JsonlSink:
    def __init__(self, handle: IO[Any]) -> None:
        self._handle = handle
        self.row_groups = 0

    def write(self, batch: pa.RecordBatch) -> None:
        for row in batch.to_pylist():
            line = json.dumps(row, ensure_ascii=False, default=_default)
            for raw, escaped in _LINE_BREAKS.items():
                line = line.replace(raw, escaped)  # they occur only inside strings: a valid escape
            self._handle.write(line.encode("utf-8") + b"\n")
        if batch.num_rows:
            self.row_groups += 1

    def close(self) -> None:
        """The handle is the caller's to close."""


def open_sink(fmt: str, handle: IO[Any]) -> RowSink:
    return ParquetSink(handle) if fmt == "parquet" else JsonlSink(handle)
