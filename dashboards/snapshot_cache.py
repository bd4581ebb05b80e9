"""A local copy of the index snapshot, so a restarted dashboard reads one file, not 20k.

Only a cache: it is derived from the shared index, lives on the dashboard's own disk, and may be
deleted at any time (the next start reads every index file again). A cache written for another
storage URL or another schema is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

CACHE_VERSION = 1


def cache_folder(base: Path, storage_url: str) -> Path:
    return base / hashlib.sha256(storage_url.encode("utf-8")).hexdigest()[:16]


def load(folder: Path, storage_url: str, schemas: dict[str, pa.Schema]) -> dict[str, tuple[set[str], pa.Table]]:
    """Each table's files already read and their rows; empty when there is no usable cache."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("version") != CACHE_VERSION or meta.get("storage_url") != storage_url:
            return {}
        loaded = {}
        for name, schema in schemas.items():
            table = pq.read_table(folder / f"{name}.parquet")
            if not table.schema.equals(schema):
                return {}
            loaded[name] = (set(meta["files"][name]), table.combine_chunks())
        return loaded
    except (OSError, ValueError, KeyError, TypeError, pa.ArrowException):
        return {}  # no cache, or a broken one: start from the index itself


def save(folder: Path, storage_url: str, tables: dict[str, tuple[set[str], pa.Table]]) -> None:
    """Write the tables, then the metadata naming their files (a reader never sees a mix)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (_, table) in tables.items():
        _atomic(folder / f"{name}.parquet", partial(pq.write_table, table))
    meta = {
        "version": CACHE_VERSION,
        "storage_url": storage_url,
        "files": {name: sorted(seen) for name, (seen, _) in tables.items()},
    }
    _atomic(folder / "meta.json", lambda path: Path(path).write_text(json.dumps(meta), encoding="utf-8"))


def _atomic(target: Path, write: Callable[[str], object]) -> None:
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(str(temporary))
        os.replace(temporary, target)
    finally:
        if temporary.exists():
            temporary.unlink()
