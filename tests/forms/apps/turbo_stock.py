"""A Rails 7 stock app answering with Turbo Streams: move stock between warehouses, approve it.

Nothing redirects: the transfer form (Turbo, `Accept: text/vnd.turbo-stream.html`) is answered
`200` with a turbo-stream that prepends the new transfer's row (`<tr id="transfer_7710">`), the
only place its id appears; the approval form posts to it and is answered with a stream that
replaces the row. The page also reads a lot without changing anything: a search box that loads
a Turbo frame as the person types, a low-stock panel that polls a turbo-stream every few
seconds, and an htmx-style `HX-Request` fragment for the item's history.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.forms.kit import Browser, recording_zip, token
from tests.package.corpus_kit import Clock, clock

SITE = "https://stock.adventure-works.example"
STREAM = "text/vnd.turbo-stream.html; charset=utf-8"
STREAM_ACCEPT = "text/vnd.turbo-stream.html, text/html, application/xhtml+xml"
INSTRUCTION = "Transfer 12 hex bolts M8 from the Leeds warehouse to Bristol and approve the transfer."
WAREHOUSES = {"3": "Leeds", "8": "Bristol", "11": "Glasgow"}
ITEMS = {"5521": "Hex bolt M8", "5522": "Hex bolt M10", "5530": "Hex nut M8"}
ASSETS = ("/assets/application-9d2f.css", "/assets/application-4c1b.js")


def layout(title: str, csrf: str, body: str) -> str:
    return f"""<!DOCTYPE html><html><head><title>{title} | AW Stock</title>
<meta name="csrf-param" content="authenticity_token" /><meta name="csrf-token" content="{csrf}" />
<link rel="stylesheet" href="/assets/application-9d2f.css" /><script src="/assets/application-4c1b.js" defer></script>
</head><body><turbo-cable-stream-source channel="Turbo::StreamsChannel"></turbo-cable-stream-source>
<div id="low_stock" data-controller="poll"></div>{body}</body></html>
"""


def transfers_page(csrf: str, form_token: str) -> str:
    warehouses = "".join(f'<option value="{v}">{n}</option>' for v, n in WAREHOUSES.items())
    form = f"""<form action="/transfers" accept-charset="UTF-8" method="post" data-turbo-stream="true">
<input type="hidden" name="authenticity_token" value="{form_token}" autocomplete="off" />
<input type="search" name="query" data-action="input->search#load" />
<turbo-frame id="item_results"></turbo-frame>
<select name="transfer[from_id]">{warehouses}</select><select name="transfer[to_id]">{warehouses}</select>
<input type="number" name="transfer[quantity]" /><input type="submit" name="commit" value="Create transfer" /></form>
<table><tbody id="transfers"></tbody></table>"""
    return layout("Transfers", csrf, form)


def search_frame(query: str) -> str:
    rows = "".join(
        f'<li id="item_{iid}"><label><input type="radio" name="transfer[item_id]" value="{iid}" />{name}</label></li>'
        for iid, name in ITEMS.items()
        if query.lower() in name.lower()
    )
    return f'<turbo-frame id="item_results"><ul>{rows}</ul></turbo-frame>'


def low_stock(count: int) -> str:
    return f'<turbo-stream action="update" target="low_stock"><template>{count} items low</template></turbo-stream>'


def transfer_row(form_token: str, transfer: str, item: str, qty: str, state: str) -> str:
    approve = (
        f"""<form action="/transfers/{transfer}/approval" method="post" data-turbo-stream="true">
