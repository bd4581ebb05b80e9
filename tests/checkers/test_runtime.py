"""The checker runtime: each kind scores attempts, with reasons and matched call ids."""

from __future__ import annotations

from typing import Any

import pytest

from rlauto_core.checkers import score
from rlauto_core.errors import PackageError
from tests.checkers.helpers import attempt, changed, http, package, tool

BASE = "https://api.example.com"


def run(checker: dict[str, Any], *calls: Any, dbdiff: dict[str, Any] | None = None) -> tuple[bool, str, list[str]]:
    report = score(package({"c": checker}), attempt(*calls, dbdiff=dbdiff))
    rubric = report.rubrics[0]
    return rubric.passed, rubric.reason, rubric.matched_call_ids


def test_http_call_matches_method_path_query_body_and_status() -> None:
    checker = {
        "kind": "http_call",
        "method": "POST",
        "host": "api.example.com",
        "path": "/api/v1/channels/C01/messages",
        "query": {"draft": "0"},
        "request": {"text": {"eq": "Got it", "case_insensitive": True}, "meta.threadId": "M7"},
        "status": {"gte": 200, "lt": 300},
        "response": {"message.text": {"exists": True}},
    }
    good = http("r1", "POST", f"{BASE}/api/v1/channels/C01/messages?draft=0", 201,
                {"text": "got it", "meta": {"threadId": "M7"}}, {"ok": True, "message": {"id": "M9", "text": "got it"}})  # fmt: skip
    assert run(checker, good) == (True, "matched r1", ["r1"])
    for bad, where in [
        (changed(good, method="PUT"), "never makes POST /api/v1/channels/C01/messages"),
        (changed(good, url=f"{BASE}/api/v1/channels/C02/messages?draft=0"), "path"),
        (changed(good, url=f"{BASE}/api/v1/channels/C01/messages?draft=1"), "query.draft"),
        (changed(good, request_body='{"text":"nope","meta":{"threadId":"M7"}}'), "request.text"),
        (changed(good, status=500), "status"),
        (changed(good, response_body='{"ok":true}'), "response.message.text"),
    ]:
        passed, reason, ids = run(checker, bad)
        assert not passed and ids == [] and where in reason, (where, reason)


def test_http_path_template_binds_named_segments() -> None:
    checker = {"kind": "http_call", "method": "PATCH", "path_template": "/api/cards/{cardId}",
               "path_params": {"cardId": {"regex": "^card_\\d+$"}}}  # fmt: skip
    assert run(checker, http("1", "PATCH", f"{BASE}/api/cards/card_9"))[0]
    assert not run(checker, http("1", "PATCH", f"{BASE}/api/cards/col_9"))[0]
    passed, reason, _ = run(checker, http("1", "PATCH", f"{BASE}/api/cards/card_9/move"))
    assert not passed and "does not fit '/api/cards/{cardId}'" in reason


def test_form_bodies_are_fields_too() -> None:
    call = http("1", "POST", f"{BASE}/cards", body="title=Renew+domain&column=todo")
    call.request_headers[0] = (call.request_headers[0][0], "application/x-www-form-urlencoded")
    assert run({"kind": "http_call", "request": {"title": "Renew domain", "column": "todo"}}, call)[0]


def test_mcp_call_matches_exact_tool_arguments_result_and_error() -> None:
    result = {"content": [{"type": "text", "text": '{"id": "M9"}'}], "isError": False}
    checker = {"kind": "mcp_call", "tool": "discord_send_message", "arguments": {"channelId": "C01"},
               "result": {"json.id": {"exists": True}}, "is_error": False}  # fmt: skip
    call = tool("c7", "discord_send_message", {"channelId": "C01", "content": "hi"}, result)
    assert run(checker, call) == (True, "matched c7", ["c7"])
    assert not run(checker, changed(call, tool="send_message"))[0]  # never shortened
    assert not run(checker, changed(call, arguments={"channelId": "C02"}))[0]
    assert not run(checker, changed(call, is_error=True))[0]
    assert not run(checker, changed(call, result={"content": []}))[0]
    # an HTTP call never matches an MCP checker
    assert not run(checker, http("r1", "POST", f"{BASE}/discord_send_message"))[0]


