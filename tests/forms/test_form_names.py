"""Form writes by name and by field, on recordings of our own:
- a WebForms write's name leaves out the submit button the page showed (`ctl00$MainContent$btnSubmit`),
  keeps a button that is a choice (two values under one name), and, with no page, keeps the field;
- Rails' nested attributes (`fields_for`: `ticket[tasks_attributes][1718123456789][title]`, where the
  browser's script made the key from its clock) are compared as fields: an attempt made another
  day, under other keys, scores full marks, one with another title fails, and no checker or value
  role names a key the browser made."""

from __future__ import annotations

import json
from pathlib import Path

from rlauto_core.checkers import score
from rlauto_core.config import RunOptions
from rlauto_core.evidence import build_evidence
from rlauto_core.forms import form_fields
from rlauto_core.importers import import_bytes
from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import clock
from tests.package.offline import package_offline

WEBFORMS = "https://expenses.example"
P = "ctl00$MainContent$"


def webforms_page(buttons: str) -> str:
    return f"""<html><head><title>Claim 20931</title></head><body>
<form method="post" action="./Detail.aspx?id=20931" id="ctl01">
<input type="hidden" name="__VIEWSTATE" value="/wEPDwUK{token("vs", 80)}" />
<select name="{P}ddlApprover"><option value="u-118">Ines Duarte</option><option value="u-131">Tom Becker</option></select>
{buttons}</form></body></html>"""


def webforms_names(buttons: str, sent: list[tuple[str, str]], *, page: bool = True) -> list[str]:
    b = Browser(WEBFORMS, clock(2026, 5, 18, 11, 12), "names", cookie_name="ASP.NET_SessionId")
    if page:
        b.visit("/Claims/Detail.aspx?id=20931", webforms_page(buttons))
    b.submit("/Claims/Detail.aspx?id=20931", [("__VIEWSTATE", "/wEPDwUK" + token("vs2", 80)),
                                               (f"{P}ddlApprover", "u-118"), *sent],
             status=302, location="Detail.aspx?id=20931&submitted=1")  # fmt: skip
    recording = import_bytes(recording_zip("Submit claim 20931 to Ines Duarte", WEBFORMS, "rec_names", b), "n.zip")
    return [c.name for c in build_evidence(recording).calls if c.state_changing]


def test_a_webforms_writes_name_leaves_out_the_submit_button_its_page_showed() -> None:
    button = f'<input type="submit" name="{P}btnSubmit" value="Submit for approval" id="MainContent_btnSubmit" />'
    sent = [(f"{P}btnSubmit", "Submit for approval")]
    assert webforms_names(button, sent) == [f"POST /Claims/Detail.aspx ({P}ddlApprover)"]
    # a `<button type="submit">` too, and the button is left out whatever label this UI gave it
    other = f'<button type="submit" name="{P}btnSend" value="Zur Genehmigung">Senden</button>'
    assert webforms_names(other, [(f"{P}btnSend", "Zur Genehmigung")]) == [f"POST /Claims/Detail.aspx ({P}ddlApprover)"]


def test_a_button_that_is_a_choice_or_that_no_page_showed_stays_in_the_name() -> None:
    choice = (f'<input type="submit" name="{P}btnDecide" value="Approve" />'
              f'<input type="submit" name="{P}btnDecide" value="Reject" />')  # fmt: skip
    assert webforms_names(choice, [(f"{P}btnDecide", "Reject")]) == [
        f"POST /Claims/Detail.aspx ({P}ddlApprover, {P}btnDecide)"
    ]
    sent = [(f"{P}btnSubmit", "Submit for approval")]
    assert webforms_names("", sent, page=False) == [f"POST /Claims/Detail.aspx ({P}ddlApprover, {P}btnSubmit)"]


RAILS = "https://desk.example"
TASKS = ("Order toner cartridges", "Call the copier vendor")


def checklist_page(csrf: str) -> str:
    return f"""<html><head><title>#88123 · Desk</title><meta name="csrf-token" content="{csrf}" /></head><body>
<form action="/tickets/88123" accept-charset="UTF-8" method="post">
<input type="hidden" name="_method" value="patch" />
<input type="hidden" name="authenticity_token" value="{csrf}" />
<input type="text" name="ticket[subject]" value="Printer jams" />
<template data-nested-form-target="template"><input name="ticket[tasks_attributes][NEW_RECORD][title]" /></template>
<button type="button" data-action="nested-form#add">Add task</button>
<input type="submit" name="commit" value="Update Ticket" /></form></body></html>"""


