"""Orders grid (echo network.json): grid state saved and a bookmark kept while browsing, the order
read for its `version`, then a PATCH that sends it back with the status and tracking number."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://ops.parcelpoint.example"
TRACKING = "1Z999AA10123456784"
INSTRUCTION = f"Mark order 4411 as shipped with tracking number {TRACKING}, then notify the customer."
ORDERS = {"4411": "Ines Moreau", "4412": "Paul Adeyemi"}


@dataclass
class Run:
    clock: Clock
    prefix: str
    versions: dict[str, int]
    notification: str


def play(run: Run, script: list[tuple[str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/orders", prefix=run.prefix)
    log.call("GET", f"{SITE}/api/orders?status=packed", status=200,
             response={"rows": [{"id": int(k), "customer": v, "status": "packed"} for k, v in ORDERS.items()]})  # fmt: skip
    log.call("POST", f"{SITE}/api/grid/save", status=200,
             body={"grid": "orders", "columns": ["id", "customer", "status"], "sort": [{"col": "id", "dir": "desc"}]},
             response={"ok": True})  # fmt: skip
    updates: list[dict[str, Any]] = []
    notes: list[dict[str, Any]] = []
    status = {k: "packed" for k in ORDERS}
    for verb, order in script:
        if verb == "ship":
            log.call("GET", f"{SITE}/api/orders/{order}", status=200,
                     response={"id": int(order), "status": status[order], "version": run.versions[order]})  # fmt: skip
            log.call("POST", f"{SITE}/api/bookmarks", status=201, body={"url": f"/orders/{order}", "label": f"Order {order}"},
                     response={"id": f"bm_{run.versions[order]}", "url": f"/orders/{order}"})  # fmt: skip
            sent = {"status": "shipped", "trackingNumber": TRACKING, "version": run.versions[order]}
            run.versions[order] += 1
            log.call("PATCH", f"{SITE}/api/orders/{order}", status=200, body=sent,
                     response={"id": int(order), "status": "shipped", "version": run.versions[order]})  # fmt: skip
            updates.append({"before": {"id": int(order), "status": "packed", "tracking_number": None},
                            "after": {"id": int(order), "status": "shipped", "tracking_number": TRACKING}})  # fmt: skip
            status[order] = "shipped"
        else:
            log.call("POST", f"{SITE}/api/orders/{order}/notifications", status=201, body={"template": "shipped"},
                     response={"id": run.notification, "template": "shipped", "order_status": status[order]})  # fmt: skip
            notes.append(
                {"id": run.notification, "order_id": int(order), "template": "shipped", "order_status": status[order]}
            )
    return log, diff(orders={"updated": updates}, notifications={"inserted": notes},
                     grid_states={"updated": [{"before": {"grid": "orders", "sort": "id"}, "after": {"grid": "orders", "sort": "-id"}}]})  # fmt: skip


SCRIPT = [("ship", "4411"), ("notify", "4411")]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("ship", "4411")],
    "wrong_entity": [("ship", "4412"), ("notify", "4411")],
    "wrong_order": [("notify", "4411"), ("ship", "4411")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 5, 9, 14, 0), "r", {"4411": 12, "4412": 3}, "ntf_501"), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_grid_4411"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(Run(clock(2026, 5, 14, 8, 20), "a", {"4411": 2, "4412": 7}, "ntf_644"), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 14, 8, 20), SITE), None)
    )
    return recording, attempts
