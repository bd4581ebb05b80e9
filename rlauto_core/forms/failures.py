"""When a form write failed although its status does not say so, and why, in the form's words.

A server-rendered app answers a bad form in one of four ways:
- a 4xx (Rails and Turbo use 422) re-rendering the form with its errors;
- a 200 re-rendering the form with its errors (Django, older Rails, PHP);
- a redirect back to the form, which then shows the errors (Laravel's `back()->withErrors()`);
- a redirect to sign-in, when the session had ended.
A redirect anywhere else (303 See Other to the new record) is the write's success.
"""

from __future__ import annotations

import re
from urllib.parse import urldefrag

from rlauto_core.forms.bodies import form_kind
from rlauto_core.forms.html import HtmlPage, answer_page
from rlauto_core.forms.locations import location_of
from rlauto_core.forms.traffic import effective_method
from rlauto_core.recording import HttpCall

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# how far after a redirect back the browser's GET of the form is looked for
_FOLLOW_WINDOW = 8
_SIGN_IN = re.compile(r"/(login|log_in|log-in|signin|sign_in|sign-in|session/new|sessions/new|auth/login)/?$", re.I)


def failure_reasons(calls: list[HttpCall]) -> dict[str, str]:
    """Call id -> why a form write failed, for the writes whose answer says so."""
    reasons: dict[str, str] = {}
    for index, call in enumerate(calls):
        if effective_method(call) not in WRITE_METHODS or call.status is None:
            continue
        reason = _reason(call, calls[index + 1 : index + 1 + _FOLLOW_WINDOW])
        if reason:
            reasons[call.id] = reason
    return reasons


def _reason(call: HttpCall, after: list[HttpCall]) -> str | None:
    status = call.status or 0
    if 300 <= status < 400:
        return _redirect_reason(call, after)
    page = answer_page(call)
    # the form again, with errors: a 4xx says it failed anyway, a 2xx fails only when it is the
    # submitted form (an error page without a form says nothing a status does not)
    if page is None or not page.invalid or not page.has_form:
        return None
    if status < 400 and not _is_form(call):
        return None
    return _errors(page, "the form came back with errors")


def _redirect_reason(call: HttpCall, after: list[HttpCall]) -> str | None:
    location = location_of(call)
    if location is None or not location.same_host:
        return None
    if _SIGN_IN.search(location.path):
        return f"redirected to sign-in ({location.path}): the session had ended"
    back = urldefrag(location.url)[0]
    came_from = call.header("referer") or call.page_url or ""
    if back != urldefrag(came_from)[0]:
        return None
    follow = next((c for c in after if c.method.upper() == "GET" and urldefrag(c.url)[0] == back), None)
    page = answer_page(follow) if follow is not None else None
    if page is None or not page.invalid:
        return None
    return _errors(page, "redirected back to the form, which shows errors")


def _is_form(call: HttpCall) -> bool:
    return form_kind(call.header("content-type"), (call.request_body or "")[:4096]) is not None


def _errors(page: HtmlPage, what: str) -> str:
    return f"{what}: {'; '.join(page.errors)}" if page.errors else f"{what} (fields marked invalid)"
