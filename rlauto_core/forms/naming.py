"""A form write's name: its route and the fields it sends, `POST /tickets (ticket[subject],
ticket[queue_id], ...)`. One route serves many forms in such apps (a ticket page posts
assignments, comments and status changes), so the fields say which one it was.

The framework's plumbing is left out: CSRF tokens, the method override, the submit button,
`utf8`, ASP.NET's view state. The method is the effective one (`_method=patch` names a PATCH).
A submit button is known by the name frameworks give it (`commit`, `submit`, `button`) or,
whatever it is called (WebForms' `ctl00$MainContent$btnSubmit`), by a page before the write
that showed it as its form's one submit button (`shown_buttons`); a name under which a form
offers two buttons is a choice, and stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from rlauto_core.forms.bodies import form_kind, read_fields
from rlauto_core.forms.html import answer_page
from rlauto_core.forms.traffic import effective_method
from rlauto_core.forms.urlencoded import parse_urlencoded
from rlauto_core.recording import HttpCall

SHOWN_FIELDS = 3
# names of CSRF fields (the volatile `csrf` kind of rlauto_core.package.volatile, as forms send them)
CSRF_FIELDS = re.compile(
    r"^(authenticity_token|csrfmiddlewaretoken|_token|_csrf|csrf_token|csrf|_csrf_token|__requestverificationtoken|"
    r"xsrf_token|_xsrf|yii_csrf_token|form_token|form_build_id)$",
    re.IGNORECASE,
)
# the names frameworks give a form's submit button when the page is not there to say so
SUBMIT_FIELDS = re.compile(r"^(commit|submit|button)$", re.IGNORECASE)
_PLUMBING = re.compile(
    r"^(_method|utf8|_charset_|commit|button|submit|action|__(viewstate\w*|eventvalidation|eventtarget|"
    r"eventargument|lastfocus|previouspage))$",
    re.IGNORECASE,
)


def is_plumbing(name: str) -> bool:
    """A field the framework adds (token, override, submit button), not one the person filled in."""
    return CSRF_FIELDS.match(name) is not None or _PLUMBING.match(name) is not None


def shown_buttons(calls: Sequence[HttpCall]) -> dict[str, frozenset[str]]:
    """For each call (by id), the fields the pages before it showed as a form's one submit button."""
    shown: set[str] = set()
    before: dict[str, frozenset[str]] = {}
    for call in calls:
        before[call.id] = frozenset(shown)
        page = answer_page(call)
        if page is not None:
            shown.update(page.offers.get("buttons", {}))
    return before


def form_write_name(call: HttpCall, buttons: frozenset[str] = frozenset()) -> str | None:
    """`PATCH /tickets/88123 (ticket[assignee_id])` for a form body; None for anything else.
    `buttons`: the submit buttons a page before it showed (`shown_buttons`), left out."""
    sent = field_names(call)
    if sent is None:
        return None
    names = [name for name in sent if name not in buttons]
    method = effective_method(call)
    shown = names[:SHOWN_FIELDS] + (["..."] if len(names) > SHOWN_FIELDS else [])
    return f"{method} {call.path}" + (f" ({', '.join(shown)})" if shown else "")


def field_names(call: HttpCall) -> list[str] | None:
    """The names the person's fields were sent under, in order, once each; None when no form."""
    body = call.request_body
    content_type = call.header("content-type")
    fields = read_fields(body, call.request_body_encoding, content_type)
    if body is None or fields is None:
        return None
    pairs = None
    if call.request_body_encoding == "text" and form_kind(content_type, body) == "urlencoded":
        pairs = parse_urlencoded(body)  # the names as sent: `items[0][qty]`, not a path
    sent = [name for name, _ in pairs] if pairs is not None else _paths(fields)
    names: list[str] = []
    for name in sent:
        if not is_plumbing(name) and name not in names:
            names.append(name)
    return names


def _paths(fields: dict[str, Any], prefix: str = "") -> list[str]:
    """`{"ticket": {"subject": ...}}` -> [ticket[subject]]: nested fields named as a form names them."""
    found: list[str] = []
    for key, value in fields.items():
        name = f"{prefix}[{key}]" if prefix else key
        if _nested(value):
            found.extend(_paths(value, name))
        elif isinstance(value, list) and any(_nested(v) for v in value):
            for index, item in enumerate(value):
                found.extend(_paths(item, f"{name}[{index}]") if _nested(item) else [f"{name}[{index}]"])
        else:
            found.append(name)
    return found


def _nested(value: Any) -> bool:
    """A level of nested fields (a file part's summary is one field, not a level)."""
    return isinstance(value, dict) and not {"filename", "sha256"} <= set(value)
