"""What a batch's `sources` name: local paths, folders, globs and fsspec URLs, at most MAX_BATCH_FILES."""

from __future__ import annotations

import hashlib

import fsspec

from rlauto_core import storage_layout as layout
from rlauto_core.errors import ConfigError, RecordingError
from rlauto_core.storage import FsspecStorage
from tasks.models import UploadRef
from tasks.storage_io import read_source, source_name_of

RECORDING_SUFFIXES = (".zip", ".har")
_GLOB_CHARS = "*?["


def _is_recording(path: str) -> bool:
    return path.lower().endswith(RECORDING_SUFFIXES)


def expand_sources(sources: list[str], max_files: int) -> list[str]:
    """Every recording the sources name, in order, each once; a source matching nothing is an error."""
    found: list[str] = []
    for source in sources:
        fs, path = fsspec.core.url_to_fs(source)
        # fsspec paths come back without the protocol; object-store ones need it again
        protocol = source.split("://", 1)[0] + "://" if "://" in source else ""
        prefix = "" if protocol in ("", "file://") else protocol
        if any(ch in source for ch in _GLOB_CHARS):
            matches = [p for p in sorted(fs.glob(path)) if _is_recording(p) and fs.isfile(p)]
        elif fs.isdir(path):
            matches = [p for p in sorted(fs.find(path, maxdepth=1)) if _is_recording(p)]
        elif fs.isfile(path):
            matches = [path]
        else:
            raise RecordingError(source, "no such file or folder")
        if not matches:
            raise RecordingError(source, "matches no recording (.zip or .har)")
        found.extend(prefix + m for m in matches)
    unique = list(dict.fromkeys(found))
    if len(unique) > max_files:
        raise ConfigError(f"the batch names {len(unique)} recordings; at most MAX_BATCH_FILES={max_files} per batch")
    return unique


def stage(source: str, storage: FsspecStorage, options_hash: str, max_upload_mb: int) -> tuple[bytes, UploadRef]:
    """Read one source and describe its upload; the job id is filled in by the caller."""
    data = read_source(source, max_upload_mb)
    sha = hashlib.sha256(data).hexdigest()
    item = layout.item_id(sha, options_hash)
    return data, UploadRef(
        job_id="",
        item_id=item,
        source=source,
        source_name=source_name_of(source),
        source_sha256=sha,
        options_hash=options_hash,
        size=len(data),
        upload_path="",
    )