def checklist(day: int, stamps: tuple[str, str], titles: tuple[str, ...], seed: str) -> Browser:
    """The ticket's edit page; the script adds a row per task under `Date.now()`, then the form is saved."""
    b = Browser(RAILS, clock(2026, 5, day, 9, 14), seed)
    csrf = token(f"{seed}/csrf")
    b.visit("/tickets/88123/edit", checklist_page(csrf))
    if titles:
        rows = [(f"ticket[tasks_attributes][{stamp}][{field}]", value) for stamp, title in zip(stamps, titles, strict=False)
                for field, value in (("title", title), ("done", "0"))]  # fmt: skip
        b.submit("/tickets/88123", [("_method", "patch"), ("authenticity_token", csrf),
                                    ("ticket[subject]", "Printer jams"), *rows, ("commit", "Update Ticket")],
                 status=303, location="/tickets/88123")  # fmt: skip
        b.visit(
            "/tickets/88123",
            f"<html><body><h1>#88123</h1><ul>{''.join(f'<li>{t}</li>' for t in titles)}</ul></body></html>",
        )
    return b


def _zip(tmp_path: Path, name: str, browser: Browser, instruction: str = "") -> Path:
    path = tmp_path / f"{name}.zip"
    path.write_bytes(recording_zip(instruction, RAILS, f"rec_{name}", browser))
    return path


def test_rails_nested_attributes_are_compared_as_fields_not_pinned_under_the_browsers_keys(tmp_path: Path) -> None:
    recorded = checklist(12, ("1747041263118", "1747041270455"), TASKS, "recorded")
    instruction = f"Add the tasks '{TASKS[0]}' and '{TASKS[1]}' to ticket 88123"
    packaged = package_offline(_zip(tmp_path, "checklist", recorded, instruction), RunOptions(), tmp_path / "out")
    assert packaged.passed and packaged.package is not None, packaged.error
    package = packaged.package
    pinned = json.dumps([package.rubric_checkers, package.model_dump(mode="json")["value_roles"]])
    assert "1747041263118" not in pinned and "1747041270455" not in pinned
    assert TASKS[0] in json.dumps(package.rubric_checkers) and TASKS[1] in json.dumps(package.rubric_checkers)
    attempts = {
        "good": checklist(19, ("1747643911802", "1747643919377"), TASKS, "good"),  # another day's clock
        "wrong_content": checklist(19, ("1747643911802", "1747643919377"), (TASKS[0], "Call the vendor"), "wrong"),
        "missing_task": checklist(19, ("1747643911802", ""), TASKS[:1], "missing"),
        "empty": checklist(19, ("", ""), (), "empty"),
    }
    reports = {kind: score(package, import_bytes(_zip(tmp_path, kind, b).read_bytes(), f"{kind}.zip"))
               for kind, b in attempts.items()}  # fmt: skip
    good = reports.pop("good")
    assert good.passed and good.score == good.max_score, [r.reason for r in good.rubrics if not r.passed]
    assert not [kind for kind, report in reports.items() if report.passed]


def test_nested_attributes_read_as_rows_and_other_numeric_keys_stay_keys() -> None:
    body = ("ticket%5Btasks_attributes%5D%5B1747041263118%5D%5Btitle%5D=Order+toner"
            "&ticket%5Btasks_attributes%5D%5B1747041270455%5D%5Btitle%5D=Call+vendor"
            "&ticket%5Btasks_attributes%5D%5B0%5D%5Bid%5D=5&ticket%5Btasks_attributes%5D%5B0%5D%5Btitle%5D=Kept"
            "&qty%5B4411%5D=2&qty%5B4412%5D=1")  # fmt: skip
    fields = form_fields(body, content_type="application/x-www-form-urlencoded")
    assert fields == {
        "ticket": {
            "tasks_attributes": [{"title": "Order toner"}, {"title": "Call vendor"}, {"id": "5", "title": "Kept"}]
        },
        "qty": {"4411": "2", "4412": "1"},  # a product's id as the key is data: it stays
    }
