"""Recordings people upload (the dashboard): checked first, then written under `uploads/{upload_id}/`."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import PurePosixPath

from pydantic import BaseModel

from rlauto_core.errors import RlautoError
from rlauto_core.store.sources import ACCEPTED_KINDS, CAPTURE_SUFFIXES, RECORDING_SUFFIXES
from rlauto_core.store.storage import Storage

_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)
MAX_NAME_CHARS = 150  # well inside a path component, whatever the letters' UTF-8 length
UPLOAD_SUFFIXES = RECORDING_SUFFIXES + CAPTURE_SUFFIXES  # the importer tells a capture's shape


class UploadError(RlautoError):
    """An uploaded recording was refused: `file` names it, `problem` says why."""

    def __init__(self, file: str, problem: str) -> None:
        self.file = file
        self.problem = problem
        super().__init__(f"{file}: {problem}")


class StoredUploads(BaseModel):
    """Recordings written under `uploads/{upload_id}/`, as storage paths and full URLs."""

    upload_id: str
    paths: list[str]
    uris: list[str]


def upload_file_name(raw: str) -> str:
    """The last path part, with separators, controls and spaces folded to '_' (unicode letters kept)."""
    base = PurePosixPath(raw.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip("._") or "recording"
    if len(cleaned) > MAX_NAME_CHARS:  # keep the extension: it says what the file is
        stem, dot, suffix = cleaned.rpartition(".")
        cleaned = (
            (stem[: MAX_NAME_CHARS - len(suffix) - 1] + dot + suffix)
            if dot and len(suffix) <= 8
            else cleaned[:MAX_NAME_CHARS]
        )
    return cleaned


def checked_names(files: Sequence[tuple[str, bytes]], *, max_files: int, max_upload_mb: int) -> list[str]:
    """The names the files will be stored under; the first refused file raises `UploadError`."""
    if not files:
        raise UploadError("upload", "no recording was given")
    if len(files) > max_files:
        raise UploadError("upload", f"{len(files)} files, at most {max_files} per batch")
    limit = max_upload_mb * 1024 * 1024
    names: list[str] = []
    for raw_name, data in files:
        name = upload_file_name(raw_name)
        if len(data) > limit:
            raise UploadError(raw_name, f"is {len(data) / 1e6:.1f} MB, more than {max_upload_mb} MB")
        if not data:
            raise UploadError(raw_name, "is empty")
        if name.lower().endswith(".zip") and not data.startswith(b"PK"):
            raise UploadError(raw_name, "is not a ZIP archive")
        if not name.lower().endswith(UPLOAD_SUFFIXES):
            raise UploadError(raw_name, f"is not a recording: accepted are {ACCEPTED_KINDS}")
        stem, suffix = name.rsplit(".", 1)
        candidate, n = name, 1
        while candidate in names:  # two uploads with one name both survive
            n += 1
            candidate = f"{stem}-{n}.{suffix}"
        names.append(candidate)
    return names


def store_uploads(
    storage: Storage, files: Sequence[tuple[str, bytes]], *, max_files: int, max_upload_mb: int
) -> StoredUploads:
    """Check every recording first, then write them all under `uploads/{upload_id}/`."""
    names = checked_names(files, max_files=max_files, max_upload_mb=max_upload_mb)
    upload_id = f"upload-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
    paths = [f"uploads/{upload_id}/{name}" for name in names]
    for path, (_, data) in zip(paths, files, strict=True):
        storage.write_bytes(path, data)
    return StoredUploads(upload_id=upload_id, paths=paths, uris=[storage.uri(p) for p in paths])
