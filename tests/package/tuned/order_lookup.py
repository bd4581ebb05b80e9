"""Order lookup (echo network.json), read-only: search an order, open it, report status and carrier.
Attempts report their answer in task.json `task.answer`."""

from __future__ import annotations

from tests.package.corpus_kit import HttpLog, api_files, clock, task_doc, zip_files

SITE = "https://track.parcelpoint.example"
INSTRUCTION = "What is the delivery status of order ORD-77120, and which carrier has it?"
ORDERS = {
    "ORD-77120": {"status": "in_transit", "carrier": "DHL Express", "eta": "2026-05-19"},
    "ORD-77121": {"status": "delivered", "carrier": "UPS", "eta": "2026-05-12"},
}


def play(prefix: str, opened: list[str], day: int) -> HttpLog:
    log = HttpLog(clock(2026, 5, day, 16, 0), f"{SITE}/orders", prefix=prefix)
    log.call("GET", f"{SITE}/api/orders?search=ORD-7712", status=200,
             response={"orders": [{"id": k, "status": v["status"]} for k, v in ORDERS.items()]})  # fmt: skip
    log.call("POST", "https://in.trackmetrics.example/v1/log", status=200, body={"ev": "search"}, response={"ok": 1})
    for order in opened:
        log.call("GET", f"{SITE}/api/orders/{order}", status=200, response={"id": order, **ORDERS[order]})
    return log


VARIANTS = {
    "good": (["ORD-77120"], "ORD-77120 is in transit with DHL Express."),
    "missing_write": ([], "It is probably on its way."),
    "wrong_entity": (["ORD-77121"], "The order was delivered by UPS."),
    "wrong_answer": (["ORD-77120"], "It is in transit with UPS."),
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recording = zip_files(
        api_files(task_doc(INSTRUCTION, SITE, "rec_lookup_77120"), play("r", ["ORD-77120"], 11), None)
    )
    attempts = {}
    for kind, (opened, answer) in VARIANTS.items():
        task = task_doc("", SITE, f"attempt_{kind}", answer=answer)
        attempts[kind] = zip_files(api_files(task, play("a", opened, 16), None))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 16, 16, 0), SITE), None)
    )
    return recording, attempts
