"""Shopify Admin GraphQL API (echo network.json, a custom app's traffic; a SaaS store: no database
diff). Class b of issue 28, a failure inside a 2xx, GraphQL: every answer is HTTP 200. The
recording's first `tagsAdd` is throttled (`{"errors": [{"message": "Throttled", "extensions":
{"code": "THROTTLED"}}]}`, no `data` at all, the cost extension showing the bucket empty) and is
sent again a second later, which succeeds; then `orderUpdate` sets the note. Every answer carries
`extensions.cost` (query cost and the throttle bucket: numbers that differ every run).

Attempts: `good` (later: other costs and bucket levels, no throttling): full marks. `empty`: 0.
`missing_write` (never tags the order) must fail. `failed_write` sends both mutations, but its
`orderUpdate` is answered 200 with `{"data": {"orderUpdate": null}, "errors": [{"message":
"Access denied for orderUpdate field...", "path": ["orderUpdate"], "extensions": {"code":
"ACCESS_DENIED"}}]}` (a token without the `write_orders` scope): the note was never set, so it
must not get full marks (read as "status 200, so it succeeded", it does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth, gql

SITE = "https://acme-outfitters.myshopify.com"
GRAPHQL = f"{SITE}/admin/api/2024-07/graphql.json"
ORDER = "gid://shopify/Order/5829104672834"
NOTE = "Hand-deliver: customer collects at the Leeds store"
INSTRUCTION = f"Tag order #1043 'vip' and set its note to '{NOTE}'."
FIND = ("query OrderByName($q: String!) { orders(first: 1, query: $q) { edges { node { id name tags note "
        "displayFinancialStatus } } } }")  # fmt: skip
TAGS_ADD = "mutation tagsAdd($id: ID!, $tags: [String!]!) { tagsAdd(id: $id, tags: $tags) { node { id } userErrors { field message } } }"
ORDER_UPDATE = ("mutation orderUpdate($input: OrderInput!) { orderUpdate(input: $input) { order { id note tags } "
                "userErrors { field message } } }")  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str
    token: str
    bucket: float  # the throttle bucket's level at the start
    throttled_once: bool


def _cost(run: Run, requested: int, actual: int | None) -> dict[str, Any]:
    if actual is not None:
        run.bucket = max(run.bucket - actual, 0.0)
    return {"cost": {"requestedQueryCost": requested, "actualQueryCost": actual,
                     "throttleStatus": {"maximumAvailable": 2000.0, "currentlyAvailable": run.bucket, "restoreRate": 100.0}}}  # fmt: skip


def play(run: Run, script: list[str]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/admin/orders/5829104672834", prefix=run.prefix)
    truth = Truth()
    headers = {"x-shopify-access-token": run.token}
    answer_headers = {"content-type": "application/json; charset=utf-8", "x-request-id": ""}
    tags: list[str] = ["wholesale"]
    note: str | None = None

    def call(body: dict[str, Any], response: dict[str, Any]) -> str:
        answer_headers["x-request-id"] = f"{run.prefix}{len(log.requests) + 1:02d}-{run.token[-8:]}"
        return log.call("POST", GRAPHQL, status=200, headers=headers, body=body, response=response,
                        response_headers=dict(answer_headers))  # fmt: skip

    for step in script:
        if step == "find":
            node = {"id": ORDER, "name": "#1043", "tags": list(tags), "note": note, "displayFinancialStatus": "PAID"}
            call(gql(FIND, {"q": "name:#1043"}, "OrderByName"),
                 {"data": {"orders": {"edges": [{"node": node}]}}, "extensions": _cost(run, 4, 3)})  # fmt: skip
        elif step == "tag":
            body = gql(TAGS_ADD, {"id": ORDER, "tags": ["vip"]}, "tagsAdd")
            if run.throttled_once:
                run.throttled_once = False
                run.bucket = 4.0
                cid = call(body, {"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED",
                                  "documentation": "https://shopify.dev/api/usage/rate-limits"}}],
                                  "extensions": _cost(run, 10, None)})  # fmt: skip
                truth.add(cid, "tagsAdd throttled (200, errors, no data)", "failed")
                run.clock.tick(1200)
                run.bucket = 124.0
            tags.append("vip")
            cid = call(
                body, {"data": {"tagsAdd": {"node": {"id": ORDER}, "userErrors": []}}, "extensions": _cost(run, 10, 10)}
            )
            truth.add(cid, "tag the order vip")
        elif step in ("note", "note_denied"):
            body = gql(ORDER_UPDATE, {"input": {"id": ORDER, "note": NOTE}}, "orderUpdate")
            if step == "note_denied":
                call(body, {"data": {"orderUpdate": None}, "errors": [{
                    "message": "Access denied for orderUpdate field. Required access: `write_orders` access scope.",
                    "locations": [{"line": 1, "column": 55}], "path": ["orderUpdate"],
                    "extensions": {"code": "ACCESS_DENIED", "documentation": "https://shopify.dev/api/usage/access-scopes",
                                   "requiredAccess": "`write_orders` access scope."}}],
                    "extensions": _cost(run, 10, 1)})  # fmt: skip
                continue
            note = NOTE
            order = {"id": ORDER, "note": NOTE, "tags": list(tags)}
            cid = call(
                body, {"data": {"orderUpdate": {"order": order, "userErrors": []}}, "extensions": _cost(run, 10, 10)}
            )
            truth.add(cid, "set the order note")
    return log, truth


RECORDED = ["find", "tag", "note"]
SCRIPTS = {
    "good": RECORDED,
    "missing_write": ["find", "note"],
    "failed_write": ["find", "tag", "note_denied"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(
        Run(clock(2026, 5, 15, 10, 0), "r", "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", 38.0, True), RECORDED
    )
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_order_1043"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        token = (
            "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"
            if kind != "failed_write"
            else "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"
        )
        attempt_log, _ = play(Run(clock(2026, 5, 22, 15, 37), "a", token, 1980.0, False), script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 22, 15, 37), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
