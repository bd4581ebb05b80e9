"""Coffee shop (echo network.json): the first add names no cart (the session's cart is created or
found by the server) and every later cart write sends the optimistic-lock `cartVersion` the last
answer gave; the checkout passes an address and a payment method, so the cart, not the address, is
the main entity. Good attempts also take other paths: a returning agent that reads neither its
session nor its addresses, and one that reads the cart first and sends its id and version from the
first add on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://beans.example.com"
INSTRUCTION = (
    "Buy one bag of Kenya Nyeri (sku_kenya_250) and two bags of Guatemala Antigua (sku_guate_250), ship them to "
    "my Work address and pay with the Visa card pm_visa_4242."
)
PRICES = {"sku_kenya_250": 1650, "sku_guate_250": 1390, "sku_brazil_250": 1190}
ADDRESSES = [
    {"id": "addr_home", "label": "Home", "city": "Leipzig"},
    {"id": "addr_work", "label": "Work", "city": "Halle"},
]


@dataclass
class Run:
    clock: Clock
    prefix: str
    cart: str
    order: str
    version: int
    csrf: str
    lines: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False


def _cart(run: Run) -> dict[str, Any]:
    total = sum(PRICES[line["sku"]] * line["qty"] for line in run.lines)
    return {"id": run.cart, "cartVersion": run.version, "lines": run.lines, "total": total}


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/shop", prefix=run.prefix)
    log.call("GET", f"{SITE}/shop", status=200, resource_type="document", response="<!doctype html>",
             response_headers={"content-type": "text/html"})  # fmt: skip
    inserted: list[dict[str, Any]] = []
    orders: list[dict[str, Any]] = []
    order_lines: list[dict[str, Any]] = []
    for step in script:
        verb = step[0]
        if verb == "session":
            log.call("GET", f"{SITE}/api/session", status=200, response={"user": {"id": "u_77"}, "csrf": run.csrf})
        elif verb == "read_cart":
            log.call("GET", f"{SITE}/api/cart", status=200, response={"cart": _cart(run)})
        elif verb == "addresses":
            log.call("GET", f"{SITE}/api/addresses", status=200, response={"addresses": ADDRESSES})
        elif verb == "add":
            _, sku, qty, named = step
            body: dict[str, Any] = {"sku": sku, "qty": qty}
            if named:  # the agent knows its cart: it says which, and at which version
                body.update({"cartId": run.cart, "cartVersion": run.version})
            line = {"cart_id": run.cart, "sku": sku, "qty": qty}
            run.lines.append(line)
            inserted.append(line)
            run.version += 1
            log.call("POST", f"{SITE}/api/cart/items", status=201, body=body, headers={"x-csrf-token": run.csrf},
                     response={"cart": _cart(run)})  # fmt: skip
        else:
            _, address = step
            body = {"cartId": run.cart, "cartVersion": run.version, "addressId": address,
                    "paymentMethodId": "pm_visa_4242", "clientTime": int(run.clock.now.timestamp())}  # fmt: skip
            order = {"id": run.order, "cartId": run.cart, "status": "placed", "total": _cart(run)["total"]}
            log.call("POST", f"{SITE}/api/checkout", status=201, body=body, headers={"x-csrf-token": run.csrf},
                     response={"order": order})  # fmt: skip
            orders.append(
                {"id": run.order, "cart_id": run.cart, "address_id": address, "payment_method_id": "pm_visa_4242"}
            )
            order_lines += [{"order_id": run.order, "sku": line["sku"], "qty": line["qty"]} for line in run.lines]
    return log, diff(
        cart_lines={"inserted": inserted}, orders={"inserted": orders}, order_lines={"inserted": order_lines}
    )


RECORDED = [("session",), ("add", "sku_kenya_250", 1, False), ("add", "sku_guate_250", 2, True),
            ("addresses",), ("checkout", "addr_work")]  # fmt: skip
SCRIPTS = {
    "good": RECORDED,
    # a returning agent: no session read, no address read (it knows addr_work)
    "good_returning": [
        ("add", "sku_kenya_250", 1, False),
        ("add", "sku_guate_250", 2, True),
        ("checkout", "addr_work"),
    ],
    # reads its cart first, so it names the cart and its version from the first add on; addresses read first
    "good_read_first": [
        ("addresses",),
        ("read_cart",),
        ("add", "sku_kenya_250", 1, True),
        ("add", "sku_guate_250", 2, True),
        ("checkout", "addr_work"),
    ],
    "wrong_entity": [
        ("session",),
        ("add", "sku_kenya_250", 1, False),
        ("add", "sku_guate_250", 2, True),
        ("addresses",),
        ("checkout", "addr_home"),
    ],
    "missing_write": [("session",), ("add", "sku_kenya_250", 1, False), ("addresses",), ("checkout", "addr_work")],
    "wrong_order": [
        ("session",),
        ("add", "sku_kenya_250", 1, False),
        ("addresses",),
        ("checkout", "addr_work"),
        ("add", "sku_guate_250", 2, True),
    ],
    "wrong_content": [
        ("session",),
        ("add", "sku_kenya_250", 1, False),
        ("add", "sku_guate_250", 3, True),
        ("addresses",),
        ("checkout", "addr_work"),
    ],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recorded = Run(clock(2026, 6, 2, 9, 0), "r", "cart_5510", "ord_3001", 4, "c5Rf8Kq2Wm")
    log, dbdiff = play(recorded, RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_beans"), log, dbdiff))
    attempts = {}
    for kind, script in SCRIPTS.items():
        later = Run(clock(2026, 6, 9, 17, 30), "a", "cart_7702", "ord_3190", 12, "Zt4Lp9Xy2B")
        attempt_log, attempt_diff = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 6, 9, 17, 30), SITE), None)
    )
    return recording, attempts