DIFF = {
    "tables": {
        "messages": {"inserted": [{"id": "M9", "channel_id": "C01", "text": "got it"}], "updated": [], "deleted": []},
        "channels": {
            "inserted": [],
            "updated": [{"before": {"id": "C01", "unread": 3}, "after": {"id": "C01", "unread": 0}}],
            "deleted": [{"id": "C09"}],
        },
    }
}


@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        ({"kind": "dbdiff", "table": "messages", "op": "insert", "row": {"channel_id": "C01", "text": "got it"}}, True),
        ({"kind": "dbdiff", "table": "messages", "op": "insert", "row": {"channel_id": "C02"}}, False),
        ({"kind": "dbdiff", "table": "messages", "op": "delete"}, False),
        (
            {
                "kind": "dbdiff",
                "table": "channels",
                "op": "update",
                "row": {"unread": 0},
                "before": {"unread": {"gt": 0}},
            },
            True,
        ),
        ({"kind": "dbdiff", "table": "channels", "op": "update", "row": {"unread": 0}, "before": {"unread": 0}}, False),
        ({"kind": "dbdiff", "table": "channels", "op": "delete", "row": {"id": "C09"}}, True),
        ({"kind": "dbdiff", "table": "users", "op": "insert"}, False),
    ],
)
def test_dbdiff_rows(checker: dict[str, Any], expected: bool) -> None:
    assert run(checker, dbdiff=DIFF)[0] is expected


def test_dbdiff_without_a_diff_fails_with_a_reason() -> None:
    passed, reason, _ = run({"kind": "dbdiff", "table": "messages", "op": "insert"}, tool("c1", "x"))
    assert not passed and reason == "the attempt has no dbdiff.json"


CREATE = {"kind": "http_call", "method": "POST", "path": "/api/issues", "status": {"lt": 400}}
LABEL = {
    "kind": "http_call",
    "method": "POST",
    "path_template": "/api/issues/{issueId}/labels",
    "path_params": {"issueId": {"same_as": {"checker": "create", "field": "response.number"}}},
}


def issue_calls(number: int, label_on: int) -> list[Any]:
    return [
        http("a", "POST", f"{BASE}/api/issues", 201, {"title": "t"}, {"id": 4000 + number, "number": number}),
        http("b", "POST", f"{BASE}/api/issues/{label_on}/labels", 200, {"labelIds": ["bug"]}),
    ]


def test_same_as_ties_a_server_made_id_to_the_call_that_made_it() -> None:
    checkers = {"create": CREATE, "label": LABEL}
    for number in (128, 977):  # any id the server hands out
        assert score(package(checkers), attempt(*issue_calls(number, number))).passed
    report = score(package(checkers), attempt(*issue_calls(128, 127)))
    assert [r.passed for r in report.rubrics] == [True, False]
    assert "expected the value of create:response.number" in report.rubrics[1].reason
    # the id must come from an earlier call: labelling before creating does not count
    first, second = issue_calls(128, 128)
    assert not score(package(checkers), attempt(second, first)).rubrics[1].passed


def test_same_as_inside_a_dbdiff_row() -> None:
    checkers = {"create": CREATE, "row": {"kind": "dbdiff", "table": "issues", "op": "insert",
                                          "row": {"number": {"same_as": {"checker": "create", "field": "response.number"}}}}}  # fmt: skip
    good = {"tables": {"issues": {"inserted": [{"number": 131}]}}}
    bad = {"tables": {"issues": {"inserted": [{"number": 1}]}}}
    assert score(package(checkers), attempt(*issue_calls(131, 131), dbdiff=good)).passed
    assert not score(package(checkers), attempt(*issue_calls(131, 131), dbdiff=bad)).passed


def test_order_needs_both_calls_in_that_order() -> None:
    checkers = {"create": CREATE, "label": {**LABEL, "path_params": {"issueId": {"exists": True}}},
                "o": {"kind": "order", "before": "create", "after": "label"}}  # fmt: skip
    first, second = issue_calls(5, 5)
    assert score(package(checkers), attempt(first, second)).rubrics[2].passed
    swapped = score(package(checkers), attempt(second, first)).rubrics[2]
    assert not swapped.passed and swapped.reason == "wrong order: b comes before a"
    missing = score(package(checkers), attempt(first)).rubrics[2]
    assert not missing.passed and "the later call never happened" in missing.reason
    inline = {
        "kind": "order",
        "before": {"kind": "http_call", "method": "POST", "path": "/api/issues"},
        "after": "label",
    }
    assert score(package({"label": checkers["label"], "o": inline}), attempt(first, second)).rubrics[1].passed


