"""A batch's recordings staged once, then read once from where they were staged.

The entry point that plans a batch copies each recording into `uploads/{job}/{item}.zip`
(content-addressed: one already there is not copied again), checking on the way that the bytes
are still the ones it planned. An item then reads its staged copy once: straight from the disk
when the storage is a local folder, else streamed into one local temporary file (a ZIP is read
entry by entry, so the importer needs a seekable file).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from rlauto_core.errors import RecordingError
from rlauto_core.store.sources import copy_source, source_name_of
from rlauto_core.store.storage import Storage, with_storage_retry

_COPY_CHUNK = 1024 * 1024  # what a copy holds at once: a block, never the recording


def stage_recording(storage: Storage, source: str, upload_path: str, sha256: str, max_upload_mb: int) -> None:
    """Copy `source` to `upload_path` unless it is there; refused (nothing written) when its
    bytes are no longer the ones hashed at planning time."""
    if storage.exists(upload_path):
        return

    def copy(out: IO[bytes]) -> None:
        found, _ = copy_source(source, out, max_upload_mb)
        if found != sha256:  # raised inside the write: the upload is discarded, never half-true
            raise RecordingError(source_name_of(source), "changed after the batch was planned; start it again")

    storage.write_stream(upload_path, copy)


def _local_file(storage: Storage, path: str) -> Path | None:
    local = storage.url.startswith("file://") or "://" not in storage.url
    return Path(storage.full_path(path)) if local else None


@contextmanager
def open_staged(storage: Storage, upload_path: str) -> Iterator[Path]:
    """A local file holding the staged recording, for as long as the `with` lasts."""
    local = _local_file(storage, upload_path)
    if local is not None:
        yield local
        return
    with tempfile.TemporaryDirectory(prefix="rlauto-item-") as tmp:
        copy = Path(tmp) / "recording"
        local_copy(storage, upload_path, copy)
        yield copy


def local_copy(storage: Storage, path: str, target: Path) -> None:
    """`path` streamed into the local file `target`; a transient storage fault mid-way starts the
    copy again (the storage's own retry covers the opening only, not the reads after it)."""

    def fetch() -> None:
        with storage.open_read(path) as src, target.open("wb") as dst:
            shutil.copyfileobj(src, dst, _COPY_CHUNK)

    with_storage_retry(fetch)
