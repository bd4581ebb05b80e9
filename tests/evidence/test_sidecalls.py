"""Side calls: telemetry, recommendations and UI-state writes are noise by category, never the task."""

from __future__ import annotations

from typing import Any

import pytest

from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.evidence.entities import canonical_key, path_entities
from rlauto_core.evidence.models import EntityRef
from rlauto_core.evidence.sidecalls import registrable
from rlauto_core.importers import import_bytes
from rlauto_core.recording import Recording
from rlauto_core.rules import run_rules
from tests.recording_builders import http, task_json, zip_bytes

SITE = "https://shop.example.com"


def recording(requests: list[dict[str, Any]], instruction: str = "Add the mug to the cart") -> Recording:
    task = task_json(instruction)
    task["metadata"]["site"] = SITE
    data = zip_bytes({"task.json": task, "network.json": {"version": 1, "requests": requests}})
    return import_bytes(data, "r.zip")


def category(call: dict[str, Any], instruction: str = "Add the mug to the cart") -> str | None:
    return build_evidence(recording([call], instruction)).calls[0].noise_category


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        # another host, telemetry words, an acknowledgement
        (http("r1", "POST", "https://ingest.metrics-vendor.example/api/v2/client-events", 200, {"e": 1}, {"accepted": 1}), "telemetry"),
        (http("r1", "POST", "https://widget.chat-vendor.example/api/impression", 204, {"w": "bot"}), "telemetry"),
        (http("r1", "POST", "https://sdk.abtests.example/v1/exposures", 200, {"x": "b"}, {"ok": True}), "telemetry"),
        # recommendations: another host, or a list answered on the site itself
        (http("r1", "POST", "https://recs.vendor.example/v2/related", 200, {"seed": "p1"}, {"items": [{"id": "p2"}]}), "recommendations"),
        (http("r1", "POST", f"{SITE}/api/recommendations", 200, {"ctx": "cart"}, {"items": [{"sku": "p9"}]}), "recommendations"),
        # UI state on the site: grid state, saved filters, bookmarks, preferences, editor cursor
        (http("r1", "POST", f"{SITE}/api/grid/save", 200, {"grid": "orders", "columns": ["id"]}, {"ok": True}), "ui_state"),
        (http("r1", "PUT", f"{SITE}/api/me/grid-state/invoices", 204, {"columnState": []}), "ui_state"),
        (http("r1", "POST", f"{SITE}/api/saved-filters", 201, {"name": "Overdue"}, {"id": "sf_7"}), "ui_state"),
        (http("r1", "POST", f"{SITE}/api/bookmarks", 201, {"url": "/orders/1"}, {"id": "bm_1"}), "ui_state"),
        (http("r1", "PATCH", f"{SITE}/api/users/me/preferences", 200, {"density": "compact"}, {"density": "compact"}), "ui_state"),
        (http("r1", "POST", f"{SITE}/api/editor/state", 204, {"cursor": 12}), "ui_state"),
        (http("r1", "PUT", f"{SITE}/rest/api/3/mypreferences?key=nav", 204, {"value": "collapsed"}), "ui_state"),
        # another host, an acknowledgement, a body describing events (no telemetry word in the url)
        (http("r1", "POST", "https://monorail-edge.platform.example/v1/produce", 200,
              {"schema_id": "page_view/1.4", "metadata": {"event_created_at_ms": 1}}, {"result": "ok"}), "telemetry"),
        # real writes: a payment on another host answers a new object; a calendar event is created on the site
        (http("r1", "POST", "https://api.payments.example/v1/payment_intents", 200, {"amount": 900}, {"id": "pi_1"}), None),
        (http("r1", "POST", f"{SITE}/api/events", 201, {"title": "Launch"}, {"id": "evt_9", "title": "Launch"}), None),
        (http("r1", "POST", f"{SITE}/api/cart/items", 201, {"productId": "p1"}, {"id": "ci_1"}), None),
        (http("r1", "POST", f"{SITE}/api/suggestions", 201, {"text": "dark mode"}, {"id": "sug_3", "text": "dark mode"}), None),
        # a read is never a side call
        (http("r1", "GET", f"{SITE}/api/bookmarks", 200, None, {"items": []}), None),
    ],
)  # fmt: skip
def test_side_calls_by_host_words_and_response(call: dict[str, Any], expected: str | None) -> None:
    assert category(call) == expected


