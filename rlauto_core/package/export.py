"""Export: the output ZIP of formats.md section 2, `<recording>.task-package.zip`.

Every entry of the recording is copied byte for byte (same bytes and CRC; the compression may
differ) except task.json, which is the package. Entry names are sanitized (no absolute paths,
no `..`, no control characters). The file appears atomically: written aside, then renamed.
With `redact_secrets`, the traffic files are redacted: by the rules, and by value (a secret
one file names is removed wherever it recurs in any of them), read twice, streamed both times.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from rlauto_core.errors import PackageError, RecordingError
from rlauto_core.importers.har import is_har
from rlauto_core.importers.jsonload import load_json
from rlauto_core.package.io import package_bytes
from rlauto_core.package.models import TaskPackage
from rlauto_core.package.redact_stream import find_secrets, redact_stream
from rlauto_core.secret_values import SecretValues

SUFFIX = ".task-package.zip"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Entries that hold captured traffic or tool calls: redacted when the options ask for it.
_REDACTABLE = (".json", ".har", ".jsonl", ".ndjson")
_FIXED_DATE = (1980, 1, 1, 0, 0, 0)


# A file name is at most 255 bytes on the filesystems we write to (ext4, tmpfs, S3 keys' parts).
MAX_NAME_BYTES = 255


def package_file_name(source_name: str) -> str:
    """`<recording>.task-package.zip` (formats.md section 2): the last path part without its
    extension, controls and separators folded, cut so the whole name fits in one path component."""
    stem = source_name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    for ending in (".zip", ".har", ".json"):
        if stem.lower().endswith(ending):
            stem = stem[: -len(ending)]
            break
    stem = sanitize_entry_name(stem).replace("/", "_").strip(". ") or "recording"
    room = MAX_NAME_BYTES - len(SUFFIX.encode())
    while len(stem.encode()) > room:
        stem = stem[:-1]
    return stem + SUFFIX


def sanitize_entry_name(name: str) -> str:
    """A safe relative name: forward slashes, no drive, no `.`/`..`, no control characters."""
    is_dir = name.endswith(("/", "\\"))
    parts = []
    for part in name.replace("\\", "/").split("/"):
        part = _CONTROL.sub("", part).strip()
        if part in ("", ".", ".."):
            continue
        parts.append(part.replace(":", "_"))
    clean = "/".join(parts)
    return clean + "/" if clean and is_dir else clean


def _write_entry(out: zipfile.ZipFile, name: str, data: bytes, date_time: tuple[int, ...] = _FIXED_DATE) -> None:
    info = zipfile.ZipInfo(name, date_time=date_time)  # type: ignore[arg-type]
    info.compress_type = zipfile.ZIP_DEFLATED
    out.writestr(info, data)


def _copy_archive(source: Path, out: zipfile.ZipFile, task_entry: str, task: bytes, redact: bool) -> None:
    written: set[str] = set()
    with zipfile.ZipFile(source) as archive:
        secrets = _archive_secrets(archive) if redact else SecretValues()
        for info in archive.infolist():
            name = sanitize_entry_name(info.filename)
            if not name or name in written:
                continue
            written.add(name)
            if name == task_entry:
                _write_entry(out, name, task, info.date_time)
                continue
            target = zipfile.ZipInfo(name, date_time=info.date_time)
            target.external_attr = info.external_attr
            if info.is_dir():
                out.writestr(target, b"")
                continue
            target.compress_type = zipfile.ZIP_DEFLATED
            if redact and name.lower().endswith(_REDACTABLE):
                with out.open(target, "w") as dst:  # streamed: one HAR entry at a time is held
                    redact_stream(functools.partial(archive.open, info), dst, secrets)
                continue
            with archive.open(info) as src, out.open(target, "w") as dst:
                shutil.copyfileobj(src, dst, 1024 * 1024)
    if task_entry not in written:
        _write_entry(out, task_entry, task)


def _archive_secrets(archive: zipfile.ZipFile) -> SecretValues:
    """What the recording's files (the recorded task.json too) carry: a secret one file names is
    removed from all of them."""
    found = SecretValues()
    for info in archive.infolist():
        if not info.is_dir() and info.filename.lower().endswith(_REDACTABLE):
            found = found | find_secrets(functools.partial(archive.open, info))
    return found


def _bare_entry_name(source_name: str, data: bytes) -> str:
    """A bare HAR keeps its name; any other bare file is an MCP capture (a cassette, an SDK or
    client log, an Inspector export) and becomes the package's `mcp_calls.json`, so the package
    reads back as the MCP recording it was made from (formats.md section 1)."""
    if not source_name.lower().endswith(".har"):
        try:
            document = load_json(data, source_name)
        except RecordingError:
            document = None  # JSON Lines or log text: not a HAR
        if not is_har(document):
            return "mcp_calls.json"
    return sanitize_entry_name(source_name) or "network.har"


def _copy_bare(source: Path, bare_name: str, out: zipfile.ZipFile, redact: bool) -> None:
    if not bare_name.lower().endswith(".har"):
        entry = _bare_entry_name(bare_name, source.read_bytes())  # sniffed: an MCP capture unless a HAR
        if not redact:
            _write_entry(out, entry, source.read_bytes())
            return
    else:
        entry = sanitize_entry_name(bare_name) or "network.har"
    info = zipfile.ZipInfo(entry, date_time=_FIXED_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    with out.open(info, "w") as dst:  # a bare HAR streamed, as it is or redacted entry by entry
        if redact:
            redact_stream(lambda: source.open("rb"), dst, find_secrets(lambda: source.open("rb")))
        else:
            with source.open("rb") as src:
                shutil.copyfileobj(src, dst, 1024 * 1024)


def export_package(
    source: str | Path,
    package: TaskPackage,
    out_dir: str | Path,
    *,
    root_prefix: str = "",
    redact_secrets: bool = False,
    source_name: str | None = None,
) -> Path:
    """Write `<out_dir>/<recording>.task-package.zip` and return its path; `source_name` is the
    recording's own name when `source` is a copy under another name."""
    source, out_dir = Path(source), Path(out_dir)
    name = source_name or source.name
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / package_file_name(name)
    task = package_bytes(package)
    task_entry = sanitize_entry_name(root_prefix + "task.json")
    handle, tmp_name = tempfile.mkstemp(prefix=".export-", suffix=".tmp", dir=out_dir)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as out:
            if zipfile.is_zipfile(source):
                _copy_archive(source, out, task_entry, task, redact_secrets)
            else:
                _copy_bare(source, PurePosixPath(name.replace("\\", "/")).name, out, redact_secrets)
                _write_entry(out, "task.json", task)
        os.replace(tmp, target)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, EOFError) as exc:
        tmp.unlink(missing_ok=True)
        raise PackageError(str(source), f"cannot write the package ZIP ({exc})") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return target
