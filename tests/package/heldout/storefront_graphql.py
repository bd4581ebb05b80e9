"""Storefront over GraphQL (echo network.json): create a cart, add lines, then set the cart note,
all POSTs to one endpoint; a cart query in between; the platform's own event pipeline on
another host."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, diff, task_doc, zip_files

SITE = "https://brewhouse.example"
GRAPHQL = f"{SITE}/api/2024-04/graphql.json"
NOTE = "Gift, no receipt please"
INSTRUCTION = f"Create a cart, add two oat-milk latte cups (variant 4455) to it, then set the cart note to '{NOTE}'."
VARIANTS_IDS = {"4455": "gid://shopify/ProductVariant/4455", "4456": "gid://shopify/ProductVariant/4456"}
CREATE = "mutation cartCreate($input: CartInput!) { cartCreate(input: $input) { cart { id } userErrors { message } } }"
ADD = ("mutation cartLinesAdd($cartId: ID!, $lines: [CartLineInput!]!) { cartLinesAdd(cartId: $cartId, lines: $lines) "
       "{ cart { id totalQuantity } userErrors { message } } }")  # fmt: skip
NOTE_UPDATE = ("mutation cartNoteUpdate($cartId: ID!, $note: String) { cartNoteUpdate(cartId: $cartId, note: $note) "
               "{ cart { id note } userErrors { message } } }")  # fmt: skip
READ = "query cart($id: ID!) { cart(id: $id) { id totalQuantity lines(first: 10) { edges { node { id } } } } }"


@dataclass
class Run:
    clock: Clock
    prefix: str
    cart: str
    token: str


def play(run: Run, script: list[tuple[str, str]]) -> tuple[HttpLog, dict[str, Any]]:
    log = HttpLog(run.clock, f"{SITE}/products/oat-latte-cup", prefix=run.prefix)
    headers = {"x-shopify-storefront-access-token": run.token}
    log.call("POST", "https://monorail-edge.shopifysvc.example/v1/produce", status=200,
             body={"schema_id": "trekkie_storefront_page_view/1.4", "payload": {"pageType": "product"},
                   "metadata": {"event_created_at_ms": int(run.clock.now.timestamp() * 1000)}},
             response={"result": "ok"})  # fmt: skip
    lines: list[dict[str, Any]] = []
    note: str | None = None
    created = False
    for verb, arg in script:
        if verb == "create":
            created = True
            log.call("POST", GRAPHQL, status=200, headers=headers,
                     body={"query": CREATE, "operationName": "cartCreate", "variables": {"input": {}}},
                     response={"data": {"cartCreate": {"cart": {"id": run.cart}, "userErrors": []}}})  # fmt: skip
        elif verb == "add":
            lines.append({"cart_id": run.cart, "merchandise_id": VARIANTS_IDS[arg], "quantity": 2})
            log.call("POST", GRAPHQL, status=200, headers=headers,
                     body={"query": ADD, "operationName": "cartLinesAdd",
                           "variables": {"cartId": run.cart, "lines": [{"merchandiseId": VARIANTS_IDS[arg], "quantity": 2}]}},
                     response={"data": {"cartLinesAdd": {"cart": {"id": run.cart, "totalQuantity": 2 * len(lines)},
                                                         "userErrors": []}}})  # fmt: skip
            log.call("POST", GRAPHQL, status=200, headers=headers,
                     body={"query": READ, "operationName": "cart", "variables": {"id": run.cart}},
                     response={"data": {"cart": {"id": run.cart, "totalQuantity": 2 * len(lines)}}})  # fmt: skip
        else:
            note = arg
            log.call("POST", GRAPHQL, status=200, headers=headers,
                     body={"query": NOTE_UPDATE, "operationName": "cartNoteUpdate", "variables": {"cartId": run.cart, "note": arg}},
                     response={"data": {"cartNoteUpdate": {"cart": {"id": run.cart, "note": arg}, "userErrors": []}}})  # fmt: skip
    carts = [{"id": run.cart, "note": note}] if created else []
    return log, diff(carts={"inserted": carts}, cart_lines={"inserted": lines})


SCRIPT = [("create", ""), ("add", "4455"), ("note", NOTE)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("create", ""), ("add", "4455")],
    "wrong_entity": [("create", ""), ("add", "4456"), ("note", NOTE)],
    "wrong_order": [("create", ""), ("note", NOTE), ("add", "4455")],
}


def build() -> tuple[bytes, dict[str, bytes]]:
    recorded = Run(clock(2026, 5, 15, 12, 30), "r", "gid://shopify/Cart/Z2NwLXVzLWVhc3QxOjAxSFla", "sf_tok_1")
    log, dbdiff = play(recorded, SCRIPT)
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_brew_cart"), log, dbdiff))
    attempts = {}
    for kind, script in VARIANTS.items():
        later = Run(clock(2026, 5, 25, 18, 2), "a", "gid://shopify/Cart/Z2NwLXVzLWVhc3QxOjAxSkQz", "sf_tok_2")
        attempt_log, attempt_diff = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    attempts["empty"] = zip_files(
        api_files(task_doc("", SITE, "attempt_empty"), HttpLog(clock(2026, 5, 25, 18, 2), SITE), None)
    )
    return recording, attempts
