"""ZIP archives for the importer tests: honest deterministic ones, and hand-crafted hostile ones.

`zipfile` cannot write lying headers, encrypted flags, symlinks with odd names or ZIP64 end
records on a small archive, so `raw_zip` writes the bytes itself (APPNOTE 6.3 layout).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

ZIP_DATE = (2026, 5, 6, 13, 47, 0)
_DOS_TIME = (13 << 11) | (47 << 5)
_DOS_DATE = ((2026 - 1980) << 9) | (5 << 5) | 6
_MAX32 = 0xFFFFFFFF


def jbytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def zip_bytes(
    files: list[tuple[str, bytes]] | dict[str, bytes],
    *,
    folder: str | None = None,
    force_zip64: bool = False,
    stored: bool = False,
) -> bytes:
    """An honest ZIP, deterministic; `folder` nests every file under one top-level folder."""
    items = list(files.items()) if isinstance(files, dict) else list(files)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        if folder:
            zf.writestr(zipfile.ZipInfo(folder + "/", date_time=ZIP_DATE), b"")
        for name, data in items:
            info = zipfile.ZipInfo(f"{folder}/{name}" if folder else name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16
            if force_zip64:
                with zf.open(info, "w", force_zip64=True) as stream:
                    stream.write(data)
            else:
                zf.writestr(info, data)
    return buffer.getvalue()


def deflate(data: bytes, level: int = 9) -> bytes:
    """Raw deflate (no zlib header), as ZIP stores it."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


@dataclass
class RawEntry:
    """One entry of a crafted archive; every header field can be overridden to lie."""

    name: str | bytes
    data: bytes = b""
    method: int = 8
    compressed: bytes | None = None  # the payload as stored; default: deflate(data) or data
    crc: int | None = None  # default: crc32(data)
    file_size: int | None = None  # declared uncompressed size; default: len(data)
    flags: int = 0
    external_attr: int = 0o100644 << 16
    zip64: bool = False  # write the sizes in a ZIP64 extra field
    version: int | None = None  # "version needed to extract"; default 20, or 45 with ZIP64
    declared_compress_size: int | None = None  # central directory only; default: the real size

    def payload(self) -> bytes:
        if self.compressed is not None:
            return self.compressed
        return deflate(self.data) if self.method == 8 else self.data

    def encoded_name(self) -> bytes:
        return self.name if isinstance(self.name, bytes) else self.name.encode("utf-8")


def raw_zip(entries: list[RawEntry], *, zip64_end: bool = False) -> bytes:
    """Write local headers, payloads, the central directory and the end record by hand."""
    out = io.BytesIO()
    central: list[bytes] = []
    for entry in entries:
        offset = out.tell()
        payload = entry.payload()
        name = entry.encoded_name()
        crc = zlib.crc32(entry.data) if entry.crc is None else entry.crc
        usize = len(entry.data) if entry.file_size is None else entry.file_size
        csize = len(payload)
        flags = entry.flags | (0x800 if not isinstance(entry.name, bytes) and not name.isascii() else 0)
        version = entry.version or (45 if entry.zip64 or zip64_end else 20)
        if entry.zip64:
            local_extra = struct.pack("<HHQQ", 1, 16, usize, csize)
            local_sizes = (_MAX32, _MAX32)
        else:
            local_extra = b""
            local_sizes = (csize, usize)
        out.write(
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                version,
                flags,
                entry.method,
                _DOS_TIME,
                _DOS_DATE,
                crc,
                local_sizes[0],
                local_sizes[1],
                len(name),
                len(local_extra),
            )
        )
        out.write(name + local_extra + payload)
        if entry.zip64:
            central_extra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset)
            sizes = (_MAX32, _MAX32, _MAX32)
        else:
            central_extra = b""
            declared = csize if entry.declared_compress_size is None else entry.declared_compress_size
            sizes = (declared, usize, offset)
        central.append(
            struct.pack(
                "<4sBBBBHHHHIIIHHHHHII",
                b"PK\x01\x02",
                version,
                3,  # made by Unix, so external_attr carries the mode bits
                version,
                0,
                flags,
                entry.method,
                _DOS_TIME,
                _DOS_DATE,
                crc,
                sizes[0],
                sizes[1],
                len(name),
                len(central_extra),
                0,
                0,
                0,
                entry.external_attr,
                sizes[2],
            )
            + name
            + central_extra
        )
    cd_offset = out.tell()
    for record in central:
        out.write(record)
    cd_size = out.tell() - cd_offset
    count = len(entries)
    if zip64_end:
        end64_offset = out.tell()
        out.write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, cd_size, cd_offset))
        out.write(struct.pack("<4sIQI", b"PK\x06\x07", 0, end64_offset, 1))
        out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, _MAX32, _MAX32, 0))
    else:
        out.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, cd_size, cd_offset, 0))
    return out.getvalue()
