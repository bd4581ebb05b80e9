"""Volatile values are never compared; the session's cart is bound to the attempt's own answers (or is the user's own)."""

from __future__ import annotations

from typing import Any

from rlauto_core.checkers import score
from rlauto_core.importers import import_bytes
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.judging.validator import validate
from rlauto_core.package.judgement import Dimension
from rlauto_core.package.volatile import client_made, is_told, told_values, volatile_kind
from rlauto_core.recording import Recording
from tests.package.helpers import package_from
from tests.recording_builders import http, task_json, zip_bytes

SHOP = "https://shop.example.com"
INSTRUCTION = "Add two mugs (p_mug) to the cart and check out."


def shop_calls(cart: str, version: int, csrf: str, item: str, order: str, nonce: str) -> list[dict[str, Any]]:
    return [
        http("r1", "GET", f"{SHOP}/api/session", 200, None, {"user": "u_1", "csrf": csrf}),
        http("r2", "GET", f"{SHOP}/api/cart", 200, None, {"id": cart, "version": version, "items": []}),
        http("r3", "POST", f"{SHOP}/api/cart/{cart}/items", 201,
             {"csrf": csrf, "productId": "p_mug", "quantity": 2, "version": version, "nonce": nonce,
              "clientTime": 1778580900123},
             {"item": {"id": item, "productId": "p_mug"}, "cart": {"id": cart, "version": version + 1}}),
        http("r4", "POST", f"{SHOP}/api/checkout", 201,
             {"csrf": csrf, "cartId": cart, "version": version + 1, "total": 2400,
              "requestId": f"req-{nonce}", "placedAt": "2026-05-11T10:00:00Z"},
             {"order": {"id": order, "total": 2400}}),
    ]  # fmt: skip


def dbdiff(cart: str, item: str, order: str, version: int) -> dict[str, Any]:
    return {"tables": {
        "cart_items": {"inserted": [{"id": item, "cart_id": cart, "product_id": "p_mug", "quantity": 2}]},
        "carts": {"updated": [{"before": {"id": cart, "version": version, "status": "open"},
                               "after": {"id": cart, "version": version + 1, "status": "ordered"}}]},
        "orders": {"inserted": [{"id": order, "cart_id": cart, "total": 2400, "updated_at": "2026-05-11T10:00:00Z"}]},
    }}  # fmt: skip


def zipped(calls: list[dict[str, Any]], diff: dict[str, Any] | None, instruction: str = INSTRUCTION) -> Recording:
    files: dict[str, Any] = {"task.json": task_json(instruction), "network.json": {"version": 1, "requests": calls}}
    if diff is not None:
        files["dbdiff.json"] = diff
    return import_bytes(zip_bytes(files), "r.zip")


RECORDED = zipped(
    shop_calls("cart_5", 3, "c5Rf8Kq2Wm", "ci_1", "ord_1", "4e1f9a"), dbdiff("cart_5", "ci_1", "ord_1", 3)
)


def test_each_value_is_checked_as_its_role_says() -> None:
    package = package_from(RECORDED)
    add, checkout = package.rubric_checkers["call_r3"], package.rubric_checkers["call_r4"]
    handed = {"any": ["cart_5", {"created": True}]}  # the session's cart, or the user's own
    assert add["path_params"]["cartId"] == handed and checkout["request"]["cartId"] == handed
    assert add["request"]["productId"] == "p_mug" and add["request"]["quantity"] == 2  # the agent's choice
    # volatile: never compared, neither the token nor the lock version, wherever they came from
    assert not {"csrf", "version", "nonce", "clientTime"} & set(add["request"])
    assert not {"version", "total", "requestId", "placedAt"} & set(checkout["request"])
    # no checker is left that only names a read: where the agent learned a value is not graded
    assert not [k for k in package.rubric_checkers if k.startswith("read_")]
    roles = package.value_roles["call_r3"]
    assert roles["path_params.cartId"].role == "created" and "r2" in roles["path_params.cartId"].reason
    assert roles["request.productId"].role == "stable" and roles["request.quantity"].role == "content"
    assert {roles[f"request.{k}"].role for k in ("csrf", "version", "nonce", "clientTime")} == {"volatile"}
    assert "lock" in roles["request.version"].reason and "never compared" in roles["request.version"].reason


