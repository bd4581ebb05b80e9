"""Safe reading of a recording ZIP: names, links, encryption, bombs and CRCs checked in memory.

Nothing is ever extracted to disk. Limits are enforced on the bytes actually inflated, while
streaming, so a header that lies about sizes changes nothing.
"""

from __future__ import annotations

import io
import stat
import zipfile
import zlib
from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from rlauto_core.errors import RecordingError

MAX_TOTAL_UNCOMPRESSED = 1024 * 1024 * 1024
MAX_ENTRY_RATIO = 200  # inflated / compressed, past MIN_RATIO_CHECK bytes
MIN_RATIO_CHECK = 4 * 1024 * 1024
MAX_ENTRIES = 10_000
MAX_ARCHIVE_RATIO = 100  # all entries inflated / archive size, past MIN_TOTAL_RATIO_CHECK
MIN_TOTAL_RATIO_CHECK = 64 * 1024 * 1024
_CHUNK = 1024 * 1024
# What Linux, macOS and Windows file systems allow: one name component, and a whole path.
MAX_NAME_COMPONENT_BYTES = 255
MAX_PATH_BYTES = 4096


@dataclass(frozen=True)
class ArchiveEntry:
    name: str  # as stored in the archive
    size: int  # bytes actually inflated


@dataclass
class Archive:
    """The entries of a checked archive; `contents` holds the bytes of the wanted ones only."""

    source: str
    entries: list[ArchiveEntry]
    contents: dict[str, bytearray] = field(default_factory=dict)
    root_prefix: str = ""


def check_entry_name(source: str, name: str) -> None:
    normalized = name.replace("\\", "/")
    if normalized.startswith("/") or (len(normalized) > 1 and normalized[1] == ":"):
        raise RecordingError(source, f"entry {short_name(name)!r} has an absolute path")
    if any(part == ".." for part in PurePosixPath(normalized).parts):
        raise RecordingError(source, f"entry {short_name(name)!r} escapes the archive with '..'")
    if "\x00" in name:
        raise RecordingError(source, f"entry {short_name(name)!r} has a NUL byte in its name")
    check_name_length(source, normalized, f"entry {short_name(name)!r}")


def check_name_length(source: str, name: str, what: str) -> None:
    """Refuse a name no file system could hold, so a later copy to disk cannot fail half-way.

    Lengths are UTF-8 bytes, the unit file systems count (a 100-character CJK name is 300 bytes)."""
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) > MAX_PATH_BYTES:
        raise RecordingError(source, f"{what} has a name of {len(encoded)} bytes, over the {MAX_PATH_BYTES}-byte limit")
    for part in name.split("/"):
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > MAX_NAME_COMPONENT_BYTES:
            raise RecordingError(
                source,
                f"{what} has a name component of {size} bytes ({short_name(part)!r}), "
                f"over the {MAX_NAME_COMPONENT_BYTES} bytes a file system allows",
            )


def short_name(name: str, keep: int = 60) -> str:
    """A name cut for an error message that must stay on one readable line."""
    return name if len(name) <= keep else name[: keep - 20] + "…" + name[-19:]


def _root_prefix(names: list[str]) -> str:
    """The single top-level folder every entry sits in ("compress folder" archives), or ""."""
    tops = {n.split("/", 1)[0] for n in names if not n.startswith("__MACOSX/")}
    files_at_root = [n for n in names if "/" not in n.rstrip("/") and not n.endswith("/")]
    if len(tops) == 1 and not files_at_root:
        return tops.pop() + "/"
    return ""


def _kept_names(relative_names: list[str], wanted: Set[str]) -> set[str]:
    """The root-level entries whose bytes are kept: the wanted ones, and the one HAR the importer
    reads (the first by name, only when there is no network.json). Every other entry is checked
    while it streams past and never held: a recording's other HARs and attachments can be large."""
    root = [n for n in relative_names if "/" not in n]
    kept = {n for n in root if n in wanted}
    hars = sorted(n for n in root if n.lower().endswith(".har"))
    if hars and "network.json" not in kept:
        kept.add(hars[0])
    return kept


def read_archive(data: bytes | Path, source: str, wanted: Set[str]) -> Archive:
    """Check every entry of the ZIP in `data` (bytes, or a file read as it goes); keep the bytes of
    entries whose root-relative basename is in `wanted` (task.json, network.json, ...) and of the
    `*.har` that is read when there is no network.json (the first by name)."""
    archive_size = data.stat().st_size if isinstance(data, Path) else len(data)
    # a whole-archive ratio refuses a bomb of many small entries before it inflates a GiB
    total_limit = min(MAX_TOTAL_UNCOMPRESSED, max(MIN_TOTAL_RATIO_CHECK, MAX_ARCHIVE_RATIO * archive_size))
    try:
        zf = zipfile.ZipFile(data if isinstance(data, Path) else io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise RecordingError(source, f"not a valid ZIP archive ({exc})") from None
    except (ValueError, OSError, EOFError, NotImplementedError) as exc:
        raise RecordingError(source, f"corrupt ZIP archive ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise RecordingError(source, f"{len(infos)} entries, over the limit of {MAX_ENTRIES}")
        seen: set[str] = set()
        for info in infos:
            check_entry_name(source, info.filename)
            if info.filename in seen:
                raise RecordingError(source, f"duplicate entry {short_name(info.filename)!r}")
            seen.add(info.filename)
            if stat.S_ISLNK(info.external_attr >> 16):
                raise RecordingError(source, f"entry {short_name(info.filename)!r} is a symbolic link")
            if info.flag_bits & 0x1:
                raise RecordingError(source, f"entry {short_name(info.filename)!r} is encrypted")
        files = [i for i in infos if not i.is_dir()]
        prefix = _root_prefix([i.filename for i in files])
        archive = Archive(source=source, entries=[], root_prefix=prefix)
        kept = _kept_names([i.filename[len(prefix) :] if prefix else i.filename for i in files], wanted)
        total = 0
        for info in files:
            relative = info.filename[len(prefix) :] if prefix else info.filename
            keep = relative in kept
            size = 0
            # one growing buffer: a list of chunks joined at the end would hold the entry twice
            buffer = bytearray()
            try:
                with zf.open(info) as stream:
                    while True:
                        chunk = stream.read(_CHUNK)
                        if not chunk:
                            break
                        size += len(chunk)
                        total += len(chunk)
                        if total > total_limit:
                            raise RecordingError(
                                source,
                                f"archive inflates past {total_limit // 2**20} MiB, over the limit "
                                f"(zip bomb?) at entry {short_name(info.filename)!r}",
                            )
                        if size > MIN_RATIO_CHECK and size > MAX_ENTRY_RATIO * max(info.compress_size, 1):
                            raise RecordingError(
                                source,
                                f"entry {short_name(info.filename)!r} inflates more than {MAX_ENTRY_RATIO}x (zip bomb?)",
                            )
                        if keep:
                            buffer += chunk
            except RecordingError:
                raise
            except zipfile.BadZipFile as exc:
                raise RecordingError(source, f"entry {short_name(info.filename)!r} is corrupt ({exc})") from None
            except NotImplementedError as exc:
                raise RecordingError(
                    source, f"entry {short_name(info.filename)!r}: unsupported ZIP feature ({exc})"
                ) from None
            except (zlib.error, EOFError, OSError, ValueError, RuntimeError) as exc:
                reason = str(exc) or type(exc).__name__
                raise RecordingError(source, f"entry {short_name(info.filename)!r} cannot be read ({reason})") from None
            archive.entries.append(ArchiveEntry(name=info.filename, size=size))
            if keep:
                archive.contents[relative] = buffer
    return archive
