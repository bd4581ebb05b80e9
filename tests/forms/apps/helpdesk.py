"""A Rails helpdesk with Turbo: open a ticket, assign it, comment on it.

Every form is submitted by Turbo with fetch and answered `303 See Other`; the new ticket's id
and the new comment's id exist only in the Location (`/tickets/88123`,
`/tickets/88123#comment-99812`). The assignee picker is a Turbo frame, the unread badge polls,
an analytics beacon goes to another host. Assigning is a POST with `_method=patch`.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://desk.northwind.example"
SUBJECT = "Printer on 3rd floor jams on every job"
COMMENT = "Replaced the fuser unit; please retry and reply here if it jams again."
INSTRUCTION = f"Open a Hardware ticket titled '{SUBJECT}', assign it to Dana Whitfield, and comment '{COMMENT}'"
QUEUES = {"3": "Billing", "7": "Hardware", "9": "Network"}
AGENTS = {"17": "Dana Whitfield", "21": "Omar Reyes", "34": "Lee Park"}
BUTTONS = ("Create Ticket", "Assign", "Add comment")
GERMAN_BUTTONS = ("Ticket erstellen", "Zuweisen", "Kommentar hinzufügen")
ASSETS = ("/assets/application-3f9c2a.css", "/assets/application-81be07.js", "/assets/logo-55d1.png")


def layout(title: str, csrf: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html>
<head>
  <title>{title} · Northwind Desk</title>
  <meta name="csrf-param" content="authenticity_token" />
  <meta name="csrf-token" content="{csrf}" />
  <link rel="stylesheet" href="/assets/application-3f9c2a.css" data-turbo-track="reload" />
  <script src="/assets/application-81be07.js" data-turbo-track="reload" defer></script>
</head>
<body>
  <nav><a href="/tickets">Tickets</a> <a href="/reports">Reports</a>
    <turbo-frame id="notifications" src="/notifications/badge"></turbo-frame></nav>
  <main>{body}</main>
</body>
</html>
"""


def ticket_list(csrf: str, tickets: dict[str, str]) -> str:
    rows = "".join(
        f'<tr id="ticket_{tid}" data-ticket-id="{tid}"><td><a href="/tickets/{tid}">#{tid}</a></td><td>{s}</td></tr>'
        for tid, s in tickets.items()
    )
    return layout("Tickets", csrf, f'<a href="/tickets/new">New ticket</a><table>{rows}</table>')


def new_ticket(csrf: str, form_token: str) -> str:
    options = "".join(f'<option value="{qid}">{name}</option>' for qid, name in QUEUES.items())
    form = f"""<form action="/tickets" accept-charset="UTF-8" method="post">
  <input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
  <label for="ticket_subject">Subject</label><input type="text" name="ticket[subject]" id="ticket_subject" />
  <label for="ticket_queue_id">Queue</label><select name="ticket[queue_id]" id="ticket_queue_id">
    <option value="">Choose a queue</option>{options}</select>
  <select name="ticket[priority]"><option value="low">Low</option><option selected value="normal">Normal</option>
    <option value="high">High</option></select>
  <textarea name="ticket[description]"></textarea>
  <input type="submit" name="commit" value="Create Ticket" data-disable-with="Create Ticket" />
</form>"""
    return layout("New ticket", csrf, form)


def ticket_page(csrf: str, form_token: str, tid: str, subject: str, comments: list[tuple[str, str]]) -> str:
    shown = "".join(
        f'<article id="comment-{cid}" data-comment-id="{cid}"><p>{text}</p></article>' for cid, text in comments
    )
    comment_form = f"""<form action="/tickets/{tid}/comments" accept-charset="UTF-8" method="post">
  <input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
  <textarea name="comment[body]" id="comment_body"></textarea>
  <input type="checkbox" name="comment[internal]" value="1" />
  <input type="submit" name="commit" value="Add comment" /></form>"""
    body = (
        f'<h1 data-ticket-id="{tid}">#{tid} {subject}</h1>'
        f'<turbo-frame id="assignment" src="/tickets/{tid}/assignment/edit"></turbo-frame>'
        f'<section id="comments">{shown}</section>{comment_form}'
    )
    return layout(f"#{tid}", csrf, body)


def assignment_frame(form_token: str, tid: str) -> str:
    options = "".join(f'<option value="{aid}">{name}</option>' for aid, name in AGENTS.items())
    return f"""<turbo-frame id="assignment"><form action="/tickets/{tid}" accept-charset="UTF-8" method="post">
  <input type="hidden" name="_method" value="patch" autocomplete="off" />
  <input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
  <select name="ticket[assignee_id]"><option value="">Unassigned</option>{options}</select>
  <input type="submit" name="commit" value="Assign" /></form></turbo-frame>"""