def test_database_rows_leave_out_versions_clocks_and_totals() -> None:
    package = package_from(RECORDED)
    rows = {(c.table, c.op): c for c in package.dbdiff_criteria.criteria}
    assert rows[("cart_items", "insert")].row["cart_id"] == {"any": ["cart_5", {"created": True}]}
    # the cart's version (sent by the writes) and the status (sent by none) leave nothing to pin
    assert ("carts", "update") not in rows
    # total and updated_at equal what the checkout sent, but another attempt sends other values
    assert set(rows[("orders", "insert")].row) == {"cart_id"}


def test_a_later_good_attempt_passes_and_a_wrong_product_fails() -> None:
    package = package_from(RECORDED)
    check = package.validation.self_check
    assert check is not None and check.golden_full_marks and check.redo_full_marks is True and check.problems == []
    # later: another cart, versions counted from 17, a new token and nonce, no failed retry
    later = zipped(
        shop_calls("cart_9", 17, "Zt4Lp9Xy2B", "ci_44", "ord_8", "88c02d"), dbdiff("cart_9", "ci_44", "ord_8", 17)
    )
    report = score(package, later)
    assert report.passed and report.score == report.max_score, [r for r in report.rubrics if not r.passed]
    wrong = shop_calls("cart_9", 17, "Zt4Lp9Xy2B", "ci_44", "ord_8", "88c02d")
    wrong[2]["requestBody"] = wrong[2]["requestBody"].replace("p_mug", "p_cup")
    assert not score(package, zipped(wrong, dbdiff("cart_9", "ci_44", "ord_8", 17))).passed
    # a stale version is the server's business: it refuses the write (409), and that fails the rubric
    stale = shop_calls("cart_9", 17, "Zt4Lp9Xy2B", "ci_44", "ord_8", "88c02d")
    stale[2]["requestBody"] = stale[2]["requestBody"].replace('"version":17', '"version":16')
    stale[2]["status"] = 409
    assert not score(package, zipped(stale, None)).passed
    # ...while any version the server accepts is fine
    other = shop_calls("cart_9", 17, "Zt4Lp9Xy2B", "ci_44", "ord_8", "88c02d")
    other[2]["requestBody"] = other[2]["requestBody"].replace('"version":17', '"version":23')
    report = score(package, zipped(other, dbdiff("cart_9", "ci_44", "ord_8", 17)))
    assert report.passed, [r for r in report.rubrics if not r.passed]


def test_a_pinned_version_is_caught_by_a_valid_variant_and_blocks_the_pass() -> None:
    package = package_from(RECORDED)
    package.rubric_checkers["call_r3"]["request"]["version"] = 3  # what this run's cart happened to be at
    check = self_check(package, RECORDED)
    assert check.golden_full_marks and check.redo_full_marks is False
    failing = check.failing_variant
    assert failing is not None and failing.kind == "volatile_changed" and not failing.full_marks
    rubric = next(r for r in package.task.rubrics if r.checker_key == "call_r3")
    assert [b.id for b in failing.broken] == [rubric.id] and "request.version" in failing.broken[0].reason
    assert check.variants_passed == check.variants_total - 1
    assert any(p.startswith(f"valid variant {failing.id} (") and f"rubric {rubric.id}" in p for p in check.problems)
    judged = validate(package, RECORDED, check=check)
    verifiability = next(s for s in judged.scores if s.dimension == Dimension.CHECKER_VERIFIABILITY)
    assert verifiability.score == 0 and judged.verdict == "NEEDS_REVISION"
    assert f"valid variant {failing.id}" in verifiability.explanation and rubric.id in verifiability.explanation