<input type="hidden" name="authenticity_token" value="{form_token}" /><input type="submit" value="Approve" /></form>"""
        if state == "pending"
        else ""
    )
    return (
        f'<tr id="transfer_{transfer}" data-transfer-id="{transfer}"><td>{ITEMS[item]}</td><td>{qty}</td>'
        f"<td>{state}</td><td>{approve}</td></tr>"
    )


def stream(action: str, target: str, content: str) -> str:
    return f'<turbo-stream action="{action}" target="{target}"><template>{content}</template></turbo-stream>'


@dataclass
class Run:
    clock: Clock
    seed: str
    transfer: str
    typed: tuple[str, ...]
    history: bool


def play(run: Run, item: str | None, to: str, qty: str, approve: bool) -> Browser:
    b = Browser(SITE, run.clock, run.seed, cookie_name="_aw_stock_session")
    csrf = token(f"{run.seed}/csrf", 86)
    b.visit("/transfers", transfers_page(csrf, b.fresh("form")), assets=ASSETS)
    b.partial("/low_stock", {"Accept": STREAM_ACCEPT}, low_stock(4), mime=STREAM)
    for typed in run.typed:  # the search frame reloads as the person types
        b.partial(f"/items/search?query={typed.replace(' ', '+')}", {"Turbo-Frame": "item_results",
                  "X-Turbo-Request-Id": b.fresh("turbo")}, search_frame(typed))  # fmt: skip
    b.partial("/low_stock", {"Accept": STREAM_ACCEPT}, low_stock(4), mime=STREAM)
    if run.history:
        b.partial("/items/5521/history", {"HX-Request": "true", "HX-Target": "history", "HX-Current-URL": SITE + "/transfers"},
                  '<ul id="history"><li data-transfer-id="7694">Leeds to Glasgow, 40</li></ul>')  # fmt: skip
    b.partial("/low_stock", {"Accept": STREAM_ACCEPT}, low_stock(4), mime=STREAM)
    if item is None:
        return b
    turbo = {"Accept": STREAM_ACCEPT, "X-Turbo-Request-Id": b.fresh("turbo")}
    b.submit("/transfers", [("authenticity_token", b.fresh("form")), ("transfer[item_id]", item),
                            ("transfer[from_id]", "3"), ("transfer[to_id]", to), ("transfer[quantity]", qty),
                            ("commit", "Create transfer")],
             status=200, fetch=True, headers=turbo, mime=STREAM,
             html=stream("prepend", "transfers", transfer_row(b.fresh("form"), run.transfer, item, qty, "pending")))  # fmt: skip
    if approve:
        b.submit(f"/transfers/{run.transfer}/approval", [("authenticity_token", b.fresh("form"))],
                 status=200, fetch=True, headers={"Accept": STREAM_ACCEPT, "X-Turbo-Request-Id": b.fresh("turbo")},
                 mime=STREAM, html=stream("replace", f"transfer_{run.transfer}",
                                          transfer_row("", run.transfer, item, qty, "approved")))  # fmt: skip
    b.partial("/low_stock", {"Accept": STREAM_ACCEPT}, low_stock(3), mime=STREAM)
    return b


RECORDED = Run(clock(2026, 5, 19, 14, 30), "stock-recorded", "7710", ("he", "hex", "hex bolt"), history=True)


def later() -> Run:
    """Another day: another transfer id and tokens; the person types less and skips the history."""
    return Run(clock(2026, 5, 27, 10, 15), "stock-later", "7742", ("hex",), history=False)


ATTEMPTS = {
    "good": ("5521", "8", "12", True),
    "wrong_option": ("5521", "11", "12", True),  # sent to Glasgow
    "wrong_content": ("5522", "8", "12", True),  # M10 bolts
    "missing_write": ("5521", "8", "12", False),  # never approved
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = recording_zip(INSTRUCTION, SITE, "rec_stock_bolts", play(RECORDED, "5521", "8", "12", True))
    attempts = {kind: recording_zip("", SITE, f"attempt_{kind}", play(later(), *script))
                for kind, script in ATTEMPTS.items()}  # fmt: skip
    attempts["empty"] = recording_zip("", SITE, "attempt_empty", play(later(), None, "8", "12", False))
    return recording, attempts
