"""Coffee shop (echo network.json): a cart the server creates on first read, an optimistic-lock
`version` on every cart write, a `csrf` field from the session, a 409 retried after re-reading
the cart, a checkout with `expectedTotal`, a nonce and a client clock; recommendations and
telemetry posted to other hosts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://roastery.example.com"
INSTRUCTION = (
    "Order one bag of Kenya Nyeri 250 g and two bags of Guatemala Huehuetenango 250 g, shipped by standard post."
)
PRODUCTS = {"p_kenya": ("Kenya Nyeri 250 g", 1650), "p_guate": ("Guatemala Huehuetenango 250 g", 1390),
            "p_brazil": ("Brazil Cerrado 250 g", 1190)}  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    cart: str
    items: list[str]
    order: str
    version: int
    csrf: str
    nonce: str
    conflict: bool
    rows: list[dict[str, Any]] = field(default_factory=list)


def _cart(run: Run) -> dict[str, Any]:
    total = sum(PRODUCTS[r["product_id"]][1] * r["quantity"] for r in run.rows)
    return {"id": run.cart, "version": run.version, "items": run.rows, "total": total}


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/shop", prefix=run.prefix)
    log.call("GET", f"{SITE}/shop", status=200, resource_type="document", response="<!doctype html>",
             response_headers={"content-type": "text/html"})  # fmt: skip
    log.call("GET", f"{SITE}/api/session", status=200, response={"userId": "u_77", "csrf": run.csrf})
    log.call("GET", f"{SITE}/api/products?category=filter", status=200,
             response={"products": [{"id": k, "name": n, "price": p} for k, (n, p) in PRODUCTS.items()]})  # fmt: skip
    log.call("GET", f"{SITE}/api/cart", status=200, response=_cart(run))
    orders: list[dict[str, Any]] = []
    lines: list[dict[str, Any]] = []
    for action in script:
        if action[0] == "add":
            _, product, quantity = action
            if run.conflict:
                run.conflict = False
                run.version += 1
                log.call("POST", f"{SITE}/api/cart/{run.cart}/items", status=409,
                         body={"csrf": run.csrf, "productId": product, "quantity": quantity, "version": run.version - 1},
                         response={"error": "version_conflict", "currentVersion": run.version})  # fmt: skip
                log.call("GET", f"{SITE}/api/cart", status=200, response=_cart(run))
            item = {"id": run.items.pop(0), "cart_id": run.cart, "product_id": product, "quantity": quantity}
            run.rows.append(item)
            sent = {"csrf": run.csrf, "productId": product, "quantity": quantity, "version": run.version}
            run.version += 1
            log.call("POST", f"{SITE}/api/cart/{run.cart}/items", status=201, body=sent,
                     response={"item": item, "cart": {"id": run.cart, "version": run.version, "total": _cart(run)["total"]}})  # fmt: skip
            log.call("POST", "https://api.recsy.example.net/v1/recommendations", status=200,
                     body={"context": "cart", "items": [product]}, response={"recommendations": [{"sku": "p_brazil"}]})  # fmt: skip
        else:
            total = _cart(run)["total"] + 450
            sent = {"csrf": run.csrf, "cartId": run.cart, "version": run.version, "shipping": action[1],
                    "expectedTotal": total, "nonce": run.nonce, "clientTime": int(run.clock.now.timestamp())}  # fmt: skip
            order = {"id": run.order, "cartId": run.cart, "status": "placed", "total": total}
            log.call("POST", f"{SITE}/api/checkout", status=201, body=sent, response={"order": order})
            log.call("POST", "https://t.shoplytics.example/v2/track", status=204, response_headers={},
                     body={"event": "purchase", "value": total})  # fmt: skip
            orders.append({"id": run.order, "cart_id": run.cart, "shipping": action[1], "total": total})
            lines += [
                {"order_id": run.order, "product_id": r["product_id"], "quantity": r["quantity"]} for r in run.rows
            ]
    return log, diff(cart_items={"inserted": run.rows}, orders={"inserted": orders}, order_lines={"inserted": lines})


SCRIPT = [("add", "p_kenya", 1), ("add", "p_guate", 2), ("checkout", "standard")]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("add", "p_kenya", 1), ("checkout", "standard")],
    "wrong_entity": [("add", "p_brazil", 1), ("add", "p_guate", 2), ("checkout", "standard")],
    "wrong_order": [("add", "p_kenya", 1), ("checkout", "standard"), ("add", "p_guate", 2)],
}


def recorded_run() -> Run:
    return Run(clock(2026, 5, 8, 10, 0), "r", "cart_5510", ["ci_901", "ci_902"], "ord_3001", 4,
               "c5Rf8Kq2Wm", "n-4e1f9a", conflict=True)  # fmt: skip


def later_run() -> Run:
    return Run(clock(2026, 5, 12, 18, 30), "a", "cart_6021", ["ci_977", "ci_978"], "ord_3090", 1,
               "Zt4Lp9Xy2B", "n-88c02d", conflict=False)  # fmt: skip


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(recorded_run(), SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_roastery"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        attempt_log, attempt_diff = play(later_run(), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(later_run().clock, SITE), None)
    )
    return recording, attempts
