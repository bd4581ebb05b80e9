"""A Django CRM: log a call with a contact, then flag the logged call for the account manager.

Django's way: `csrfmiddlewaretoken` in every form and a `csrftoken` cookie, trailing slashes,
success answered `302 Found`, a bad form re-rendered with `200 OK` and an `errorlist` (the
recorded person first types the follow-up date the US way). The new call's id exists only in
the Location (`/crm/contacts/512/calls/9131/`), and the flag form posts to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://crm.litware.example"
NOTES = "Discussed the renewal; asked for the revised quote by Friday."
INSTRUCTION = (
    "Log a call with Priya Raman: outcome 'Left voicemail', notes "
    f"'{NOTES}', follow-up on 2026-06-02; then flag that call as a renewal risk."
)
OUTCOMES = {"connected": "Connected", "voicemail": "Left voicemail", "no_answer": "No answer"}
REASONS = {"renewal-risk": "Renewal risk", "upsell": "Upsell", "complaint": "Complaint"}
ASSETS = ("/static/css/crm.4e1a.css", "/static/js/crm.9b02.js", "/static/img/logo.1c7e.png")


def layout(title: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title} | Litware CRM</title>
<link rel="stylesheet" href="/static/css/crm.4e1a.css"></head>
<body><header><a href="/crm/contacts/">Contacts</a> <a href="/crm/pipeline/">Pipeline</a></header>
<main>{body}</main><script src="/static/js/crm.9b02.js"></script></body></html>
"""


def contact_page() -> str:
    return layout(
        "Priya Raman",
        '<h1>Priya Raman</h1><a href="/crm/contacts/512/calls/add/">Log a call</a>'
        '<a href="/crm/contacts/512/calls/9044/">Call of 2026-04-30</a>',
    )


def call_form(csrf: str, *, date: str = "", error: str | None = None) -> str:
    options = "".join(f'<option value="{v}">{label}</option>' for v, label in OUTCOMES.items())
    errors = f'<ul class="errorlist"><li>{error}</li></ul>' if error else ""
    form = f"""<form method="post" action="/crm/contacts/512/calls/add/">
<input type="hidden" name="csrfmiddlewaretoken" value="{csrf}">
<p><label for="id_outcome">Outcome:</label><select name="outcome" id="id_outcome">{options}</select></p>
<p><label for="id_notes">Notes:</label><textarea name="notes" cols="40" rows="10" id="id_notes"></textarea></p>
{errors}<p><label for="id_follow_up">Follow up:</label>
<input type="date" name="follow_up" value="{date}" id="id_follow_up"{' aria-invalid="true"' if error else ""}></p>
<input type="submit" value="Save"></form>"""
    return layout("Log a call", form)


def call_page(csrf: str, call_id: str) -> str:
    options = "".join(f'<option value="{v}">{label}</option>' for v, label in REASONS.items())
    form = f"""<h1>Call {call_id}</h1><form method="post" action="/crm/calls/{call_id}/flag/">
<input type="hidden" name="csrfmiddlewaretoken" value="{csrf}"><select name="reason">{options}</select>
<input type="submit" value="Flag"></form>"""
    return layout(f"Call {call_id}", form)


@dataclass
class Run:
    clock: Clock
    seed: str
    call_id: str
    us_date_first: bool


def play(run: Run, outcome: str, flag: str | None) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="sessionid")
    b.cookies["csrftoken"] = token(f"{run.seed}/csrf-cookie", 32)
    b.visit("/crm/contacts/512/", contact_page(), assets=ASSETS)
    b.visit("/crm/contacts/512/calls/add/", call_form(b.fresh("csrf")), assets=ASSETS)
    if run.us_date_first:
        b.submit("/crm/contacts/512/calls/add/", [("csrfmiddlewaretoken", b.fresh("csrf")), ("outcome", outcome),
                                                  ("notes", NOTES), ("follow_up", "06/02/2026")],
                 status=200, html=call_form(b.fresh("csrf"), date="06/02/2026", error="Enter a valid date."))  # fmt: skip
    call = run.call_id
    b.submit("/crm/contacts/512/calls/add/", [("csrfmiddlewaretoken", b.fresh("csrf")), ("outcome", outcome),
                                              ("notes", NOTES), ("follow_up", "2026-06-02")],
             status=302, location=f"/crm/contacts/512/calls/{call}/")  # fmt: skip
    b.visit(f"/crm/contacts/512/calls/{call}/", call_page(b.fresh("csrf"), call), assets=ASSETS)
    if flag is not None:
        b.submit(f"/crm/calls/{call}/flag/", [("csrfmiddlewaretoken", b.fresh("csrf")), ("reason", flag)],
                 status=302, location="/crm/contacts/512/")  # fmt: skip
        b.visit("/crm/contacts/512/", contact_page(), assets=ASSETS)
    return b


RECORDED = Run(clock(2026, 5, 15, 14, 30), "crm-recorded", "9131", us_date_first=True)


def later(us_date_first: bool = False) -> Run:
    return Run(clock(2026, 5, 22, 11, 5), "crm-later", "9168", us_date_first)


ATTEMPTS = {
    "good": ("voicemail", "renewal-risk"),
    "wrong_option": ("voicemail", "upsell"),  # flagged for the wrong reason
    "missing_write": ("voicemail", None),  # never flagged
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_crm_priya", play(RECORDED, "voicemail", "renewal-risk"))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    # the same slip as the recording (a re-rendered form), then the right form: still a good attempt
    attempts["good_after_error"] = recording_zip("", SITE, "attempt_good_after_error",
                                                 play(later(us_date_first=True), *ATTEMPTS["good"]))  # fmt: skip
    empty = Browser(SITE, later().clock, "crm-empty", cookie_name="sessionid")
    empty.visit("/crm/contacts/512/", contact_page(), assets=ASSETS)
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", empty)
    return recording, attempts
