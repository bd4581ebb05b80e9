"""A Laravel kanban board: add a card, move it to another column, remove a label from it.

The card form is a page navigation carrying `_token`; the recorded person first leaves the
title empty and Laravel answers `302` back to the form, whose next page shows the error
(`back()->withErrors()`). The card's id exists only in the absolute Location
(`https://.../projects/7/cards/4410`). Moving the card and removing its label are made by the
board's script: a POST that stands for a PATCH or a DELETE through the `X-HTTP-Method-Override`
header, the CSRF token in `X-CSRF-TOKEN`, answered `204 No Content`.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://board.tailspin.example"
TITLE = "Rotate the staging TLS certificates"
INSTRUCTION = (
    f"On the Platform board, add a High priority card '{TITLE}' to Backlog, "
    "move it to In progress, and remove its needs-triage label."
)
COLUMNS = {"31": "Backlog", "32": "In progress", "33": "Review", "34": "Done"}
PRIORITIES = {"low": "Low", "normal": "Normal", "high": "High"}
TRIAGE = "12"  # the label the server puts on every new card
ASSETS = ("/build/assets/app-Qm81xa.css", "/build/assets/app-Lk20pz.js")


def layout(title: str, csrf: str, body: str) -> str:
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="csrf-token" content="{csrf}"><title>{title} · Tailspin Board</title>
<link rel="stylesheet" href="/build/assets/app-Qm81xa.css"></head>
<body><nav><a href="/projects/7/board">Platform</a> <a href="/projects/9/board">Mobile</a></nav>{body}
<script src="/build/assets/app-Lk20pz.js"></script></body></html>
"""


def board(csrf: str, cards: dict[str, tuple[str, str]]) -> str:
    columns = "".join(
        f'<section data-column-id="{cid}"><h2>{name}</h2>'
        + "".join(f'<a href="/projects/7/cards/{k}">{t}</a>' for k, (t, col) in cards.items() if col == cid)
        + "</section>"
        for cid, name in COLUMNS.items()
    )
    return layout("Platform", csrf, f'<a href="/projects/7/cards/create">Add card</a>{columns}')


def card_form(csrf: str, *, error: str | None = None) -> str:
    columns = "".join(f'<option value="{v}">{label}</option>' for v, label in COLUMNS.items())
    priorities = "".join(f'<option value="{v}">{label}</option>' for v, label in PRIORITIES.items())
    errors = f'<div class="alert alert-danger"><ul><li>{error}</li></ul></div>' if error else ""
    form = f"""{errors}<form method="POST" action="{SITE}/projects/7/cards">
<input type="hidden" name="_token" value="{csrf}" autocomplete="off">
<input name="title" class="form-control{" is-invalid" if error else ""}">
<select name="priority">{priorities}</select><select name="column_id">{columns}</select>
<textarea name="notes"></textarea><button type="submit" class="btn btn-primary">Add card</button></form>"""
    return layout("Add card", csrf, form)


def card_page(csrf: str, card: str, labels: list[str]) -> str:
    shown = "".join(f'<span data-label-id="{lid}">needs-triage</span>' for lid in labels)
    return layout(TITLE, csrf, f'<h1 data-card-id="{card}">{TITLE}</h1><div class="labels">{shown}</div>')


@dataclass
class Run:
    clock: Clock
    seed: str
    card: str
    empty_title_first: bool
    board_first: bool


def script_headers(csrf: str, method: str) -> dict[str, str]:
    """What the board's script (axios) sends: the override, the token, the XHR marker."""
    return {"X-HTTP-Method-Override": method, "X-CSRF-TOKEN": csrf, "X-Requested-With": "XMLHttpRequest",
            "Accept": "application/json, text/plain, */*"}  # fmt: skip


def play(run: Run, title: str | None, column: str | None, unlabel: bool) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="tailspin_board_session")
    b.cookies["XSRF-TOKEN"] = token(f"{run.seed}/xsrf", 96)
    csrf = token(f"{run.seed}/csrf", 40)
    cards = {"4391": ("Upgrade Postgres to 16", "32"), "4402": ("Pin the base image digests", "31")}
    if run.board_first:
        b.visit("/projects/7/board", board(csrf, cards), assets=ASSETS)
    b.visit("/projects/7/cards/create", card_form(csrf), assets=ASSETS)
    if title is None:
        return b
    fields = [("_token", csrf), ("priority", "high"), ("column_id", "31"), ("notes", "")]
    if run.empty_title_first:
        b.submit("/projects/7/cards", [("_token", csrf), ("title", ""), *fields[1:]],
                 status=302, location=f"{SITE}/projects/7/cards/create")  # fmt: skip
        b.visit("/projects/7/cards/create", card_form(csrf, error="The title field is required."), assets=ASSETS)
    b.submit("/projects/7/cards", [("_token", csrf), ("title", title), *fields[1:]],
             status=302, location=f"{SITE}/projects/7/cards/{run.card}")  # fmt: skip
    b.visit(f"/projects/7/cards/{run.card}", card_page(csrf, run.card, [TRIAGE]), assets=ASSETS)
    if column is not None:
        b.submit(f"/projects/7/cards/{run.card}", [("column_id", column), ("position", "0")],
                 status=204, fetch=True, headers=script_headers(csrf, "PATCH"), mime="text/plain")  # fmt: skip
    if unlabel:
        b.submit(f"/projects/7/cards/{run.card}/labels/{TRIAGE}", [("_token", csrf)],
                 status=204, fetch=True, headers=script_headers(csrf, "DELETE"), mime="text/plain")  # fmt: skip
    cards[run.card] = (title, column or "31")
    b.visit("/projects/7/board", board(csrf, cards), assets=ASSETS)
    return b


RECORDED = Run(clock(2026, 5, 15, 9, 40), "board-recorded", "4410", empty_title_first=True, board_first=True)


def later() -> Run:
    """Another day: another card id and tokens, no empty title, straight to the card form."""
    return Run(clock(2026, 5, 22, 16, 5), "board-later", "4457", empty_title_first=False, board_first=False)


ATTEMPTS = {
    "good": (TITLE, "32", True),
    "wrong_option": (TITLE, "33", True),  # moved to Review
    "wrong_content": ("Rotate the prod TLS certificates", "32", True),
    "missing_write": (TITLE, "32", False),  # the label stays
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_board_tls", play(RECORDED, TITLE, "32", True))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", play(later(), None, None, False))
    return recording, attempts
