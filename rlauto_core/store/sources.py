"""What a batch's sources name, and reading one: local paths, folders, globs and fsspec URLs.

The one expansion: the CLI, the dashboard's launcher and the batch flow all use it (through
`rlauto_core.pipeline.plan_batch`), so they agree on which files a batch holds and in what order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO

import fsspec

from rlauto_core.errors import RecordingError
from rlauto_core.recording import RECORDING_PARTS
from rlauto_core.store.storage import with_storage_retry
from rlauto_core.store.streams import STREAM_BLOCK_BYTES

RECORDING_SUFFIXES = (".zip", ".har")
# what MCP recorders, SDK interceptors and clients write (docs/formats.md, bare MCP captures);
# a folder or a glob takes them beside its recordings, except an unpacked recording's parts
CAPTURE_SUFFIXES = (".json", ".jsonl", ".ndjson", ".log", ".vcr")
ACCEPTED_KINDS = ".zip, .har, or an MCP capture (" + ", ".join(CAPTURE_SUFFIXES) + ")"
_GLOB_CHARS = "*?["


@dataclass
class Expansion:
    files: list[str] = field(default_factory=list)  # every recording named, in order, each once
    missing: list[str] = field(default_factory=list)  # "SOURCE: why" for sources that named none


def _is_batch_file(path: str) -> bool:
    """A recording, or an MCP capture that is not an unpacked recording's part."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(RECORDING_SUFFIXES) or (name.endswith(CAPTURE_SUFFIXES) and name not in RECORDING_PARTS)


def expand_sources(sources: list[str]) -> Expansion:
    """Files as given, folders' recordings and MCP captures (sorted, not recursive), globs'; and
    what matched nothing."""
    found = Expansion()
    for source in sources:
        fs, path = fsspec.core.url_to_fs(source)
        # fsspec paths come back without the protocol; object-store ones need it again
        protocol = source.split("://", 1)[0] + "://" if "://" in source else ""
        prefix = "" if protocol in ("", "file://") else protocol
        if any(ch in source for ch in _GLOB_CHARS):
            matches = [p for p in sorted(fs.glob(path)) if _is_batch_file(p) and fs.isfile(p)]
        elif fs.isdir(path):
            matches = [p for p in sorted(fs.find(path, maxdepth=1)) if _is_batch_file(p)]
        elif fs.isfile(path):
            matches = [path]
        else:
            found.missing.append(f"{source}: no such file or folder")
            continue
        if not matches:
            found.missing.append(f"{source}: matches no recording ({ACCEPTED_KINDS})")
        found.files.extend(prefix + m for m in matches)
    found.files = list(dict.fromkeys(found.files))
    return found


def source_name_of(source: str) -> str:
    return source.rstrip("/").rsplit("/", 1)[-1] or source


@contextmanager
def _source_errors(source: str) -> Iterator[None]:
    try:
        yield
    except FileNotFoundError:
        raise RecordingError(source, "not found") from None
    except IsADirectoryError:
        raise RecordingError(source, "is a folder, not a recording") from None
    except OSError as exc:
        raise RecordingError(source, f"cannot be read ({exc.strerror or exc})") from None


def _checked(source: str, max_upload_mb: int) -> tuple[fsspec.AbstractFileSystem, str]:
    fs, path = fsspec.core.url_to_fs(source)
    size = with_storage_retry(lambda: fs.size(path))
    if size is not None and size > max_upload_mb * 1024 * 1024:
        raise RecordingError(source_name_of(source), f"is {size / 1048576:.1f} MB, over MAX_UPLOAD_MB={max_upload_mb}")
    return fs, path


def read_source(source: str, max_upload_mb: int) -> bytes:
    """The bytes of a recording given as a path or an fsspec URL; too big or missing is the user's error."""
    with _source_errors(source):
        fs, path = _checked(source, max_upload_mb)
        return bytes(with_storage_retry(lambda: fs.cat_file(path)))


def copy_source(source: str, out: IO[bytes] | None, max_upload_mb: int) -> tuple[str, int]:
    """Stream the recording into `out` (None: only read it) a block at a time; its sha256 and
    size. A 50 MB recording is never held whole: the batch plans, stages and packages many."""
    digest, size = hashlib.sha256(), 0
    with _source_errors(source):
        fs, path = _checked(source, max_upload_mb)
        with with_storage_retry(lambda: fs.open(path, "rb", block_size=STREAM_BLOCK_BYTES)) as handle:
            for chunk in iter(lambda: handle.read(1024 * 1024), b""):
                digest.update(chunk)
                size += len(chunk)
                if out is not None:
                    out.write(chunk)
    return digest.hexdigest(), size


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
