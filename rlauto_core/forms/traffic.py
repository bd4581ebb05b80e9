"""What a browser request of a server-rendered app does, beyond its HTTP method.

- A form can only send GET or POST, so frameworks carry the real method in the body
  (`_method=patch|put|delete`: Rails, Laravel, Symfony) or a header (`X-HTTP-Method-Override`,
  also used to send a long GET as a POST). The effective method is what the server acts on.
- Partial-page loads (a Turbo frame, an htmx swap, a pjax container, a Turbo Stream) fetch a
  piece of a page: reads, and UI polling when the same one repeats.
- Turbo Drive visits and htmx-boosted links are page navigations made with fetch.
- Prefetches (`Sec-Purpose: prefetch`) load what the user might click: nobody asked for them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from rlauto_core.forms.bodies import read_fields
from rlauto_core.recording import HttpCall

_OVERRIDE_HEADERS = ("x-http-method-override", "x-http-method", "x-method-override")
_OVERRIDABLE = frozenset({"GET", "PUT", "PATCH", "DELETE", "POST"})
_PARTIAL_HEADERS = ("turbo-frame", "x-pjax", "x-up-target")
_MARKS = frozenset(
    [*_OVERRIDE_HEADERS, *_PARTIAL_HEADERS, "hx-request", "hx-boosted", "x-turbo-request-id", "sec-purpose", "purpose",
     "x-moz"]
)  # fmt: skip
TURBO_STREAM = "text/vnd.turbo-stream.html"
# a partial read repeated this often, unchanged, is the page polling
POLLING_REPEATS = 3
PageLoad = Literal["document", "prefetch"]


def marks(call: HttpCall) -> dict[str, str]:
    """The request headers that say what a browser request is, by lowercase name: one pass over
    the headers (evidence asks several questions of every call of a 28k-call recording)."""
    found: dict[str, str] = {}
    for name, value in call.request_headers:
        low = name.lower()
        if low in _MARKS:
            found[low] = value
    return found


def effective_method(call: HttpCall) -> str:
    """The method the server acts on: a POST's override (`_method` field or header), else its own."""
    method = call.method.upper()
    if method != "POST":
        return method
    headers = marks(call)
    for name in _OVERRIDE_HEADERS:
        value = headers.get(name, "").strip().upper()
        if value in _OVERRIDABLE:
            return value
    return body_override(call) or method


def body_override(call: HttpCall) -> str | None:
    """`_method=delete` in a form body (the name Rails, Laravel and Symfony read)."""
    body = call.request_body
    if not body or ("_method" not in body and call.request_body_encoding == "text"):
        return None
    fields = read_fields(body, call.request_body_encoding, call.header("content-type"))
    value: Any = (fields or {}).get("_method")
    if isinstance(value, list):
        value = value[-1]  # a repeated field: servers read the last
    method = value.strip().upper() if isinstance(value, str) else ""
    return method if method in _OVERRIDABLE else None


def is_partial_page(call: HttpCall) -> bool:
    """A Turbo frame, htmx, pjax or Unpoly request, or a Turbo Stream answer."""
    headers = marks(call)
    if any(name in headers for name in _PARTIAL_HEADERS):
        return True
    if headers.get("hx-request", "").lower() == "true" and _page_load(headers) is None:
        return True
    return TURBO_STREAM in (call.header("content-type", response=True) or "").lower()


def page_load(call: HttpCall) -> PageLoad | None:
    """`document` for a page visit made with fetch (Turbo Drive without a frame, an htmx-boosted
    link), `prefetch` for what the browser loaded before anyone clicked; None otherwise."""
    return _page_load(marks(call))


def _page_load(headers: dict[str, str]) -> PageLoad | None:
    purpose = (headers.get("sec-purpose") or headers.get("purpose") or headers.get("x-moz") or "").lower()
    if "prefetch" in purpose or "prerender" in purpose:
        return "prefetch"
    if headers.get("hx-boosted", "").lower() == "true":
        return "document"
    if "x-turbo-request-id" in headers and "turbo-frame" not in headers:
        return "document"
    return None


def polling(calls: list[HttpCall]) -> frozenset[str]:
    """Ids of partial-page reads the recording repeats unchanged POLLING_REPEATS times or more."""
    reads = [c for c in calls if c.method.upper() in ("GET", "HEAD") and is_partial_page(c)]
    repeats = Counter(c.url for c in reads)
    return frozenset(c.id for c in reads if repeats[c.url] >= POLLING_REPEATS)
