"""`application/x-www-form-urlencoded` bodies as (name, value) pairs.

Decoded the way servers decode them: `+` is a space, `%XX` a byte, the bytes text in the
charset the content type names (UTF-8 when none). A broken escape (`%zz`, a lone `%`) stays as
written, bytes that are not text in the charset become U+FFFD: a sloppy client's form is read,
never refused.
"""

from __future__ import annotations

import codecs
import re
from urllib.parse import unquote_plus

# More fields than this is no form a person filled in (Django refuses past 1,000, PHP's
# `max_input_vars` is 1,000): such a body is kept as text.
MAX_FIELDS = 2000
# `a=1&b=x+y`: a form post even when the recorder kept no content type (HAR `postData.params`)
_SHAPE = re.compile(r"^[\w.%\[\]-]+=[^&\s]*(?:&[\w.%\[\]-]+=[^&\s]*)*$")
_CHARSET = re.compile(r";\s*charset\s*=\s*\"?([\w.:-]+)", re.IGNORECASE)


def looks_urlencoded(text: str) -> bool:
    return _SHAPE.match(text) is not None


def charset_of(content_type: str | None, default: str = "utf-8") -> str:
    """The charset a content type names, when Python knows it; else `default`."""
    match = _CHARSET.search(content_type or "")
    if match is None:
        return default
    try:
        return codecs.lookup(match.group(1)).name
    except LookupError:
        return default


def parse_urlencoded(text: str, charset: str = "utf-8") -> list[tuple[str, str]] | None:
    """The fields in order (a repeated name repeats); None past MAX_FIELDS."""
    pieces = [piece for piece in text.split("&", MAX_FIELDS) if piece]
    if len(pieces) > MAX_FIELDS:
        return None
    pairs: list[tuple[str, str]] = []
    for piece in pieces:
        name, _, value = piece.partition("=")
        pairs.append((_decode(name, charset), _decode(value, charset)))
    return pairs


def _decode(text: str, charset: str) -> str:
    if "%" not in text and "+" not in text:
        return text
    return unquote_plus(text, encoding=charset, errors="replace")
