"""Field readers shared by the echo and HAR importers: headers and bodies.

Each reader takes the common case first with checks that run in C (a type set, a max of
lengths) and falls back to the field-by-field path, which names the problem, only when the
common case does not hold: on a 28k-request recording the readers ran 400k times
(bench/bench_import.py). `where` names the entry and `field` the key; they are joined only
when an error is raised.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import MAX_STRING_BYTES, type_name
from rlauto_core.recording import BodyEncoding, Header, HttpCall
from rlauto_core.trusted import trusted

MAX_URL_CHARS = 1024 * 1024
MAX_HEADER_CHARS = 1024 * 1024
_TEXT_MIME_HINTS = ("json", "text", "xml", "javascript", "x-www-form-urlencoded", "graphql", "csv", "yaml")


def build_call(fields: dict[str, Any]) -> HttpCall:
    """An HttpCall from fields the importer has already checked one by one."""
    fields["kind"] = "http"
    return trusted(HttpCall, fields)


def _plain_headers(value: dict[str, Any]) -> bool:
    """Every value a str and all names and values together within MAX_HEADER_CHARS, checked in C
    (`join` refuses a non-str): then no single one can be over the limit either. JSON object
    keys are always strings."""
    try:
        return len("".join(value.values())) + len("".join(value)) <= MAX_HEADER_CHARS
    except TypeError:
        return False


def read_headers(value: Any, file: str, where: str, field: str) -> list[Header]:
    """Headers as an object {name: value} or a HAR list of {name, value}."""
    if value is None:
        return []
    if type(value) is dict and _plain_headers(value):
        return list(value.items())
    return _read_headers_checked(value, file, f"{where}.{field}")


def _read_headers_checked(value: Any, file: str, where: str) -> list[Header]:
    if isinstance(value, dict):
        if any(len(str(k)) > MAX_HEADER_CHARS for k in value):
            raise RecordingError(file, f"{where}: a header name is too long (limit {MAX_HEADER_CHARS})")
        return [(str(k), _header_value(v, file, where)) for k, v in value.items()]
    if isinstance(value, list):
        headers: list[Header] = []
        for number, item in enumerate(value):
            if not isinstance(item, dict) or "name" not in item:
                raise RecordingError(file, f'{where}[{number}] must be an object with a "name"')
            name = str(item["name"])
            if len(name) > MAX_HEADER_CHARS:
                raise RecordingError(file, f"{where}[{number}]: a header name is too long")
            headers.append((name, _header_value(item.get("value"), file, where)))
        return headers
    raise RecordingError(file, f"{where} must be an object or a list of {{name, value}}, got {type_name(value)}")


def _header_value(value: Any, file: str, where: str) -> str:
    if type(value) is str and len(value) <= MAX_HEADER_CHARS:  # the common case, first
        return value
    if value is None:
        return ""
    if isinstance(value, list):  # some exporters repeat a header as a list of values
        value = ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        raise RecordingError(file, f"{where}: a header value must be a string, got an object")
    text = str(value)
    if len(text) > MAX_HEADER_CHARS:
        raise RecordingError(
            file, f"{where}: a header value of {len(text)} characters is too long (limit {MAX_HEADER_CHARS})"
        )
    return text


def check_url(url: str, file: str, where: str) -> str:
    if len(url) > MAX_URL_CHARS:
        raise RecordingError(file, f"{where}: the url has {len(url)} characters, too long (limit {MAX_URL_CHARS})")
    return url


def read_body(
    value: Any, encoding: Any, headers: list[Header] | str | None, file: str, where: str, field: str
) -> tuple[str | None, BodyEncoding]:
    """A body string; base64 bodies are decoded to text when they are UTF-8 text, else kept as base64.

    `headers` gives the MIME type (the Content-Type header, or the HAR `mimeType` string); it is
    only looked at for a base64 body."""
    if value is None:
        return None, "text"
    if type(value) is str and encoding is None and len(value) <= MAX_STRING_BYTES:  # the common case
        return value, "text"
    where = f"{where}.{field}"
    if isinstance(value, (dict, list)):
        # some exporters inline JSON bodies as values instead of strings
        value = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, str):
        raise RecordingError(file, f"{where} must be a string, got {type_name(value)}")
    if len(value) > MAX_STRING_BYTES:
        raise RecordingError(
            file, f"{where}: a body of {len(value) / 1e6:.1f} MB, over the {MAX_STRING_BYTES // 2**20} MiB limit"
        )
    if isinstance(encoding, str) and encoding.lower() == "base64":
        try:
            raw = base64.b64decode(value, validate=False)
        except (binascii.Error, ValueError):
            raise RecordingError(file, f"{where}: declared base64 but is not valid base64") from None
        mime = headers if isinstance(headers, str) or headers is None else content_type(headers)
        if _looks_textual(mime, raw):
            try:
                return raw.decode("utf-8"), "text"
            except UnicodeDecodeError:
                pass
        return value, "base64"
    return value, "text"


def content_type(headers: list[Header]) -> str | None:
    for name, value in headers:
        if name.lower() == "content-type":
            return value
    return None


def _looks_textual(mime: str | None, raw: bytes) -> bool:
    if mime and any(hint in mime.lower() for hint in _TEXT_MIME_HINTS):
        return True
    if not mime:
        head = raw[:1].lstrip()
        return head in (b"{", b"[") or (raw[:64].isascii() and b"\x00" not in raw[:1024])
    return False