def test_a_value_the_instruction_states_stays_pinned() -> None:
    calls = [
        http(
            "r1",
            "PUT",
            "https://apps.example.com/api/apps/app_7",
            200,
            {"version": "2.4.1", "rev": 8},
            {"id": "app_7", "rev": 9},
        )
    ]
    package = package_from(zipped(calls, None, "Set the version of app app_7 to 2.4.1."))
    request = package.rubric_checkers["call_r1"]["request"]
    assert request["version"] == "2.4.1"  # told: the agent must send it
    assert "rev" not in request  # a lock revision shown nowhere before: not checked


def test_client_made_ids_are_not_checked_anywhere() -> None:
    calls = [http("r1", "POST", "https://chat.example.com/api/v1/chat.sendMessage", 200,
                  {"message": {"_id": "q8Zk2XpN4tLm7RvWc", "rid": "RmRel77", "msg": "Ship it on Friday"}},
                  {"message": {"_id": "q8Zk2XpN4tLm7RvWc", "rid": "RmRel77"}, "success": True})]  # fmt: skip
    diff = {
        "tables": {
            "messages": {"inserted": [{"_id": "q8Zk2XpN4tLm7RvWc", "rid": "RmRel77", "msg": "Ship it on Friday"}]}
        }
    }
    package = package_from(zipped(calls, diff, "Post 'Ship it on Friday' in room RmRel77."))
    assert "message._id" not in package.rubric_checkers["call_r1"]["request"]
    assert package.rubric_checkers["call_r1"]["request"]["message.rid"] == "RmRel77"
    [row] = package.dbdiff_criteria.criteria
    assert "_id" not in row.row and row.row["rid"] == "RmRel77"


def test_volatile_kinds_and_client_made_shapes() -> None:
    kinds = {
        ("lock_version", 3): "lock", ("rowVersion", "AAAAAAAAB9E="): "lock", ("_rev", "3-abc"): "lock",
        ("_csrf", "x"): "csrf", ("authenticity_token", "x"): "csrf", ("txn_id", "m1.0"): "nonce",
        ("clientMsgId", "x"): "nonce", ("requestId", "x"): "nonce", ("client_ts", 1): "clock",
        ("updated_stamp", "2026-05-12T10:41:07Z"): "clock", ("sentAt", "x"): "clock", ("anything", 1778580900000): "clock",
        ("expected_total_cents", 3798): "total", ("productId", "p_1"): None, ("title", "Release 4.2"): None,
        ("quantity", 2): None, ("dueDate", "2026-06-01"): None, ("status", "shipped"): None,
    }  # fmt: skip
    assert {key: volatile_kind(*key) for key in kinds} == kinds
    assert client_made("q8Zk2XpN4tLm7RvWc", set()) and client_made("d-91k2m7x", set())
    assert not client_made("q8Zk2XpN4tLm7RvWc", {"q8Zk2XpN4tLm7RvWc"})  # shown before: someone else made it
    assert not any(client_made(v, set()) for v in ("sku_7741", "INV-2207", "pm_card_4242", "Ship it", "ship_dhl"))
    assert not client_made("gid://shopify/ProductVariant/4455", set())  # a long URI is no random token
    assert client_made("Yk3Jd9Qm2LxP0vRt7sWc4hNa8eUf1ZoB", set())


def test_a_date_time_the_instruction_states_is_checked() -> None:
    told = told_values("Book 'Design review' on 2026-05-20 at 15:00 UTC for 30 minutes.")
    assert is_told("2026-05-20T15:00:00Z", told) and is_told("2026-05-20", told)
    assert not is_told("2026-05-20T16:00:00Z", told) and not is_told("2026-05-21T15:00:00Z", told)
    calls = [http("r1", "POST", "https://cal.example.com/api/events", 201,
                  {"summary": "Design review", "start": "2026-05-20T15:00:00Z", "createdAt": "2026-05-11T08:00:00Z"},
                  {"id": "evt_8", "etag": "3374"})]  # fmt: skip
    request = package_from(zipped(calls, None, "Book 'Design review' on 2026-05-20 at 15:00 UTC."))
    checked = request.rubric_checkers["call_r1"]["request"]
    assert checked["start"] == "2026-05-20T15:00:00Z" and "createdAt" not in checked