@dataclass
class Run:
    clock: Clock
    seed: str
    ticket_id: str
    comment_id: str
    existing: dict[str, str]


def play(run: Run, assignee: str | None, comment: str | None, buttons: tuple[str, str, str] = BUTTONS) -> Browser:
    """The person's session; `assignee` None leaves the ticket unassigned, `comment` None skips it;
    `buttons` are the submit buttons' labels (the `commit` field) in the person's UI language."""
    b = Browser(SITE, run.clock, run.seed, cookie_name="_northwind_desk_session")
    csrf = token(f"{run.seed}/meta")
    tickets = dict(run.existing)
    b.visit("/tickets", ticket_list(csrf, tickets), assets=ASSETS)
    b.frame("/notifications/badge", "notifications", '<turbo-frame id="notifications"><span>2</span></turbo-frame>')
    b.visit("/tickets/new", new_ticket(csrf, b.fresh("form")), fetch=True)
    b.beacon("https://plausible.io/api/event", "pageview")
    tid = run.ticket_id
    b.submit("/tickets", [("authenticity_token", b.fresh("form")), ("ticket[subject]", SUBJECT),
                          ("ticket[queue_id]", "7"), ("ticket[priority]", "normal"),
                          ("ticket[description]", "Jams at the fuser on every print job since Monday."),
                          ("commit", buttons[0])],
             status=303, location=f"{SITE}/tickets/{tid}", turbo=True)  # fmt: skip
    comments: list[tuple[str, str]] = []
    b.visit(f"/tickets/{tid}", ticket_page(csrf, b.fresh("form"), tid, SUBJECT, comments), fetch=True)
    b.frame(f"/tickets/{tid}/assignment/edit", "assignment", assignment_frame(b.fresh("form"), tid))
    b.frame("/notifications/badge", "notifications", '<turbo-frame id="notifications"><span>2</span></turbo-frame>')
    if assignee is not None:
        b.submit(f"/tickets/{tid}", [("_method", "patch"), ("authenticity_token", b.fresh("form")),
                                     ("ticket[assignee_id]", assignee), ("commit", buttons[1])],
                 status=303, location=f"/tickets/{tid}", turbo=True)  # fmt: skip
        b.visit(f"/tickets/{tid}", ticket_page(csrf, b.fresh("form"), tid, SUBJECT, comments), fetch=True)
    b.frame("/notifications/badge", "notifications", '<turbo-frame id="notifications"><span>3</span></turbo-frame>')
    if comment is not None:
        cid = run.comment_id
        b.submit(f"/tickets/{tid}/comments", [("authenticity_token", b.fresh("form")), ("comment[body]", comment),
                                              ("comment[internal]", "0"), ("commit", buttons[2])],
                 status=303, location=f"/tickets/{tid}#comment-{cid}", turbo=True)  # fmt: skip
        comments.append((cid, comment))
        b.visit(f"/tickets/{tid}", ticket_page(csrf, b.fresh("form"), tid, SUBJECT, comments), fetch=True)
    return b


EXISTING = {"88101": "VPN drops every hour", "88117": "Invoice PDF is blank"}
RECORDED = Run(clock(2026, 5, 12, 9, 14), "desk-recorded", "88123", "99812", EXISTING)


def later() -> Run:
    """Another day, another session: the server makes other ids, the forms other tokens."""
    return Run(clock(2026, 5, 19, 15, 2), "desk-later", "88519", "100231", {**EXISTING, "88123": SUBJECT})


ATTEMPTS: dict[str, tuple[str, str | None] | tuple[str, str, tuple[str, str, str]]] = {
    "good": ("17", COMMENT),
    "wrong_option": ("21", COMMENT),  # assigned to Omar Reyes, not Dana Whitfield
    "missing_write": ("17", None),  # never comments
    "wrong_content": ("17", "Closing, cannot reproduce."),
    # the same forms in a German UI: only the submit buttons' labels (`commit`) differ
    "good_german_ui": ("17", COMMENT, GERMAN_BUTTONS),
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_desk_printer", play(RECORDED, "17", COMMENT))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    empty = Browser(SITE, later().clock, "desk-empty")
    empty.visit("/tickets", ticket_list(token("desk-empty/meta"), EXISTING), assets=ASSETS)
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", empty)
    return recording, attempts
