"""Where a write's answer points: the `Location` header of a redirect (302/303 after a form post)
or of a `201 Created`, as a checker and the dataflow see it.

The new record's id is often only there (`/tickets/88123`, `/tickets/88123#comment-99812`), so
its path segments, query and fragment are values the write produced. A Location on another host
(a payment page, a sign-in provider) names that site's things: only its URL and host are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, urljoin, urlsplit

from rlauto_core.forms.names import flat
from rlauto_core.recording import HttpCall

MAX_LOCATION_CHARS = 8192
_FRAGMENT_ID = re.compile(r"(?:^|[_:-])([A-Za-z]*\d[\w-]*)$")
_UNSAFE = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Location:
    """A resolved Location: absolute URL and its parts."""

    url: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...]
    fragment: str
    same_host: bool

    @property
    def target(self) -> str:
        """What a person would call the place: path, query and fragment on the same host, else the URL."""
        if not self.same_host:
            return self.url
        return (
            self.path
            + (f"?{urlsplit(self.url).query}" if self.query else "")
            + (f"#{self.fragment}" if self.fragment else "")
        )


def location_header(call: HttpCall) -> str | None:
    """The answer's Location (or the HAR `redirectURL` when an exporter kept only that)."""
    if call.status is None or call.status >= 400:
        return None
    value = call.header("location", response=True)
    if not value:
        recorded = call.extra.get("redirectURL")
        value = recorded if isinstance(recorded, str) else None
    return value or None


def location_of(call: HttpCall) -> Location | None:
    value = location_header(call)
    if not value:
        return None
    # URLs may be 1 MiB long: only short ones are kept in the cache
    value = value.strip()
    short = len(call.url) <= MAX_LOCATION_CHARS and len(value) <= MAX_LOCATION_CHARS
    return (_resolved_cached if short else _resolved)(call.url, value)


def _resolved(base: str, value: str) -> Location | None:
    """None for what no browser would follow: too long, control characters, not http(s), unparsable."""
    if len(value) > MAX_LOCATION_CHARS or _UNSAFE.search(value):
        return None
    try:
        url = urljoin(base, value)
        parts = urlsplit(url)
        base_host = urlsplit(base).hostname
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return Location(
        url=url,
        host=parts.netloc,
        path=parts.path or "/",
        query=tuple(parse_qsl(parts.query, keep_blank_values=True)),
        fragment=parts.fragment,
        same_host=host is not None and host == base_host,
    )


_resolved_cached = lru_cache(maxsize=4096)(_resolved)


def location_fields(call: HttpCall) -> dict[str, Any] | None:
    """The checker's view of the Location: url, host and, on the same host, `segments` (by
    position), `query`, `fragment` and `fragment_id` (`comment-99812` -> `99812`)."""
    location = location_of(call)
    if location is None:
        return None
    fields: dict[str, Any] = {"url": location.url, "host": location.host}
    if not location.same_host:
        return fields
    fields["path"] = location.path
    segments = [s for s in location.path.split("/") if s]
    if segments:
        fields["segments"] = {str(n): s for n, s in enumerate(segments)}
    if location.query:
        fields["query"] = flat(location.query)
    if location.fragment:
        fields["fragment"] = location.fragment
        match = _FRAGMENT_ID.search(location.fragment)
        if match and match.group(1) != location.fragment:
            fields["fragment_id"] = match.group(1)
    return fields
