"""A body's form fields: urlencoded or multipart, by its content type or, with none, its shape.

Fields come out nested (`ticket[subject]` -> `{"ticket": {"subject": ...}}`), repeated names as
lists, file parts as name/type/size/sha256: what a JSON body would have been. A body over the
limits stays text, as a JSON body over the limit does.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from typing import Any, Literal

from rlauto_core.forms.memo import SizedCache
from rlauto_core.forms.multipart import FilePart, boundary_of, parse_multipart
from rlauto_core.forms.names import nest
from rlauto_core.forms.urlencoded import charset_of, looks_urlencoded, parse_urlencoded

# A urlencoded body bigger than this is matched as text (no form a person filled in is 2 MB of
# fields); multipart bodies carry files, so they are read up to the importer's own limit.
MAX_URLENCODED_CHARS = 2_000_000
MAX_MULTIPART_BYTES = 64 * 2**20
# evidence, dataflow, checkers and the validator read the same body many times
_PARSED: SizedCache[dict[str, Any] | None] = SizedCache(max_chars=16 * 2**20)
FormKind = Literal["urlencoded", "multipart"]
# what the HAR importer writes for a file part it has only the name of (`postData.params`)
_NAMED_FILE = re.compile(r"^<file (.{1,1000})>$", re.DOTALL)


def form_kind(content_type: str | None, body: str = "") -> FormKind | None:
    """What kind of form a content type declares; with no content type, what the body looks like."""
    declared = (content_type or "").lower()
    if "x-www-form-urlencoded" in declared:
        return "urlencoded"
    if "multipart/form-data" in declared:
        return "multipart"
    if content_type:
        return None
    if body.startswith("--") and boundary_of(None, body[:4096].encode("utf-8", "replace")) is not None:
        return "multipart"
    return "urlencoded" if len(body) <= MAX_URLENCODED_CHARS and looks_urlencoded(body) else None


def form_fields(body: str | None, encoding: str = "text", content_type: str | None = None) -> dict[str, Any] | None:
    """The fields of a form body, the caller's own copy; None when the body is no form (or a form
    over the limits)."""
    fields = read_fields(body, encoding, content_type)
    return copy.deepcopy(fields) if fields is not None else None


def read_fields(body: str | None, encoding: str = "text", content_type: str | None = None) -> dict[str, Any] | None:
    """`form_fields` without the copy, for callers that only read (the parse is cached and shared)."""
    if not body:
        return None
    return _PARSED.get((body, encoding, content_type), len(body), lambda: _fields(body, encoding, content_type))


def _fields(body: str, encoding: str, content_type: str | None) -> dict[str, Any] | None:
    charset = charset_of(content_type)
    raw: bytes | None = None
    if encoding == "base64":
        raw = _decoded(body)
        if raw is None:
            return None
    # a text body is already text; a base64 one is bytes in the form's charset
    text = body if raw is None else raw[: MAX_URLENCODED_CHARS + 1].decode(charset, "replace")
    kind = form_kind(content_type, text)
    if kind == "multipart":
        raw = raw if raw is not None else body.encode("utf-8", "surrogatepass")
        parts = None
        if len(raw) <= MAX_MULTIPART_BYTES:
            # the declared boundary, else the one the body opens with (a recorder may rewrite the header)
            for boundary in dict.fromkeys((boundary_of(content_type, raw), boundary_of(None, raw))):
                parts = parse_multipart(raw, boundary, charset) if boundary else None
                if parts is not None:
                    break
        if parts is not None:
            return _files_finished(nest(parts))
        if len(text) > MAX_URLENCODED_CHARS or not looks_urlencoded(text):
            return None  # declared multipart, and neither multipart nor a form rebuilt from HAR params
        pairs = parse_urlencoded(text, charset)
        return _files_finished(nest(_named_files(pairs))) if pairs is not None else None
    if kind is None or len(text) > MAX_URLENCODED_CHARS or text.lstrip()[:1] in ("{", "["):
        return None  # (JSON sent under a form content type is JSON)
    pairs = parse_urlencoded(text, charset)
    return nest(pairs) if pairs is not None else None


def _decoded(body: str) -> bytes | None:
    try:
        return base64.b64decode(body, validate=False)
    except (binascii.Error, ValueError):
        return None


def _named_files(pairs: list[tuple[str, str]]) -> list[tuple[str, str | FilePart]]:
    named: list[tuple[str, str | FilePart]] = []
    for name, value in pairs:
        match = _NAMED_FILE.match(value)
        named.append((name, FilePart(match.group(1), None, None, None) if match else value))
    return named


def _files_finished(fields: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if fields is None else {k: _finished(v) for k, v in fields.items()}


def _finished(value: Any) -> Any:
    """File parts as plain fields, once nested."""
    if isinstance(value, FilePart):
        return value.as_field()
    if isinstance(value, dict):
        return {k: _finished(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finished(v) for v in value]
    return value
