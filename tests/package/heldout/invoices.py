"""Invoice admin grid (echo network.json): grid column state and a saved filter persisted while
browsing, a recently-viewed marker, a `rowVersion` concurrency token on the hold, then a note."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://admin.ledgerly.example"
REASON = "Disputed by customer"
NOTE = "Customer disputes line 3; waiting for credit memo."
INSTRUCTION = f"Put invoice INV-2207 on hold with the reason '{REASON}', then add the note '{NOTE}'"
INVOICES = {
    "INV-2207": {"customer": "Hallett & Co", "amount_cents": 128000},
    "INV-2208": {"customer": "Brightwater Ltd", "amount_cents": 56400},
    "INV-2191": {"customer": "Okafor Foods", "amount_cents": 9900},
}


@dataclass
class Run:
    clock: Clock
    prefix: str
    row_versions: dict[str, int]
    note_ids: list[str]
    filter_id: str
    user: str = "usr_31"


def _rv(number: int) -> str:
    """A SQL Server rowversion as its JSON base64 form."""
    return base64.b64encode(number.to_bytes(8, "big")).decode("ascii")


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/invoices?status=overdue", prefix=run.prefix)
    rows = [{"id": k, **v, "status": "overdue"} for k, v in INVOICES.items()]
    log.call("GET", f"{SITE}/api/invoices?status=overdue&page=1&pageSize=50", status=200,
             response={"rows": rows, "total": len(rows)})  # fmt: skip
    log.call("PUT", f"{SITE}/api/me/grid-state/invoices", status=204, response_headers={},
             body={"columnState": [{"colId": "dueDate", "width": 140, "sort": "asc"}],
                   "filterModel": {"status": {"type": "equals", "filter": "overdue"}}})  # fmt: skip
    log.call("POST", f"{SITE}/api/saved-filters", status=201,
             body={"name": "Overdue > 30 days", "grid": "invoices", "model": {"status": "overdue", "ageDays": {"gt": 30}}},
             response={"id": run.filter_id, "name": "Overdue > 30 days", "grid": "invoices"})  # fmt: skip
    status = {k: "overdue" for k in INVOICES}
    updated: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    opened: set[str] = set()
    for verb, invoice, text in script:
        if invoice not in opened:
            opened.add(invoice)
            log.call("GET", f"{SITE}/api/invoices/{invoice}", status=200,
                     response={"id": invoice, **INVOICES[invoice], "status": status[invoice],
                               "rowVersion": _rv(run.row_versions[invoice]), "notes": []})  # fmt: skip
            log.call("POST", f"{SITE}/api/ui/recent", status=204, response_headers={},
                     body={"path": f"/invoices/{invoice}", "title": f"{invoice} {INVOICES[invoice]['customer']}"})  # fmt: skip
        if verb == "hold":
            before = run.row_versions[invoice]
            run.row_versions[invoice] += 1
            log.call("POST", f"{SITE}/api/invoices/{invoice}/hold", status=200,
                     body={"reason": text, "rowVersion": _rv(before)},
                     response={"id": invoice, "status": "on_hold", "holdReason": text,
                               "rowVersion": _rv(run.row_versions[invoice])})  # fmt: skip
            updated.append({"before": {"id": invoice, "status": status[invoice], "hold_reason": None, "row_version": _rv(before)},
                            "after": {"id": invoice, "status": "on_hold", "hold_reason": text,
                                      "row_version": _rv(run.row_versions[invoice])}})  # fmt: skip
            status[invoice] = "on_hold"
        else:
            nid = run.note_ids.pop(0)
            created = run.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")
            note = {"id": nid, "invoice_id": invoice, "text": text, "author_id": run.user, "created_at": created}
            log.call("POST", f"{SITE}/api/invoices/{invoice}/notes", status=201, body={"text": text}, response=note)
            notes.append(note)
    dbdiff = diff(
        invoices={"updated": updated},
        invoice_notes={"inserted": notes},
        saved_filters={"inserted": [{"id": run.filter_id, "owner_id": run.user, "name": "Overdue > 30 days"}]},
    )
    return log, dbdiff


SCRIPT = [("hold", "INV-2207", REASON), ("note", "INV-2207", NOTE)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("hold", "INV-2207", REASON)],
    "wrong_entity": [("hold", "INV-2208", REASON), ("note", "INV-2207", NOTE)],
    "wrong_order": [("note", "INV-2207", NOTE), ("hold", "INV-2207", REASON)],
}


def recorded_run() -> Run:
    return Run(
        clock(2026, 5, 13, 14, 21), "r", {"INV-2207": 2001, "INV-2208": 1770, "INV-2191": 1502}, ["nt_4410"], "sf_77"
    )


def later_run() -> Run:
    return Run(
        clock(2026, 5, 20, 8, 7), "a", {"INV-2207": 2544, "INV-2208": 2310, "INV-2191": 1502}, ["nt_4795"], "sf_91"
    )


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(recorded_run(), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_inv_2207"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(later_run(), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(later_run().clock, SITE), None)
    )
    return recording, attempts
