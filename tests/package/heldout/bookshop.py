"""Bookshop (HAR in a ZIP): a lazily created basket with `lock_version`, a `_csrf` body field from
the session, a 409 on a stale basket retried after a re-read, recommendations and RUM on other
hosts, an order whose request carries a client clock, a request id and the expected total."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, har_document, task_doc, zip_files

SITE = "https://books.example.org"
INSTRUCTION = "Buy two paperback copies of Dune with standard delivery."
BOOKS = {
    "bk_1021": ("Dune (paperback)", 1899),
    "bk_1022": ("Dune Messiah (paperback)", 1699),
    "bk_1030": ("Children of Dune (paperback)", 1799),
}
SHIPPING = {"standard": 499, "express": 1299}


@dataclass
class Run:
    clock: Clock
    prefix: str
    basket: str
    lines: list[str]
    order: str
    lock: int
    csrf: str
    request_id: str
    conflict: bool
    basket_rows: list[dict[str, Any]] = field(default_factory=list)


def _basket_view(run: Run, status: str) -> dict[str, Any]:
    total = sum(BOOKS[r["book_id"]][1] * r["qty"] for r in run.basket_rows)
    return {
        "id": run.basket,
        "lock_version": run.lock,
        "status": status,
        "lines": run.basket_rows,
        "total_cents": total,
    }


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/basket", prefix=run.prefix)
    web = {"x-requested-with": "XMLHttpRequest"}
    log.call("GET", f"{SITE}/basket", status=200, resource_type="document",
             response="<!doctype html><meta name=csrf-param content=_csrf>", response_headers={"content-type": "text/html"})  # fmt: skip
    log.call("GET", f"{SITE}/assets/application-5d1e.js", status=200, resource_type="script", response_headers={})
    log.call(
        "GET", f"{SITE}/api/session", status=200, headers=web, response={"user": {"id": "u_501"}, "_csrf": run.csrf}
    )
    catalogue = [{"id": k, "title": t, "price_cents": p} for k, (t, p) in BOOKS.items()]
    log.call("GET", f"{SITE}/api/books?q=dune&format=paperback", status=200, headers=web, response={"books": catalogue})
    log.call("POST", "https://rum.books-cdn.net/ingest", status=202, body={"lcp": 1830, "page": "/basket"})
    status = "open"
    first_lock = run.lock
    log.call("GET", f"{SITE}/api/basket", status=200, headers=web, response=_basket_view(run, status))
    orders: list[dict[str, Any]] = []
    order_lines: list[dict[str, Any]] = []
    for action in script:
        if action[0] == "add":
            _, book, qty = action
            if run.conflict:  # another tab touched the basket: stale lock, re-read, retry
                run.conflict = False
                run.lock += 1
                log.call("POST", f"{SITE}/api/basket/lines", status=409, headers=web,
                         body={"_csrf": run.csrf, "book_id": book, "qty": qty, "lock_version": run.lock - 1},
                         response={"error": "stale_basket", "lock_version": run.lock})  # fmt: skip
                log.call("GET", f"{SITE}/api/basket", status=200, headers=web, response=_basket_view(run, status))
            line = {"id": run.lines.pop(0), "basket_id": run.basket, "book_id": book, "qty": qty}
            run.basket_rows.append(line)
            sent = {"_csrf": run.csrf, "book_id": book, "qty": qty, "lock_version": run.lock}
            run.lock += 1
            log.call("POST", f"{SITE}/api/basket/lines", status=201, headers=web, body=sent,
                     response={"line": line, "basket": {"id": run.basket, "lock_version": run.lock}})  # fmt: skip
            log.call("POST", "https://recs.shelfwise.io/v2/related", status=200,
                     body={"seed": book, "surface": "basket", "session": run.request_id[-6:]},
                     response={"items": [{"id": "bk_1030", "score": 0.91}, {"id": "bk_1022", "score": 0.88}]})  # fmt: skip
        elif action[0] == "set_qty":
            line = run.basket_rows[-1]
            sent = {"_csrf": run.csrf, "qty": action[1], "lock_version": run.lock}
            if status != "open":
                log.call("PATCH", f"{SITE}/api/basket/lines/{line['id']}", status=422, headers=web, body=sent,
                         response={"error": "basket_closed"})  # fmt: skip
                continue
            line["qty"] = action[1]
            run.lock += 1
            log.call("PATCH", f"{SITE}/api/basket/lines/{line['id']}", status=200, headers=web, body=sent,
                     response={"line": line, "basket": {"id": run.basket, "lock_version": run.lock}})  # fmt: skip
        elif action[0] == "checkout":
            total = _basket_view(run, status)["total_cents"] + SHIPPING[action[1]]
            placed = run.clock.now.strftime("%Y-%m-%dT%H:%M:%SZ")
            sent = {"_csrf": run.csrf, "basket_id": run.basket, "lock_version": run.lock, "delivery": action[1],
                    "expected_total_cents": total, "client_ts": int(run.clock.now.timestamp() * 1000),
                    "request_id": run.request_id}  # fmt: skip
            snapshot = [{"order_id": run.order, "book_id": r["book_id"], "qty": r["qty"]} for r in run.basket_rows]
            order = {
                "id": run.order,
                "status": "placed",
                "delivery": action[1],
                "total_cents": total,
                "lines": snapshot,
            }
            status = "ordered"
            run.lock += 1
            log.call("POST", f"{SITE}/api/orders", status=201, headers=web, body=sent, response={"order": order})
            log.call("GET", f"{SITE}/api/orders/{run.order}", status=200, headers=web, response=order)
            orders.append({"id": run.order, "basket_id": run.basket, "delivery": action[1], "total_cents": total,
                           "placed_at": placed})  # fmt: skip
            order_lines.extend(snapshot)
    dbdiff = diff(
        basket_lines={"inserted": run.basket_rows},
        baskets={"updated": [{"before": {"id": run.basket, "status": "open", "lock_version": first_lock},
                              "after": {"id": run.basket, "status": status, "lock_version": run.lock}}]},
        orders={"inserted": orders},
        order_lines={"inserted": order_lines},
    )  # fmt: skip
    return log, dbdiff


SCRIPT = [("add", "bk_1021", 1), ("set_qty", 2), ("checkout", "standard")]
VARIANTS: dict[str, list[tuple[Any, ...]]] = {
    "good": SCRIPT,
    "missing_write": [("add", "bk_1021", 1), ("checkout", "standard")],
    "wrong_entity": [("add", "bk_1022", 1), ("set_qty", 2), ("checkout", "standard")],
    "wrong_order": [("add", "bk_1021", 1), ("checkout", "standard"), ("set_qty", 2)],
}


def recorded_run() -> Run:
    return Run(clock(2026, 5, 11, 9, 4), "r", "bsk_88f2", ["ln_5001", "ln_5002"], "O-24017", 3,
               "Yk3Jd9Qm2LxP0vRt7sWc4hNa8eUf1ZoB", "req_7c41d2e9", conflict=True)  # fmt: skip


def later_run() -> Run:
    return Run(clock(2026, 5, 16, 17, 52), "a", "bsk_a917", ["ln_6123", "ln_6124"], "O-24188", 11,
               "Pq8Lm2Vx5Rt9Kd3Hs7Jw1Nb6Yc4Ze0Ga", "req_e05b77a1", conflict=False)  # fmt: skip


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(recorded_run(), SCRIPT)
    recording = zip_files(
        {
            "task.json": task_doc(INSTRUCTION, SITE, "rec_books_24017"),
            "capture.har": har_document(log.requests),
            "dbdiff.json": dbdiff,
        }
    )
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(later_run(), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    empty = HttpLog(later_run().clock, SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts
