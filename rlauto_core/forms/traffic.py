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
from typing import Any

from rlauto_core.forms.bodies import form_fields
from rlauto_core.recording import HttpCall

_OVERRIDE_HEADERS = ("x-http-method-override", "x-http-method", "x-method-override")
_OVERRIDABLE = frozenset({"GET", "PUT", "PATCH", "DELETE", "POST"})
_PARTIAL_HEADERS = ("turbo-frame", "x-pjax", "x-up-target")
TURBO_STREAM = "text/vnd.turbo-stream.html"
# a partial read repeated this often, unchanged, is the page polling
POLLING_REPEATS = 3


def effective_method(call: HttpCall) -> str:
    """The method the server acts on: a POST's override (`_method` field or header), else its own."""
    method = call.method.upper()
    if method != "POST":
        return method
    for name in _OVERRIDE_HEADERS:
        value = (call.header(name) or "").strip().upper()
        if value in _OVERRIDABLE:
            return value
    override = body_override(call)
    return override or method


def body_override(call: HttpCall) -> str | None:
    """`_method=delete` in a form body (the name Rails, Laravel and Symfony read)."""
    body = call.request_body
    if not body or ("_method" not in body and call.request_body_encoding == "text"):
        return None
    fields = form_fields(body, call.request_body_encoding, call.header("content-type"))
    value: Any = (fields or {}).get("_method")
    if isinstance(value, list):
        value = value[-1]  # a repeated field: servers read the last
    method = value.strip().upper() if isinstance(value, str) else ""
    return method if method in _OVERRIDABLE else None


def is_partial_page(call: HttpCall) -> bool:
    """A Turbo frame, htmx, pjax or Unpoly request, or a Turbo Stream answer."""
    if any(call.header(name) for name in _PARTIAL_HEADERS):
        return True
    if (call.header("hx-request") or "").lower() == "true" and not is_navigation(call):
        return True
    return TURBO_STREAM in (call.header("content-type", response=True) or "").lower()


def is_navigation(call: HttpCall) -> bool:
    """A page visit made with fetch: Turbo Drive (no frame) or an htmx-boosted link."""
    if (call.header("hx-boosted") or "").lower() == "true":
        return True
    return bool(call.header("x-turbo-request-id")) and not call.header("turbo-frame")


def is_prefetch(call: HttpCall) -> bool:
    purpose = (call.header("sec-purpose") or call.header("purpose") or call.header("x-moz") or "").lower()
    return "prefetch" in purpose or "prerender" in purpose


def polling(calls: list[HttpCall]) -> frozenset[str]:
    """Ids of partial-page reads the recording repeats unchanged POLLING_REPEATS times or more."""
    reads = [c for c in calls if c.method.upper() in ("GET", "HEAD") and is_partial_page(c)]
    repeats = Counter(c.url for c in reads)
    return frozenset(c.id for c in reads if repeats[c.url] >= POLLING_REPEATS)