def test_absent_catches_strays_and_needs_its_anchor() -> None:
    send = {"kind": "mcp_call", "tool": "send", "arguments": {"channelId": "C01"}}
    strays = {"kind": "absent", "given": "send",
              "match": {"kind": "mcp_call", "tool": "send", "arguments": {"channelId": {"exists": True, "not": "C01"}}}}  # fmt: skip
    checkers = {"send": send, "strays": strays}
    clean = score(package(checkers), attempt(tool("1", "send", {"channelId": "C01"}), tool("2", "send", {})))
    assert clean.passed and clean.rubrics[1].reason == "no forbidden call"
    dirty = score(
        package(checkers), attempt(tool("1", "send", {"channelId": "C01"}), tool("2", "send", {"channelId": "C02"}))
    )
    assert not dirty.rubrics[1].passed and dirty.rubrics[1].matched_call_ids == ["2"]
    idle = score(package(checkers), attempt(tool("9", "list", {})))
    assert not idle.rubrics[1].passed and "absence proves nothing" in idle.rubrics[1].reason
    assert score(package({"strays": {k: v for k, v in strays.items() if k != "given"}}), attempt(tool("9", "x"))).passed


def test_count_compares_the_number_of_matching_calls() -> None:
    checker = {"kind": "count", "match": {"kind": "mcp_call", "tool": "add_tag"}, "count": {"eq": 2}}
    assert run(checker, tool("1", "add_tag"), tool("2", "add_tag"), tool("3", "other"))[:1] == (True,)
    assert run(checker, tool("1", "add_tag"))[1] == "count: expected eq 2, got 1"
    listed = {
        "kind": "count",
        "match": [{"kind": "mcp_call", "tool": "a"}, {"kind": "mcp_call", "tool": "b"}],
        "count": 2,
    }
    assert run(listed, tool("1", "a"), tool("2", "b"))[0]


def test_report_totals_points_and_applies_the_attempt_policy() -> None:
    checkers = {"create": CREATE, "label": LABEL}
    built = package(checkers, points={"create": 2, "label": 3})
    half = score(built, attempt(*issue_calls(7, 8)))
    assert (half.score, half.max_score, half.passed) == (2, 5, False)
    assert [(r.id, r.points, r.max_score) for r in half.rubrics] == [("r1", 2, 2), ("r2", 0, 3)]
    built.pass_policy.attempt.required_rubrics = ["r1"]
    built.pass_policy.attempt.min_fraction = 0.4
    assert score(built, attempt(*issue_calls(7, 8))).passed
    cli = half.cli_dict()
    assert set(cli) == {"score", "max_score", "passed", "policy", "rubrics"}
    assert set(cli["rubrics"][0]) == {"id", "passed", "points", "max_score", "reason", "matched_call_ids"}


def test_a_package_with_broken_checkers_is_refused_with_the_problem() -> None:
    broken = package({"c": {"kind": "http_call", "path": {"regex": "("}}})
    with pytest.raises(PackageError, match=r"task.json: checker \"c\" path: bad regex"):
        score(broken, attempt())
    dangling = package({"c": CREATE})
    dangling.task.rubrics[0].checker_key = "missing"
    with pytest.raises(PackageError, match="unknown checker key 'missing'"):
        score(dangling, attempt())


def test_form_bodies_without_a_content_type_are_fields_too() -> None:
    call = http("2", "POST", f"{BASE}/api/boards/b_12/cards", body="columnId=col_todo&title=Renew+the+domain")
    call = changed(call, request_headers=[])
    checker = {"kind": "http_call", "request": {"title": {"eq": "renew the domain", "case_insensitive": True}}}
    assert run(checker, call)[0]
    assert not run(checker, changed(call, request_body="columnId=col_todo&title=Something+else"))[0]
    # plain text that merely contains "=" stays text
    assert not run({"kind": "http_call", "request": {"a": {"exists": True}}}, changed(call, request_body="a = b"))[0]
