"""Streams of `FsspecStorage`: a write stream that appears whole or not at all, on a local disk
(a temp name renamed on success) and on an object store (an S3 multipart upload, completed on
success, aborted on failure)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO, Any, cast

from fsspec.spec import AbstractFileSystem

# The part size of streamed reads and writes on an object store: S3's smallest multipart part is
# 5 MiB; s3fs's default of 50 MiB would hold 50 MiB per open file (8 items at once: 400 MiB).
STREAM_BLOCK_BYTES = 8 * 1024 * 1024


def opened(fs: AbstractFileSystem, full: str, mode: str) -> Any:
    return fs.open(full, mode, block_size=STREAM_BLOCK_BYTES)


def discard(handle: Any) -> None:
    """Abort an object store upload (s3fs: the multipart upload and its parts are removed)."""
    with suppress(Exception):  # best effort: the store may be the reason the write failed
        handle.discard()
    handle.closed = True  # never completed later by the file's own close or __del__


class WriteOnly:
    """A write stream that says it cannot seek, whatever the backend: writers such as zipfile
    then produce the same bytes on a local disk and on an object store."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def write(self, data: bytes) -> int:
        return int(self._handle.write(data))

    def tell(self) -> int:
        return int(self._handle.tell())

    def flush(self) -> None:
        self._handle.flush()

    def writable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    @property
    def closed(self) -> bool:
        return bool(self._handle.closed)


@contextmanager
def local_atomic_stream(full: str) -> Iterator[IO[bytes]]:
    directory = os.path.dirname(full)
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, f".{os.path.basename(full)}.{uuid.uuid4().hex}.tmp")
    try:
        with open(tmp, "wb") as raw:
            yield cast(IO[bytes], WriteOnly(raw))
        os.replace(tmp, full)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
