"""Success as the protocol says: one place, used by the evidence and by the checkers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rlauto_core.checkers.views import recording_views
from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.protocols import http_failure, tool_failure
from rlauto_core.recording import HttpCall, ToolCall
from tests.recording_builders import api_recording, http, mcp_recording, tool

GQL = "https://shop.example/graphql"
ADD = {"query": "mutation Add($c: ID!) { commentCreate(issueId: $c, body: \"x\") { comment { id } } }",
       "variables": {"c": "I_1"}}  # fmt: skip


def _call(url: str, answer: Any, *, status: int = 200, body: Any = None, method: str = "POST") -> HttpCall:
    return HttpCall(
        id="r1",
        method=method,
        url=url,
        request_headers=[("content-type", "application/json")],
        request_body=json.dumps(body) if body is not None else None,
        status=status,
        response_body=answer if isinstance(answer, str) else json.dumps(answer),
    )


FAILURES = [
    ("graphql errors, payload null", GQL, ADD,
     {"errors": [{"message": "Rate limited", "extensions": {"code": "THROTTLED"}}], "data": {"commentCreate": None}},
     "GraphQL errors: Rate limited (THROTTLED)"),
    ("graphql errors, no data", GQL, ADD, {"errors": [{"message": "boom"}]}, "GraphQL errors: boom"),
    ("graphql userErrors", GQL, ADD,
     {"data": {"commentCreate": {"comment": None, "userErrors": [{"message": "Body is too short"}]}}},
     "commentCreate userErrors: Body is too short"),
    ("json-rpc error", "https://notes.example/rpc", {"jsonrpc": "2.0", "id": 1, "method": "note.create"},
     {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "title required"}},
     "JSON-RPC error -32602: title required"),
    ("ok false", "https://chat.example/api/chat.postMessage", {"channel": "C1"},
     {"ok": False, "error": "channel_not_found"}, "ok: false (channel_not_found)"),
    ("success false", "https://crm.example/api/leads", {"name": "x"}, {"success": False, "message": "duplicate"},
     "success: false (duplicate)"),
    ("jsend fail", "https://crm.example/api/leads", {"name": "x"}, {"status": "fail", "data": {"name": "taken"}},
     "status: fail"),
    ("bulk errors", "https://search.example/_bulk", None,
     {"took": 3, "errors": True, "items": [{"index": {"status": 201}},
                                            {"update": {"status": 409, "error": {"type": "version_conflict_engine_exception"}}}]},
     "the bulk answer reports errors: 1 of 2 items failed (version_conflict_engine_exception)"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "url", "body", "answer", "reason"), FAILURES, ids=[f[0] for f in FAILURES])
def test_a_2xx_that_says_it_failed_is_a_failure(what: str, url: str, body: Any, answer: Any, reason: str) -> None:
    found = http_failure(_call(url, answer, body=body))
    assert found is not None and found.startswith(reason), found


SUCCESSES = [
    ("graphql data with a partial error elsewhere", GQL, ADD,
     {"errors": [{"message": "avatar unavailable"}], "data": {"commentCreate": {"comment": {"id": "C_1"}, "userErrors": []}}}),
    ("json-rpc result", "https://notes.example/rpc", None, {"jsonrpc": "2.0", "id": 1, "result": {"id": 7}}),
    ("ok true", "https://chat.example/api/chat.postMessage", None, {"ok": True, "ts": "1.2"}),
    ("an entity whose own status is error", "https://ci.example/api/jobs/4", None, {"id": 4, "status": "error", "log": "x"}),
    ("bulk without errors", "https://search.example/_bulk", None, {"errors": False, "items": []}),
    ("an html page", "https://app.example/things", None, "<html><body>ok</body></html>"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "url", "body", "answer"), SUCCESSES, ids=[s[0] for s in SUCCESSES])
def test_a_2xx_with_no_error_signal_succeeds(what: str, url: str, body: Any, answer: Any) -> None:
    assert http_failure(_call(url, answer, body=body)) is None


def test_status_and_silence_fail_whatever_the_body() -> None:
    assert http_failure(_call(GQL, {"data": {"x": 1}}, status=502)) == "HTTP 502"
    unanswered = HttpCall(id="r1", method="POST", url="https://x.example/a", status=None)
    assert http_failure(unanswered) == "no answer"


def test_hostile_answers_never_crash() -> None:
    for answer in ["{" * 5000, "[" * 100_000, '{"ok": fals', '{"errors": true, "items": "nope"}', "\x00\xff"]:
        http_failure(_call("https://x.example/_bulk", answer))
    deep = '{"data": ' * 3000 + "1" + "}" * 3000
    assert http_failure(_call(GQL, deep, body=ADD)) is None


def test_mcp_results_fail_on_is_error_and_on_ok_false() -> None:
    ok_false = ToolCall(
        id="c1",
        tool="chat_post",
        result={"content": [{"type": "text", "text": '{"ok": false, "error": "not_in_channel"}'}]},
    )
    structured = ToolCall(id="c2", tool="chat_post", result={"structuredContent": {"success": False}, "content": []})
    fine = ToolCall(id="c3", tool="chat_post", result={"content": [{"type": "text", "text": '{"ok": true}'}]})
    assert tool_failure(ok_false) == "ok: false (not_in_channel)"
    assert tool_failure(structured) == "success: false"
    assert tool_failure(fine) is None
    assert tool_failure(ToolCall(id="c4", tool="t", is_error=True)) is not None
    assert tool_failure(ToolCall(id="c5", tool="t", answered=False)) == "no answer"


def test_the_evidence_and_the_checkers_ask_the_same_place() -> None:
    """A write failing inside a 200 is failed in the evidence (so never golden) and does not
    `succeed` for a checker; the retry that worked succeeds in both."""
    throttled = {"errors": [{"message": "Rate limited"}], "data": {"commentCreate": None}}
    worked = {"data": {"commentCreate": {"comment": {"id": "C_9"}, "userErrors": []}}}
    data = api_recording(
        [http("r1", "POST", GQL, body=ADD, response=throttled), http("r2", "POST", GQL, body=ADD, response=worked)]
    )
    recording = import_bytes(data, "retry.zip")
    evidence = build_evidence(recording)
    assert [(c.failed, c.failure) for c in evidence.calls] == [(True, "GraphQL errors: Rate limited"), (False, None)]
    assert [v.fields["succeeds"] for v in recording_views(recording)] == [False, True]
    mcp = import_bytes(
        mcp_recording(
            [tool("c1", "chat_post", {"channel": "C1"}, {"content": [{"type": "text", "text": '{"ok": false}'}]})]
        ),
        "mcp.zip",
    )
    assert build_evidence(mcp).calls[0].failed and build_evidence(mcp).calls[0].failure == "ok: false"
    assert recording_views(mcp)[0].fields["succeeds"] is False
