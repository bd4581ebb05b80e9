"""Shop over MCP (echo mcp_calls.json): a checkout that passes an address and a payment method,
named before the cart in its arguments. The writes change the cart (the add answers it, the
checkout sends it and answers the order it made), so the cart is the main entity and the address
is a parameter, never the main entity. The checkout sends the cart's `expectedVersion`. Good
attempts: a returning agent that reads no addresses, and one that reads its cart first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files

SITE = "mcp://shop"
INSTRUCTION = "Order two 12 oz mugs (sku_mug_12), ship them to my Office address and pay with the saved Mastercard."
ADDRESSES = [{"addressId": "addr_home_31", "label": "Home"}, {"addressId": "addr_office_32", "label": "Office"}]
CARDS = [{"paymentMethodId": "pm_mc_5454", "brand": "Mastercard"}]


@dataclass
class Run:
    clock: Clock
    prefix: str
    cart: str
    order: str
    version: int


def play(run: Run, script: list[tuple[Any, ...]]) -> tuple[ToolLog, dict[str, Any]]:
    log = ToolLog(run.clock, "shop", prefix=run.prefix)
    lines: list[dict[str, Any]] = []
    orders: list[dict[str, Any]] = []
    count = 0
    for step in script:
        verb = step[0]
        if verb == "cart":
            log.call("shop_get_cart", {}, {"cart": {"id": run.cart, "version": run.version, "itemCount": count}})
        elif verb == "addresses":
            log.call("shop_list_addresses", {}, {"addresses": ADDRESSES, "paymentMethods": CARDS})
        elif verb == "add":
            count += step[1]
            run.version += 1
            log.call("shop_add_to_cart", {"sku": "sku_mug_12", "quantity": step[1]},
                     {"cart": {"id": run.cart, "version": run.version, "itemCount": count}})  # fmt: skip
            lines.append({"cart_id": run.cart, "sku": "sku_mug_12", "quantity": step[1]})
        else:
            arguments = {"addressId": step[1], "paymentMethodId": "pm_mc_5454", "cartId": run.cart,
                         "expectedVersion": run.version}  # fmt: skip
            if not count:
                log.call("shop_checkout", arguments, {"error": "cart is empty"}, is_error=True)
                continue
            log.call(
                "shop_checkout", arguments, {"order": {"id": run.order, "status": "confirmed", "cartId": run.cart}}
            )
            orders.append(
                {"id": run.order, "cart_id": run.cart, "address_id": step[1], "payment_method_id": "pm_mc_5454"}
            )
    return log, diff(cart_lines={"inserted": lines}, orders={"inserted": orders})


RECORDED = [("add", 2), ("addresses",), ("checkout", "addr_office_32")]
SCRIPTS = {
    "good": RECORDED,
    "good_returning": [("add", 2), ("checkout", "addr_office_32")],
    "good_cart_first": [("cart",), ("addresses",), ("add", 2), ("checkout", "addr_office_32")],
    "wrong_entity": [("add", 2), ("addresses",), ("checkout", "addr_home_31")],
    "missing_write": [("addresses",), ("checkout", "addr_office_32")],
    "wrong_order": [("addresses",), ("checkout", "addr_office_32"), ("add", 2)],
    "wrong_content": [("add", 1), ("addresses",), ("checkout", "addr_office_32")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 6, 6, 12, 0), "c", "cart_8812", "ord_55120", 3), RECORDED)
    recording = zip_files(mcp_files(task_doc(INSTRUCTION, SITE, "rec_mugs"), log, dbdiff))
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, attempt_diff = play(Run(clock(2026, 6, 13, 19, 45), "a", "cart_9930", "ord_55301", 17), script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        mcp_files(task_doc("", SITE, "attempt_empty"), ToolLog(clock(2026, 6, 13, 19, 45), "shop"), None)
    )
    return recording, attempts
