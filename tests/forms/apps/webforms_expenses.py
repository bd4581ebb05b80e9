"""An ASP.NET WebForms expense system: file a claim, then submit it to an approver.

Every page is one `<form>` posting back to itself with the page's state: `__VIEWSTATE` (a long
base64 blob that differs per visit), `__VIEWSTATEGENERATOR`, `__EVENTVALIDATION`, the
`__RequestVerificationToken` anti-forgery field, `__EVENTTARGET`/`__EVENTARGUMENT`, and the
controls under their generated names (`ctl00$MainContent$txtAmount`). The clicked button sends
its label (`ctl00$MainContent$btnSave=Save claim`). Saving answers `302` to a relative Location
with the new claim's id in the query (`Detail.aspx?id=20931`), and the submit form posts back
to that URL.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://expenses.woodgrove.example"
DESCRIPTION = "Taxi from airport to client office, Lisbon workshop"
INSTRUCTION = (
    f"File a Travel expense claim of 48.60 EUR for '{DESCRIPTION}' on cost center CC-4410, "
    "then submit it for approval to Ines Duarte."
)
CATEGORIES = {"4": "Meals", "7": "Travel", "9": "Lodging", "12": "Equipment"}
APPROVERS = {"u-118": "Ines Duarte", "u-131": "Tom Becker", "u-207": "Sara Lind"}
P = "ctl00$MainContent$"
ASSETS = ("/Content/site.css", "/Scripts/WebForms/WebForms.js", "/WebResource.axd?d=pynGkmcFUV41&t=638")


def state(seed: str) -> list[tuple[str, str]]:
    """The page state WebForms round-trips: new blobs per page view."""
    return [("__EVENTTARGET", ""), ("__EVENTARGUMENT", ""), ("__VIEWSTATE", "/wEPDwUK" + token(seed + "/vs", 300)),
            ("__VIEWSTATEGENERATOR", "CA0B0334"), ("__EVENTVALIDATION", "/wEdAA" + token(seed + "/ev", 160))]  # fmt: skip


def page(title: str, action: str, fields: list[tuple[str, str]], rvt: str, body: str) -> str:
    hidden = "".join(f'<input type="hidden" name="{n}" id="{n}" value="{v}" />' for n, v in fields)
    return f"""<!DOCTYPE html><html><head><title>{title} - Woodgrove Expenses</title>
<link href="/Content/site.css" rel="stylesheet" /></head><body>
<form method="post" action="{action}" id="ctl01"><div class="aspNetHidden">{hidden}</div>
<input name="__RequestVerificationToken" type="hidden" value="{rvt}" />
<nav><a href="/Claims/Default.aspx">My claims</a></nav>{body}</form>
<script src="/Scripts/WebForms/WebForms.js" type="text/javascript"></script></body></html>
"""


def new_claim(seed: str, rvt: str) -> str:
    categories = "".join(f'<option value="{v}">{label}</option>' for v, label in CATEGORIES.items())
    body = f"""<input name="{P}txtDescription" type="text" id="MainContent_txtDescription" />
<select name="{P}ddlCategory" id="MainContent_ddlCategory">{categories}</select>
<input name="{P}txtAmount" type="text" id="MainContent_txtAmount" />
<select name="{P}ddlCurrency"><option value="EUR">EUR</option><option value="USD">USD</option></select>
<input name="{P}txtCostCenter" type="text" id="MainContent_txtCostCenter" />
<input type="submit" name="{P}btnSave" value="Save claim" id="MainContent_btnSave" />"""
    return page("New claim", "./New.aspx", state(seed), rvt, body)


def claim_detail(seed: str, rvt: str, claim: str, submitted: bool) -> str:
    approvers = "".join(f'<option value="{v}">{label}</option>' for v, label in APPROVERS.items())
    status = "Submitted" if submitted else "Draft"
    body = f"""<h1>Claim {claim}</h1><span id="MainContent_lblStatus">{status}</span>
<select name="{P}ddlApprover" id="MainContent_ddlApprover">{approvers}</select>
<input type="submit" name="{P}btnSubmit" value="Submit for approval" id="MainContent_btnSubmit" />"""
    return page(f"Claim {claim}", f"./Detail.aspx?id={claim}", state(seed), rvt, body)


@dataclass
class Run:
    clock: Clock
    seed: str
    claim: str


def play(run: Run, amount: str | None, category: str, approver: str | None) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="ASP.NET_SessionId")
    b.cookies[".ASPXAUTH"] = token(f"{run.seed}/auth", 120)
    rvt = token(f"{run.seed}/rvt", 92)
    b.visit("/Claims/Default.aspx", page("My claims", "./Default.aspx", state(run.seed + "/list"), rvt,
                                         '<a href="New.aspx">New claim</a>'), assets=ASSETS)  # fmt: skip
    b.visit("/Claims/New.aspx", new_claim(run.seed + "/new", rvt), assets=ASSETS)
    if amount is None:
        return b
    fields = [*state(run.seed + "/new"), ("__RequestVerificationToken", rvt), (f"{P}txtDescription", DESCRIPTION),
              (f"{P}ddlCategory", category), (f"{P}txtAmount", amount), (f"{P}ddlCurrency", "EUR"),
              (f"{P}txtCostCenter", "CC-4410"), (f"{P}btnSave", "Save claim")]  # fmt: skip
    b.submit("/Claims/New.aspx", fields, status=302, location=f"Detail.aspx?id={run.claim}")
    b.visit(f"/Claims/Detail.aspx?id={run.claim}", claim_detail(run.seed + "/d1", rvt, run.claim, False))
    if approver is not None:
        b.submit(f"/Claims/Detail.aspx?id={run.claim}",
                 [*state(run.seed + "/d1"), ("__RequestVerificationToken", rvt), (f"{P}ddlApprover", approver),
                  (f"{P}btnSubmit", "Submit for approval")],
                 status=302, location=f"Detail.aspx?id={run.claim}&submitted=1")  # fmt: skip
        b.visit(f"/Claims/Detail.aspx?id={run.claim}&submitted=1",
                claim_detail(run.seed + "/d2", rvt, run.claim, True))  # fmt: skip
    return b


RECORDED = Run(clock(2026, 5, 18, 11, 12), "expenses-recorded", "20931")


def later() -> Run:
    return Run(clock(2026, 5, 26, 8, 47), "expenses-later", "21377")


ATTEMPTS = {
    "good": ("48.60", "7", "u-118"),
    "wrong_option": ("48.60", "4", "u-118"),  # filed as Meals
    "wrong_content": ("84.60", "7", "u-118"),  # the amount's digits swapped
    "missing_write": ("48.60", "7", None),  # never submitted
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_expenses_taxi", play(RECORDED, "48.60", "7", "u-118"))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", play(later(), None, "7", None))
    return recording, attempts
