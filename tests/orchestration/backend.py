"""What a storage backend really holds, below `FsspecStorage.list` (which hides `.tmp` files)."""

from __future__ import annotations

from rlauto_core.store.storage import FsspecStorage


def backend_files(storage: FsspecStorage, prefix: str) -> list[str]:
    """Every file under `prefix` as the backend lists it, temp files included, root-relative."""
    full = storage.full_path(prefix)
    storage.fs.invalidate_cache(full)
    return sorted(str(p)[len(storage.root) + 1 :] for p in storage.fs.find(full))


def leftover_temp_files(storage: FsspecStorage, prefix: str) -> list[str]:
    return [p for p in backend_files(storage, prefix) if p.endswith(".tmp")]
