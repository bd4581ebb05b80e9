"""Shopify Admin GraphQL API from a stock-count tool in the browser (Playwright HAR in a ZIP; a SaaS
store: no database diff). Class b of issue 28, a failure inside a 2xx, GraphQL's other way: a
refused mutation answers HTTP 200, no top-level `errors`, `data.<mutation>` present, and the
refusal only in the payload's `userErrors: [{field, message, code}]`. Here
`inventorySetQuantities` carries a concurrency value under a name no word list holds,
`compareQuantity` (the on-hand count the client last read); when the count moved meanwhile it is
refused `COMPARE_QUANTITY_STALE` inside the 200 (`inventoryAdjustmentGroup: null`). The recording
reads the product, sets the Sage apron's on-hand count at the Berlin warehouse (refused: a sale
came in), reads again, sets it again (done), and tags the product.

Real shapes: `POST /admin/api/2024-07/graphql.json` with `X-Shopify-Access-Token`, gids
(`gid://shopify/InventoryItem/...`), `extensions.cost` with the throttle bucket, `x-request-id`,
`X-Shopify-API-Version`, the adjustment group's `changes` (`available`/`on_hand` deltas).

Attempts: `good` (later: the count moved, so another `compareQuantity` and deltas, no refusal),
`good_after_stale` (refused once and redone after a read, as recorded): full marks. `empty`: 0.
`missing_write` (never tags the product); `failed_write` (the set refused `COMPARE_QUANTITY_STALE`
inside the 200, only `userErrors`, and the agent tags the product and stops: the count was never
set); `wrong_entity` (sets the Rust apron's count); `other_operation` (`inventoryAdjustQuantities`
with a delta of 24 on the same item and location: the count becomes 24 more, not 24): must fail.
"""

from __future__ import annotations

from typing import Any

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_c.recorder import har_id, playwright_har
from tests.package.rewards_heldout.recorder import Recorder, at
from tests.package.rewards_kit import Truth, gql, hexid, uuid_from

SHOP = "https://linen-and-loom.myshopify.com"
GRAPHQL = f"{SHOP}/admin/api/2024-07/graphql.json"
TOOL = "https://stock.linen-and-loom.de/count/2026-05"
PRODUCT = "gid://shopify/Product/8841203384610"
VARIANTS = {"Sage": ("gid://shopify/ProductVariant/46120394752290", "gid://shopify/InventoryItem/48311702733090"),
            "Rust": ("gid://shopify/ProductVariant/46120394785058", "gid://shopify/InventoryItem/48311702765858")}  # fmt: skip
BERLIN = "gid://shopify/Location/71204651298"
INSTRUCTION = (
    "After the May stock count, in the Linen & Loom Shopify admin set the on-hand quantity of the Linen Apron "
    "in Sage at the Berlin warehouse to 24 (reason: correction), and tag the Linen Apron product 'recounted-2026-05'."
)
PRODUCT_QUERY = ("query ProductStock($handle: String!) { productByHandle(handle: $handle) { id title tags variants(first: 10) "
                 "{ nodes { id title sku inventoryItem { id inventoryLevel(locationId: \"" + BERLIN + "\") { quantities(names: [\"on_hand\", \"available\"]) "
                 "{ name quantity } } } } } } }")  # fmt: skip
SET = ("mutation SetOnHand($input: InventorySetQuantitiesInput!) { inventorySetQuantities(input: $input) { inventoryAdjustmentGroup "
       "{ createdAt reason referenceDocumentUri changes { name delta quantityAfterChange } } userErrors { field message code } } }")  # fmt: skip
ADJUST = ("mutation AdjustOnHand($input: InventoryAdjustQuantitiesInput!) { inventoryAdjustQuantities(input: $input) { inventoryAdjustmentGroup "
          "{ createdAt reason referenceDocumentUri changes { name delta quantityAfterChange } } userErrors { field message code } } }")  # fmt: skip
TAGS = "mutation TagProduct($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } } }"
REFERENCE = "logistics://linen-and-loom/stockcount/2026-05"


