"""The "API DSL" local rule: every malformed checker or dangling rubric is an error flag naming it."""

from __future__ import annotations

from typing import Any

import pytest

from rlauto_core.checkers.dsl import check_catalog

GOOD: dict[str, Any] = {
    "create": {"kind": "http_call", "method": "POST", "path": "/api/issues", "status": {"lt": 400}},
    "label": {
        "kind": "http_call",
        "method": "POST",
        "path_template": "/api/issues/{issueId}/labels",
        "path_params": {"issueId": {"same_as": {"checker": "create", "field": "response.number"}}},
        "request": {"labelIds": {"contains": ["bug"]}},
    },
    "send": {"kind": "mcp_call", "tool": "discord_send_message", "arguments": {"channelId": "C01"}, "is_error": False},
    "row": {"kind": "dbdiff", "table": "issues", "op": "update", "row": {"assignee": "u_17"}, "before": {"id": 4}},
    "order": {"kind": "order", "before": "create", "after": "label"},
    "strays": {
        "kind": "absent",
        "match": [{"kind": "mcp_call", "tool": "discord_send_message", "arguments": {"channelId": {"not": "C01"}}}],
        "given": "send",
    },
    "twice": {"kind": "count", "match": "label", "count": {"gte": 1, "lte": 2}},
}


def flags_for(checkers: dict[str, Any], rubrics: list[tuple[str, str | None]] | None = None) -> list[str]:
    found = check_catalog(checkers, rubrics if rubrics is not None else [(f"r_{k}", k) for k in checkers])
    assert all(f.severity == "error" for f in found)
    return [f"{f.code}: {f.message}" for f in found]


def test_a_well_formed_catalog_has_no_flags() -> None:
    assert flags_for(GOOD) == []


@pytest.mark.parametrize(
    ("checker", "expected"),
    [
        ({"kind": "http_request"}, "dsl_unknown_kind: checker \"c\": unknown kind 'http_request'"),
        ({"method": "GET"}, 'dsl_missing_key: checker "c": missing "kind"'),
        (
            {"kind": "http_call", "methd": "GET"},
            "dsl_unknown_key: checker \"c\": unknown key 'methd' for kind http_call",
        ),
        ({"kind": "mcp_call"}, "dsl_missing_key: checker \"c\": kind mcp_call needs 'tool'"),
        ({"kind": "http_call", "path": {"regex": "(unclosed"}}, 'dsl_bad_regex: checker "c" path: bad regex'),
        (
            {"kind": "http_call", "request": {"text": {"regex": "[z-a]"}}},
            'dsl_bad_regex: checker "c" request.text: bad regex',
        ),
        ({"kind": "http_call", "request": ["text"]}, "must be an object of field path -> predicate"),
        ({"kind": "http_call", "status": {"between": [200, 300]}}, "unknown operator 'between'"),
        ({"kind": "dbdiff", "table": "t", "op": "upsert"}, "must be one of insert, update, delete, got 'upsert'"),
        ({"kind": "dbdiff", "table": "t", "op": "insert", "before": {}}, '"before" only applies to op "update"'),
        (
            {"kind": "order", "before": {"kind": "dbdiff"}, "after": "x"},
            "must be a checker key or an http_call/mcp_call",
        ),
        ({"kind": "absent", "match": []}, "empty list of matchers"),
        ({"kind": "count", "match": {"kind": "mcp_call", "tool": "t"}}, "kind count needs 'count'"),
        ({"kind": "http_call", "path_params": {"id": "1"}}, "path_params needs a path_template"),
        (
            {"kind": "http_call", "path_template": "/a/{x}", "path_params": {"y": "1"}},
            "'y' is not a {name} of path_template '/a/{x}'",
        ),
        ("not an object", 'dsl_not_an_object: checker "c": must be a JSON object'),
    ],
)
def test_each_malformed_checker_gets_a_precise_flag(checker: Any, expected: str) -> None:
    flags = flags_for({"c": checker})
    assert any(expected in f for f in flags), flags


def test_references_must_exist_point_at_calls_and_not_loop() -> None:
    flags = flags_for(
        {
            "a": {"kind": "order", "before": "ghost", "after": "row"},
            "row": {"kind": "dbdiff", "table": "t", "op": "insert"},
            "b": {"kind": "http_call", "request": {"x": {"same_as": {"checker": "c", "field": "response.id"}}}},
            "c": {"kind": "http_call", "request": {"y": {"same_as": {"checker": "b", "field": "response.id"}}}},
            "d": {
                "kind": "mcp_call",
                "tool": "t",
                "arguments": {"x": {"same_as": {"checker": "b", "field": "result.id"}}},
            },
        }
    )
    text = "\n".join(flags)
    assert "dsl_unknown_reference: checker \"a\" references unknown checker key 'ghost'" in text
    assert 'checker "a" references "row", which is not an http_call/mcp_call' in text
    assert "dsl_reference_cycle" in text and "b -> c -> b" in text
    assert "same_as field 'result.id' of \"b\" must start with one of" in text


def test_rubrics_need_a_known_checker() -> None:
    flags = flags_for(GOOD, [("r1", None), ("r2", "nope"), ("r3", "create")])
    assert 'dsl_rubric_without_checker: rubric "r1" has no checker_key' in flags
    assert "dsl_unknown_checker_key: rubric \"r2\" points at unknown checker key 'nope'" in flags
    assert len(flags) == 2


def test_absurdly_deep_predicates_are_a_flag_not_a_crash() -> None:
    predicate: Any = "x"
    for _ in range(5000):
        predicate = {"not": predicate}
    flags = flags_for({"c": {"kind": "http_call", "path": predicate}})
    assert any("'not' nested deeper than 16" in f for f in flags)
