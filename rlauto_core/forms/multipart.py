"""`multipart/form-data` bodies as (name, value) pairs; a file part is summarised, never kept.

RFC 7578 as browsers send it: parts split at `--boundary`, each with a `Content-Disposition:
form-data; name="..."` (and `filename="..."` or `filename*=UTF-8''...` for a file). Recorders
also write LF-only line ends, and Chrome leaves file contents out: both are read. A file part
becomes its name, type, size and sha256, so a checker can tell the same file from another
without the bytes ever entering evidence, prompts or packages.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, NamedTuple
from urllib.parse import unquote

from rlauto_core.forms.urlencoded import charset_of

MAX_PARTS = 1000
MAX_PART_HEADERS = 16 * 1024
_BOUNDARY = re.compile(r"boundary\s*=\s*(\"[^\"]{1,200}\"|[^\s;,]{1,200})", re.IGNORECASE)
_SNIFF = re.compile(rb"^--([!-~]{1,200})\r?\n")
_PARAM = re.compile(r";\s*([\w*-]+)\s*=\s*(\"(?:[^\"\\]|\\.)*\"|[^;]*)")


class FilePart(NamedTuple):
    """A file the form sent: what it is, never its bytes."""

    filename: str
    content_type: str | None
    size: int | None  # None: the recorder kept the file's name only
    sha256: str | None

    def as_field(self) -> dict[str, Any]:
        return {"filename": self.filename, "content_type": self.content_type, "size": self.size, "sha256": self.sha256}


def boundary_of(content_type: str | None, data: bytes) -> bytes | None:
    """The boundary the content type names, else the one the body opens with."""
    match = _BOUNDARY.search(content_type or "")
    if match is not None:
        return match.group(1).strip('"').encode("latin-1", "replace")
    sniffed = _SNIFF.match(data)
    if sniffed is not None and b"content-disposition" in data[:4096].lower():
        return sniffed.group(1)
    return None


def parse_multipart(data: bytes, boundary: bytes, charset: str = "utf-8") -> list[tuple[str, str | FilePart]] | None:
    """The parts in order; None when the body does not open with the boundary or has too many parts."""
    delimiter = b"--" + boundary
    start = data.find(delimiter)
    if start < 0:
        return None
    pairs: list[tuple[str, str | FilePart]] = []
    position = start + len(delimiter)
    while data[position : position + 2] != b"--" and position < len(data):
        position = _skip_line_end(data, position)
        end = data.find(delimiter, position)
        if end < 0:
            end = len(data)  # a cut recording: the last part runs to the end
        part = _part(_trim_line_end(data[position:end]), charset)
        if part is not None:
            if len(pairs) >= MAX_PARTS:
                return None
            pairs.append(part)
        position = end + len(delimiter)
    return pairs


def _skip_line_end(data: bytes, position: int) -> int:
    if data[position : position + 2] == b"\r\n":
        return position + 2
    return position + 1 if data[position : position + 1] == b"\n" else position


def _trim_line_end(chunk: bytes) -> bytes:
    """The CRLF (or LF) before the next delimiter belongs to the delimiter, not to the value."""
    if chunk.endswith(b"\r\n"):
        return chunk[:-2]
    return chunk[:-1] if chunk.endswith(b"\n") else chunk


def _part(chunk: bytes, charset: str) -> tuple[str, str | FilePart] | None:
    split = chunk.find(b"\r\n\r\n")
    gap = 4
    if split < 0 or split > MAX_PART_HEADERS:
        split, gap = chunk.find(b"\n\n"), 2
    if split < 0 or split > MAX_PART_HEADERS:
        return None
    headers = _headers(chunk[:split].decode("utf-8", "replace"))
    body = chunk[split + gap :]
    params = _params(headers.get("content-disposition", ""))
    name = params.get("name")
    if name is None:
        return None
    part_type = headers.get("content-type")
    if "filename" in params:
        return name, FilePart(params["filename"], part_type, len(body), hashlib.sha256(body).hexdigest())
    return name, body.decode(charset_of(part_type, charset), "replace")


def _headers(block: str) -> dict[str, str]:
    headers: dict[str, str] = {}
    for line in block.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return headers


def _params(disposition: str) -> dict[str, str]:
    """`form-data; name="a"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf` -> {name, filename}."""
    params: dict[str, str] = {}
    for key, raw in _PARAM.findall(disposition):
        key = key.lower()
        value = raw.strip()
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        if key == "filename*":
            encoding, _, encoded = value.partition("''")
            params["filename"] = unquote(encoded, encoding=charset_of(f"; charset={encoding}"), errors="replace")
        elif key not in params:
            params[key] = value
    return params