def play(seed: str, start: Any, steps: list[str], counts: list[int], color: str = "Sage") -> tuple[Recorder, Truth]:
    """`counts`: the on-hand count of the Sage and Rust aprons at each read (the shop sells meanwhile)."""
    rec = Recorder(start)
    truth = Truth()
    seen = {"Sage": counts[0], "Rust": 17}
    now = {"Sage": counts[0], "Rust": 17}
    moves = iter(counts[1:])
    tags = ["apron", "linen", "kitchen"]
    token = "shpat_" + hexid(seed + "/token", 32)
    headers = {"X-Shopify-Access-Token": token, "Accept": "application/json", "Origin": "https://stock.linen-and-loom.de",
               "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/125.0.6422.26 Safari/537.36"}  # fmt: skip
    bucket = [2000.0]

    def post(body: dict[str, Any], data: dict[str, Any], cost: int) -> str:
        bucket[0] = min(2000.0, bucket[0] - cost + 40)
        answer = {"data": data, "extensions": {"cost": {"requestedQueryCost": cost, "actualQueryCost": cost,
                  "throttleStatus": {"maximumAvailable": 2000.0, "currentlyAvailable": bucket[0], "restoreRate": 100.0}}}}  # fmt: skip
        rid = uuid_from(f"{seed}/req/{len(rec.exchanges)}")
        return rec.send("POST", GRAPHQL, status=200, body=body, headers={**headers, "Content-Type": "application/json"}, answer=answer,
                        answer_headers={"Content-Type": "application/json; charset=utf-8", "X-Request-Id": rid, "X-Shopify-API-Version": "2024-07",
                                        "X-Shopify-Shop-Api-Call-Limit": "1/40", "Server-Timing": f"processing;dur={90 + len(rec.exchanges) * 7}"})  # fmt: skip

    def group(changes: list[dict[str, Any]]) -> dict[str, Any]:
        stamp = rec.start.strftime("%Y-%m-%dT%H:%M:%SZ")
        return {"createdAt": stamp, "reason": "correction", "referenceDocumentUri": REFERENCE, "changes": changes}

    for step in steps:
        if step == "read":
            nodes = [{"id": v, "title": c, "sku": f"LA-{c.upper()}", "inventoryItem": {"id": i, "inventoryLevel": {"quantities": [
                {"name": "on_hand", "quantity": now[c]}, {"name": "available", "quantity": now[c] - 2}]}}} for c, (v, i) in VARIANTS.items()]  # fmt: skip
            seen = dict(now)
            post(gql(PRODUCT_QUERY, {"handle": "linen-apron"}, "ProductStock"),
                 {"productByHandle": {"id": PRODUCT, "title": "Linen Apron", "tags": list(tags), "variants": {"nodes": nodes}}}, 12)  # fmt: skip
            now["Sage"] = next(moves, now["Sage"])
        elif step == "set":
            item = VARIANTS[color][1]
            variables = {"input": {"name": "on_hand", "reason": "correction", "referenceDocumentUri": REFERENCE,
                                   "quantities": [{"inventoryItemId": item, "locationId": BERLIN, "quantity": 24, "compareQuantity": seen[color]}]}}  # fmt: skip
            if seen[color] != now[color]:
                errors = [{"field": ["input", "quantities", "0", "compareQuantity"], "code": "COMPARE_QUANTITY_STALE",
                           "message": "The compareQuantity argument no longer matches the persisted quantity."}]  # fmt: skip
                cid = post(
                    gql(SET, variables, "SetOnHand"),
                    {"inventorySetQuantities": {"inventoryAdjustmentGroup": None, "userErrors": errors}},
                    10,
                )
                truth.add(
                    har_id(cid), f"set refused: COMPARE_QUANTITY_STALE in userErrors inside the 200 ({color})", "failed"
                )
                continue
            delta = 24 - now[color]
            changes = [
                {"name": "available", "delta": delta, "quantityAfterChange": 22},
                {"name": "on_hand", "delta": delta, "quantityAfterChange": 24},
            ]
            cid = post(
                gql(SET, variables, "SetOnHand"),
                {"inventorySetQuantities": {"inventoryAdjustmentGroup": group(changes), "userErrors": []}},
                10,
            )
            now[color] = 24
            truth.add(har_id(cid), f"set the {color} apron's on-hand count at Berlin to 24")
        elif step == "adjust":
            item = VARIANTS[color][1]
            variables = {"input": {"name": "on_hand", "reason": "correction", "referenceDocumentUri": REFERENCE,
                                   "changes": [{"inventoryItemId": item, "locationId": BERLIN, "delta": 24}]}}  # fmt: skip
            after = now[color] + 24
            changes = [
                {"name": "available", "delta": 24, "quantityAfterChange": after - 2},
                {"name": "on_hand", "delta": 24, "quantityAfterChange": after},
            ]
            post(
                gql(ADJUST, variables, "AdjustOnHand"),
                {"inventoryAdjustQuantities": {"inventoryAdjustmentGroup": group(changes), "userErrors": []}},
                10,
            )
            now[color] = after
        else:  # tag
            tags.append("recounted-2026-05")
            cid = post(gql(TAGS, {"id": PRODUCT, "tags": ["recounted-2026-05"]}, "TagProduct"),
                       {"tagsAdd": {"node": {"id": PRODUCT}, "userErrors": []}}, 10)  # fmt: skip
            truth.add(har_id(cid), "tag the product recounted-2026-05")
    return rec, truth


RECORDED = ["read", "set", "read", "set", "tag"]
LATER = [27, 27]  # the good attempt's count: read 27, nothing sold before its set
SCRIPTS: dict[str, tuple[list[str], list[int], str]] = {
    "good": (["read", "set", "tag"], LATER, "Sage"),
    "good_after_stale": (RECORDED, [27, 26, 26], "Sage"),
    "missing_write": (["read", "set"], LATER, "Sage"),
    "failed_write": (["read", "set", "tag"], [27, 26], "Sage"),
    "wrong_entity": (["read", "set", "tag"], LATER, "Rust"),
    "other_operation": (["read", "adjust", "tag"], LATER, "Sage"),
}


def _zip(task: dict[str, Any], rec: Recorder, seed: str) -> bytes:
    return zip_files({"task.json": task, "stock-count.har": playwright_har(rec, "Stock count · May 2026", seed)})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 14, 7, 12), RECORDED, [31, 30, 30])
    recording = _zip(task_doc(INSTRUCTION, SHOP, "rec_apron_recount"), rec, "rec")
    attempts = {kind: _zip(task_doc("", SHOP, f"attempt_{kind}"), play("later", at(2026, 5, 21, 16, 48), steps, counts, color)[0], f"later/{kind}")
                for kind, (steps, counts, color) in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", SHOP, "attempt_empty"), Recorder(at(2026, 5, 21, 16, 48)), "later/empty")
    return recording, attempts, truth.document(INSTRUCTION)
