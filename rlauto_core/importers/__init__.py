"""Importers: a recording ZIP (or a bare HAR, or a bare MCP capture) in, a `Recording` out, or
a `RecordingError`.

Nothing is written anywhere: archives are checked and read in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rlauto_core.errors import RecordingError
from rlauto_core.gcpause import gc_paused
from rlauto_core.importers.archive import check_name_length, read_archive, short_name
from rlauto_core.importers.har import import_har, is_har
from rlauto_core.importers.jsonload import load_json
from rlauto_core.importers.mcp import ACCEPTED, McpCapture, UnknownCapture, import_mcp, parse_mcp_file
from rlauto_core.importers.metadata import import_dbdiff, import_session, import_task
from rlauto_core.importers.network import import_network
from rlauto_core.protocols import split_batches
from rlauto_core.recording import RECORDING_PARTS, FileRole, Mode, Recording, RecordingFile

__all__ = ["detect_mode", "import_bytes", "import_path"]

DEFAULT_MAX_UPLOAD_MB = 100
_ROLES: dict[str, FileRole] = {
    "task.json": "task",
    "network.json": "network",
    "mcp_calls.json": "mcp_calls",
    "session.json": "session",
    "dbdiff.json": "dbdiff",
}


def import_path(
    path: str | Path,
    requested_mode: Mode | str | None = None,
    max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB,
    name: str | None = None,
) -> Recording:
    """Import a file; a ZIP is read entry by entry from disk, never held whole in memory.
    `name` is the recording's own name when `path` is a copy under another name."""
    path = Path(path)
    name = name or path.name
    _check_file_name(name)
    try:
        if path.is_dir():
            raise RecordingError(str(path), "is a folder, not a recording ZIP or HAR file")
        size = path.stat().st_size
        _check_size(size, name, max_upload_mb)
        if size == 0:
            raise RecordingError(name, "file is empty")
        with path.open("rb") as handle:
            head = handle.read(4)
            if not _is_zip(head, name):
                handle.seek(0)
                return import_bytes(handle.read(), name, requested_mode, max_upload_mb)
            digest = hashlib.sha256(head)
            for chunk in iter(lambda: handle.read(1024 * 1024), b""):
                digest.update(chunk)
    except OSError as exc:
        raise RecordingError(short_name(str(path), 120), f"cannot be read ({exc.strerror or exc})") from None
    return _guard(name, lambda: _from_zip(path, name, _mode(requested_mode, name), digest.hexdigest()))


def import_bytes(
    data: bytes, name: str, requested_mode: Mode | str | None = None, max_upload_mb: float = DEFAULT_MAX_UPLOAD_MB
) -> Recording:
    _check_file_name(name)
    _check_size(len(data), name, max_upload_mb)
    if not data:
        raise RecordingError(name, "file is empty")
    mode_override = _mode(requested_mode, name)
    if _is_zip(data[:4], name):
        return _guard(name, lambda: _from_zip(data, name, mode_override, hashlib.sha256(data).hexdigest()))
    return _guard(name, lambda: _from_bare_file(data, name, mode_override))


def _is_zip(head: bytes, name: str) -> bool:
    return head in (b"PK\x03\x04", b"PK\x05\x06") or name.lower().endswith(".zip")