def test_a_ui_state_write_the_instruction_asks_for_is_the_task() -> None:
    saved = http("r1", "POST", f"{SITE}/api/saved-filters", 201, {"name": "Open EU orders"}, {"id": "sf_7"})
    assert category(saved, "Save the current filter as 'Open EU orders'") is None
    assert category(saved, "Call it 'Open EU orders' when you keep it") is None  # a quoted name it sends
    labelled = http("r1", "POST", f"{SITE}/api/bookmarks", 201, {"label": "Order 4411"}, {"id": "bm_1"})
    assert category(labelled, "Mark order 4411 as shipped") == "ui_state"  # naming the order asks for no bookmark


def test_side_calls_are_counted_filtered_and_still_visible() -> None:
    rec = recording(
        [
            http("r1", "POST", f"{SITE}/api/cart/items", 201, {"productId": "p1"}, {"id": "ci_1"}),
            http("r2", "POST", f"{SITE}/api/grid/save", 200, {"grid": "cart"}, {"ok": True}),
            http("r3", "POST", "https://recs.vendor.example/v2/related", 200, {"seed": "p1"}, {"items": []}),
        ]
    )
    evidence = build_evidence(rec)
    assert evidence.noise_removed == {"recommendations": 1, "ui_state": 1}
    assert [c.id for c in evidence.significant] == ["r1"] and evidence.state_changing == ["r1"]
    slim = slim_evidence(rec, evidence)
    assert [c["id"] for c in slim["calls"]] == ["r1"]
    assert slim["side_calls"] == [
        {"id": "r2", "name": "POST /api/grid/save", "side_call": "ui_state"},
        {"id": "r3", "name": "POST /v2/related", "side_call": "recommendations"},
    ]
    assert {c["id"]: c["noise_category"] for c in full_evidence(rec, evidence)["calls"]}["r2"] == "ui_state"


def test_only_side_calls_is_no_state_change() -> None:
    rec = recording([http("r1", "POST", f"{SITE}/api/grid/save", 200, {"grid": "orders"}, {"ok": True})], "")
    [flag] = [f for f in run_rules(rec, build_evidence(rec)) if f.code == "no_state_change"]
    assert flag.severity == "error" and "1 side call(s) left out" in flag.message and flag.call_ids == ["r1"]


def test_the_site_is_the_registrable_domain() -> None:
    assert registrable("api.shop.example.co.uk") == "example.co.uk"
    assert registrable("cdn.shop.example.com:8443") == "example.com"
    # the API on a subdomain of the site is the site: its telemetry-worded real write stays
    call = http("r1", "POST", "https://api.example.com/api/events", 201, {"title": "x"}, {"id": "evt_1"})
    assert category(call) is None


def test_words_that_end_in_id_are_not_ids() -> None:
    assert canonical_key("grid") is None and canonical_key("paid") is None and canonical_key("valid") is None
    assert canonical_key("gridId") == "gridId" and canonical_key("userid") == "userId"
    assert path_entities("/rest/api/3/issue/OPS-771") == [EntityRef("issueId", "OPS-771")]  # 3 is a version


def test_a_graphql_query_is_a_read_at_graphql_json_too() -> None:
    query = {"query": "query cart($id: ID!) { cart(id: $id) { id } }", "variables": {"id": "c1"}}
    mutation = {"query": "mutation cartCreate { cartCreate(input: {}) { cart { id } } }"}
    calls = [http(f"r{n}", "POST", f"{SITE}/api/2024-04/graphql.json", 200, body, {"data": {}}) for n, body in
             ((1, query), (2, mutation))]  # fmt: skip
    assert [c.state_changing for c in build_evidence(recording(calls)).calls] == [False, True]


def test_multi_word_snake_and_kebab_ids_are_ids_and_a_calls_own_ids_are_not() -> None:
    assert canonical_key("line_item_id") == "lineItemId" == canonical_key("lineItemId")
    assert canonical_key("shipping-address-id") == "shippingAddressId"
    assert canonical_key("work_item_ids") == "workItemId"
    for own in ("request_id", "x_request_id", "X-Request-Id", "xRequestId", "trace_id", "otel_span_id"):
        assert canonical_key(own) is None, own
