"""Stripe API from a billing script on stripe-node (echo network.json: numeric ids, epoch-ms times,
header lists; Stripe is the store: no database diff). Class a of issue 28, sibling-entity writes:
raising a plan's price creates a new price (`POST /v1/prices`, taking over the lookup key with
`transfer_lookup_key=true`), makes it the product's default (`POST /v1/products/<prod>`), and
archives the old monthly price (`POST /v1/prices/<old>` with `active=false`). The new price is the
main entity; the old one is a sibling the instruction names, listed beside the yearly price and
a legacy monthly one.

Real shapes: form-encoded bodies with bracket keys (`recurring[interval]=month`), `Stripe-Version`,
an `Idempotency-Key` (a fresh uuid) on every POST, answers with `request-id` and
`idempotency-key` headers, objects `{"id": "price_...", "object": "price", "active",
"unit_amount", "currency", "recurring", "lookup_key", "product"}`, lists `{"object": "list",
"data", "has_more", "url"}`.

Attempts: `good` (later: another new price id, idempotency keys, request ids),
`good_archive_first` (archives the old price before creating the new one): full marks. `empty`:
0. `missing_write` (the old price left active), `wrong_entity` (archives the yearly price instead),
`stray_write` (also archives the legacy 2024 price): must fail.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_heldout.recorder import Recorder, at, echo_document
from tests.package.rewards_kit import Truth, hexid, uuid_from

API = "https://api.stripe.com"
PRODUCT = "prod_PQx7Lm2VbN4kRt"
INSTRUCTION = (
    "Raise the Pro plan's monthly price to 12.00 EUR: create a new monthly price of 12.00 EUR for the Pro product "
    "(take over the lookup key pro_monthly), make it the product's default price, and archive the old 10.00 EUR "
    "monthly price."
)
PRICES = {"price_1OqLm2VbN4kRtMonth": ("Pro monthly", 1000, "month", "pro_monthly"),
          "price_1OqLm2VbN4kRtYear0": ("Pro yearly", 10000, "year", "pro_yearly"),
          "price_1MzX8cLegacy2024Mn": ("Pro monthly (legacy 2024)", 900, "month", None)}  # fmt: skip
OLD, YEARLY, LEGACY = list(PRICES)
FORM = "application/x-www-form-urlencoded"


def _price(
    pid: str, nickname: str, cents: int, interval: str, lookup: str | None, active: bool = True
) -> dict[str, Any]:
    return {"id": pid, "object": "price", "active": active, "billing_scheme": "per_unit", "created": 1704067200 + int(hexid(pid, 5), 16),
            "currency": "eur", "livemode": False, "lookup_key": lookup, "metadata": {}, "nickname": nickname, "product": PRODUCT,
            "recurring": {"aggregate_usage": None, "interval": interval, "interval_count": 1, "usage_type": "licensed"},
            "tax_behavior": "inclusive", "type": "recurring", "unit_amount": cents, "unit_amount_decimal": str(cents)}  # fmt: skip


def play(seed: str, start: Any, steps: list[tuple[str, ...]]) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    new = "price_1P" + hexid(f"{seed}/price", 14).replace("0", "Q").replace("1", "x")
    lookups = {p: v[3] for p, v in PRICES.items()}
    base = {"Authorization": f"Bearer sk_test_51Nw{hexid(seed + '/sk', 40)}", "Stripe-Version": "2024-04-10",
            "User-Agent": "Stripe/v1 NodeBindings/15.3.0", "X-Stripe-Client-User-Agent": '{"bindings_version":"15.3.0","lang":"node"}'}  # fmt: skip

    def post(path: str, fields: list[tuple[str, str]], answer: dict[str, Any]) -> str:
        key = uuid_from(f"{seed}/idem/{len(rec.exchanges)}")
        return rec.send("POST", f"{API}{path}", status=200, body=urlencode(fields), headers={**base, "Content-Type": FORM, "Idempotency-Key": key},
                        answer=answer, answer_headers={"Content-Type": "application/json", "request-id": f"req_{hexid(key, 14)}",
                                                       "idempotency-key": key, "original-request": f"req_{hexid(key, 14)}", "stripe-version": "2024-04-10"})  # fmt: skip

    for step in steps:
        if step[0] == "list":
            data = [_price(p, n, c, i, lookups[p]) for p, (n, c, i, _) in PRICES.items()]
            rec.send("GET", f"{API}/v1/prices?product={PRODUCT}&active=true&limit=10", status=200, headers=base,
                     answer={"object": "list", "data": data, "has_more": False, "url": "/v1/prices"},
                     answer_headers={"Content-Type": "application/json", "request-id": f"req_{hexid(seed + '/list', 14)}"})  # fmt: skip
        elif step[0] == "create":
            lookups[OLD] = None
            fields = [("currency", "eur"), ("unit_amount", "1200"), ("recurring[interval]", "month"), ("product", PRODUCT),
                      ("nickname", "Pro monthly 2026"), ("lookup_key", "pro_monthly"), ("transfer_lookup_key", "true"), ("tax_behavior", "inclusive")]  # fmt: skip
            cid = post("/v1/prices", fields, _price(new, "Pro monthly 2026", 1200, "month", "pro_monthly"))
            truth.add(cid, "create the 12.00 EUR monthly price")
        elif step[0] == "default":
            product = {
                "id": PRODUCT,
                "object": "product",
                "active": True,
                "name": "Pro",
                "default_price": new,
                "updated": 1779000000,
            }
            cid = post(f"/v1/products/{PRODUCT}", [("default_price", new)], product)
            truth.add(cid, "make it the product's default price")
        else:  # archive
            pid = step[1]
            nickname, cents, interval, _ = PRICES[pid]
            cid = post(
                f"/v1/prices/{pid}",
                [("active", "false")],
                _price(pid, nickname, cents, interval, lookups[pid], active=False),
            )
            truth.add(cid, f"archive the price {nickname}")
    return rec, truth


RECORDED = [("list",), ("create",), ("default",), ("archive", OLD)]
SCRIPTS = {
    "good": RECORDED,
    "good_archive_first": [("list",), ("archive", OLD), ("create",), ("default",)],
    "missing_write": [("list",), ("create",), ("default",)],
    "wrong_entity": [("list",), ("create",), ("default",), ("archive", YEARLY)],
    "stray_write": [("list",), ("create",), ("default",), ("archive", OLD), ("archive", LEGACY)],
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "network.json": echo_document(rec, "node://billing-scripts/raise-pro.ts")})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 4, 7, 30), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, "https://dashboard.stripe.com", "rec_pro_price"), rec)
    attempts = {kind: _zip(task_doc("", "https://dashboard.stripe.com", f"attempt_{kind}"), play("later", at(2026, 5, 11, 18, 2), steps)[0])
                for kind, steps in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(
        task_doc("", "https://dashboard.stripe.com", "attempt_empty"), Recorder(at(2026, 5, 11, 18, 2))
    )
    return recording, attempts, truth.document(INSTRUCTION)