def _guard(name: str, work: Callable[[], Recording]) -> Recording:
    try:
        with gc_paused():
            # a batched GraphQL POST is one call per operation from here on (protocols.graphql)
            return split_batches(work())
    except RecordingError:
        raise
    except (ValidationError, ValueError, TypeError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        # a last net: an importer bug on hostile input must still read as the user's file problem
        raise RecordingError(name, f"unreadable recording ({type(exc).__name__}: {str(exc)[:120]})") from None
    except RecursionError:
        raise RecordingError(name, "structure nested too deeply") from None


def detect_mode(file_names: set[str]) -> Mode:
    return Mode.MCP if {"mcp_calls.json", "session.json"} & file_names else Mode.API


def _check_file_name(name: str) -> None:
    """A recording is stored and packaged under its own name: one no file system holds is refused."""
    check_name_length(short_name(name), name.replace("\\", "/").rsplit("/", 1)[-1], "the file")


def _check_size(size: int, name: str, max_upload_mb: float) -> None:
    if size > max_upload_mb * 1024 * 1024:
        raise RecordingError(
            name, f"file is {size / 2**20:.1f} MB, over the MAX_UPLOAD_MB limit of {max_upload_mb:g} MB"
        )


def _mode(requested: Mode | str | None, name: str) -> Mode | None:
    if requested is None or requested == "":
        return None
    try:
        return Mode(requested)
    except ValueError:
        raise RecordingError(name, f"unknown mode {requested!r}; use 'api' or 'mcp'") from None


def _from_bare_file(data: bytes, name: str, mode_override: Mode | None) -> Recording:
    """A bare `.har` is an API recording; any other bare file is read as an MCP capture (a
    cassette, an SDK or client log, an Inspector export...). Both have an empty task."""
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if name.lower().endswith(".har"):
        if head != b"{":
            raise RecordingError(name, "not a ZIP archive or a HAR file")
        document = load_json(data, name)
        if not is_har(document):
            raise RecordingError(name, 'not a HAR file (no "log" object)')
        return _bare_har(data, name, mode_override, document)
    capture = _bare_capture(data, name, head)
    if isinstance(capture, dict):
        return _bare_har(data, name, mode_override, capture)
    return Recording(
        source_name=name,
        source_sha256=hashlib.sha256(data).hexdigest(),
        mode=mode_override or Mode.MCP,
        detected_mode=Mode.MCP,
        tool_calls=capture.calls,
        import_notes=capture.notes,
        files=[RecordingFile(name=name, size=len(data), role="mcp_calls")],
    )


def _bare_capture(data: bytes, name: str, head: bytes) -> McpCapture | dict[str, Any]:
    """The MCP capture in `data`, or the HAR document when a JSON file turns out to hold one."""
    try:
        if head != b"{":
            return parse_mcp_file(data, name)
        try:
            document = load_json(data, name)
        except RecordingError as exc:
            if "Extra data" in exc.problem:  # JSON Lines
                return parse_mcp_file(data, name)
            raise
        return dict(document) if is_har(document) else import_mcp(document, name)
    except UnknownCapture as exc:
        # bytes that are no recording at all: name every kind of input that would have been read
        raise RecordingError(
            name, f"not a ZIP archive or a HAR file, nor an MCP capture: {exc.found}; {ACCEPTED}"
        ) from None


def _bare_har(data: bytes, name: str, mode_override: Mode | None, document: Any) -> Recording:
    return Recording(
        source_name=name,
        source_sha256=hashlib.sha256(data).hexdigest(),
        mode=mode_override or Mode.API,
        detected_mode=Mode.API,
        http_calls=import_har(document, name),
        files=[RecordingFile(name=name, size=len(data), role="har")],
    )


def _from_zip(data: bytes | Path, name: str, mode_override: Mode | None, sha256: str) -> Recording:
    archive = read_archive(data, name, RECORDING_PARTS)
    contents = archive.contents
    names = set(contents)
    detected = detect_mode(names)

    def part(file: str) -> str:
        return f"{name}: {archive.root_prefix}{file}"

    if "task.json" not in contents:
        raise RecordingError(name, "task.json is missing from the archive")
    # each buffer is popped as it is parsed: it is freed before the next one is built into models
    metadata, task, task_json = import_task(load_json(contents.pop("task.json"), part("task.json")), part("task.json"))
    fields: dict[str, Any] = {}
    if "network.json" in contents:
        fields["http_calls"] = import_network(load_json(contents.pop("network.json"), part("network.json")),
                                              part("network.json"))  # fmt: skip
    hars = sorted(n for n in names if n.lower().endswith(".har"))
    if hars and "http_calls" not in fields:
        fields["http_calls"] = import_har(load_json(contents.pop(hars[0]), part(hars[0])), part(hars[0]))
    if "mcp_calls.json" in contents:
        capture = parse_mcp_file(contents.pop("mcp_calls.json"), part("mcp_calls.json"))
        fields["tool_calls"] = capture.calls
        fields["import_notes"] = capture.notes
    if "session.json" in contents:
        fields["session"] = import_session(load_json(contents.pop("session.json"), part("session.json")),
                                           part("session.json"))  # fmt: skip
    if "dbdiff.json" in contents:
        fields["dbdiff"] = import_dbdiff(
            load_json(contents.pop("dbdiff.json"), part("dbdiff.json")), part("dbdiff.json")
        )
    files = []
    for entry in archive.entries:
        relative = entry.name[len(archive.root_prefix) :] if archive.root_prefix else entry.name
        role: FileRole = _ROLES.get(
            relative, "har" if relative.lower().endswith(".har") and "/" not in relative else "other"
        )
        files.append(RecordingFile(name=entry.name, size=entry.size, role=role))
    return Recording(
        source_name=name,
        source_sha256=sha256,
        mode=mode_override or detected,
        detected_mode=detected,
        metadata=metadata,
        task=task,
        task_json=task_json,
        files=files,
        root_prefix=archive.root_prefix,
        **fields,
    )
