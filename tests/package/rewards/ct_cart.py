"""A storefront on the commercetools HTTP API (echo network.json; a SaaS: no database diff). Class e
of issue 28, the main entity's shape: every cart write is `POST /<project>/me/carts/<cartId>` with
`{"version": n, "actions": [...]}` (update actions: `addLineItem`, `setShippingAddress`), and the
answer is the whole cart, whose line items carry their own ids and localized names
(`{"id", "productId", "name": {"en-GB": "Espresso Cup Set", "de-DE": ...}, "variant": {"sku"}}`):
the main entity is the cart (`cartId`), never a line item or its name. The cart's `version` is
given by each answer and sent back by the next update.

Attempts: `good` (later: other cart, line item and product-search ids, correlation ids),
`good_one_request` (the two adds and the address sent as three actions of one update),
`good_address_first` (sets the address before adding: other versions): full marks. `empty`: 0.
`missing_write` (no shipping address), `wrong_entity` (fills the customer's older active cart,
found with `GET /me/active-cart`, instead of a new one): must fail.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth, uuid_from

SITE = "https://shop.kaffeehaus.example"
API = "https://api.europe-west1.gcp.commercetools.com/kaffeehaus-prod"
INSTRUCTION = (
    "Create a new cart in EUR for Germany, add 2 x Espresso Cup Set (ECS-01) and 1 x Milk Jug 350 ml (MJ-350), "
    "and set the shipping address to Jonas Weber, Torstrasse 118, 10119 Berlin."
)
PRODUCTS = {"ECS-01": (uuid_from("product/ecs"), "Espresso Cup Set", "Espresso-Tassen-Set", 2490),
            "MJ-350": (uuid_from("product/mj"), "Milk Jug 350 ml", "Milchkännchen 350 ml", 1890)}  # fmt: skip
ADDRESS = {"firstName": "Jonas", "lastName": "Weber", "streetName": "Torstrasse", "streetNumber": "118",
           "postalCode": "10119", "city": "Berlin", "country": "DE"}  # fmt: skip
OLD_CART = uuid_from("cart/older-active")


@dataclass
class Run:
    clock: Clock
    prefix: str
    seed: str


def _money(cents: int) -> dict[str, Any]:
    return {"type": "centPrecision", "currencyCode": "EUR", "centAmount": cents, "fractionDigits": 2}


def play(run: Run, script: list[Any]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/de/cart", prefix=run.prefix)
    truth = Truth()
    headers = {"authorization": f"Bearer {uuid_from(run.seed + '/token').replace('-', '')}"}
    cart_id = uuid_from(f"{run.seed}/cart")
    cart: dict[str, Any] = {"type": "Cart", "id": cart_id, "version": 1, "customerId": uuid_from("customer/jonas"),
                            "lineItems": [], "cartState": "Active", "totalPrice": _money(0), "country": "DE",
                            "inventoryMode": "None", "taxMode": "Platform", "origin": "Customer"}  # fmt: skip

    def answer_headers() -> dict[str, str]:
        return {"content-type": "application/json; charset=utf-8",
                "x-correlation-id": f"projects-{uuid_from(f'{run.seed}/{len(log.requests)}')}"}  # fmt: skip

    def apply(action: dict[str, Any]) -> None:
        if action["action"] == "addLineItem":
            pid, en, de, cents = PRODUCTS[action["sku"]]
            cart["lineItems"].append({"id": uuid_from(f"{run.seed}/line/{action['sku']}"), "productId": pid,
                                      "name": {"en-GB": en, "de-DE": de}, "productSlug": {"en-GB": en.lower().replace(" ", "-")},
                                      "variant": {"id": 1, "sku": action["sku"]}, "price": {"value": _money(cents)},
                                      "quantity": action["quantity"], "totalPrice": _money(cents * action["quantity"]),
                                      "lineItemMode": "Standard"})  # fmt: skip
            cart["totalPrice"] = _money(sum(li["totalPrice"]["centAmount"] for li in cart["lineItems"]))
        else:
            cart["shippingAddress"] = dict(action["address"])

    actions = {"ECS-01": {"action": "addLineItem", "sku": "ECS-01", "quantity": 2},
               "MJ-350": {"action": "addLineItem", "sku": "MJ-350", "quantity": 1},
               "address": {"action": "setShippingAddress", "address": ADDRESS}}  # fmt: skip
    for step in script:
        if step == "create":
            log.call("POST", f"{API}/me/carts", status=201, headers=headers, body={"currency": "EUR", "country": "DE"},
                     response=dict(cart), response_headers=answer_headers())  # fmt: skip
        elif step == "active":  # the customer's cart from an earlier visit
            cart.update(id=OLD_CART, version=7)
            log.call(
                "GET",
                f"{API}/me/active-cart",
                status=200,
                headers=headers,
                response=dict(cart),
                response_headers=answer_headers(),
            )
        elif step == "search":
            results = [{"id": pid, "name": {"en-GB": en, "de-DE": de}, "masterVariant": {"id": 1, "sku": sku, "prices": [{"value": _money(c)}]}}
                       for sku, (pid, en, de, c) in PRODUCTS.items()]  # fmt: skip
            log.call("GET", f"{API}/product-projections/search?text.en-GB=espresso%20milk&staged=false&limit=20", status=200,
                     headers=headers, response={"limit": 20, "offset": 0, "count": 2, "total": 2, "results": results},
                     response_headers=answer_headers())  # fmt: skip
        else:  # one update: a list of action names
            sent = [actions[a] for a in step]
            body = {"version": cart["version"], "actions": sent}
            for action in sent:
                apply(action)
            cart["version"] += len(sent)
            cid = log.call("POST", f"{API}/me/carts/{cart['id']}", status=200, headers=headers, body=body,
                           response=dict(cart), response_headers=answer_headers())  # fmt: skip
            truth.add(cid, "cart update: " + ", ".join(a if a == "address" else f"add {a}" for a in step))
    return log, truth


RECORDED: list[Any] = ["search", "create", ["ECS-01"], ["MJ-350"], ["address"]]
SCRIPTS: dict[str, list[Any]] = {
    "good": RECORDED,
    "good_one_request": ["search", "create", ["ECS-01", "MJ-350", "address"]],
    "good_address_first": ["create", ["address"], "search", ["ECS-01"], ["MJ-350"]],
    "missing_write": ["search", "create", ["ECS-01"], ["MJ-350"]],
    "wrong_entity": ["active", "search", ["ECS-01"], ["MJ-350"], ["address"]],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(Run(clock(2026, 5, 22, 19, 5), "r", "ct-recorded"), RECORDED)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_kaffeehaus_cart"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        attempt_log, _ = play(Run(clock(2026, 6, 3, 12, 44), "a", "ct-later"), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 6, 3, 12, 44), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
