"""GraphQL as a protocol: operations from the document, batches split, persisted queries read."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.protocols import get_request, operation_of, operations, parse_document
from rlauto_core.recording import HttpCall
from tests.recording_builders import api_recording, http

GQL = "https://tracker.example/graphql"


def _post(body: object, response: object = None, call_id: str = "r1") -> HttpCall:
    return HttpCall(
        id=call_id,
        method="POST",
        url=GQL,
        request_headers=[("content-type", "application/json")],
        request_body=json.dumps(body),
        status=200,
        response_body=json.dumps(response) if response is not None else None,
    )


@pytest.mark.parametrize(
    ("document", "name", "expected"),
    [
        ("mutation closeIssue($id: ID!) { closeIssue(input: {id: $id}) { issue { id } } }", None,
         ("mutation", "closeIssue", "closeIssue")),
        ("{ viewer { login } }", None, ("query", None, "viewer")),
        ("query { a } mutation M { b: reopenIssue(id: 1) { id } }", "M", ("mutation", "M", "reopenIssue")),
        ('# a comment { mutation\nmutation { addComment(body: "} {") { id } }', None, ("mutation", None, "addComment")),
        ('fragment F on Issue { id } mutation Add { ...F addLabel(id: 2) { id } }', None, ("mutation", "Add", "addLabel")),
        ('mutation { addComment(body: """a { b"""") { id } }', None, ("mutation", None, "addComment")),
        ("subscription OnIssue { issueChanged { id } }", None, ("subscription", "OnIssue", "issueChanged")),
    ],
)  # fmt: skip
def test_the_operation_comes_from_the_document(document: str, name: str | None, expected: tuple[str, ...]) -> None:
    assert parse_document(document, name) == expected


def test_a_query_posted_is_a_read_and_a_mutation_a_write() -> None:
    query = _post({"query": "query Issue($id: ID!) { issue(id: $id) { title } }", "variables": {"id": "I_1"}})
    mutation = _post({"query": 'mutation { closeIssue(input: {id: "I_1"}) { issue { id } } }'}, call_id="r2")
    recording = import_bytes(api_recording([]), "x.zip").model_copy(update={"http_calls": [query, mutation]})
    evidence = build_evidence(recording)
    assert [(c.state_changing, c.name) for c in evidence.calls] == [
        (False, "POST /graphql (issue)"),
        (True, "POST /graphql (closeIssue)"),
    ]


def test_a_batch_is_split_into_one_call_per_operation_with_its_own_answer() -> None:
    batch = [
        {"query": "mutation A($id: ID!) { addComment(input: {subjectId: $id, body: \"hi\"}) { id } }",
         "operationName": "A", "variables": {"id": "I_1"}},
        {"query": "query { viewer { login } }"},
    ]  # fmt: skip
    answers = [{"data": {"addComment": {"id": "C_9"}}}, {"data": {"viewer": {"login": "ana"}}}]
    data = api_recording([http("r1", "POST", GQL, body=batch, response=answers)])
    recording = import_bytes(data, "batch.zip")
    assert [c.id for c in recording.http_calls] == ["r1-op1", "r1-op2"]
    first, second = recording.http_calls
    assert json.loads(first.request_body or "")["operationName"] == "A"
    assert json.loads(first.response_body or "") == answers[0]
    assert json.loads(second.response_body or "") == answers[1]
    assert first.extra["graphqlBatch"] == {"call": "r1", "index": 1, "size": 2}
    evidence = build_evidence(recording)
    assert [c.state_changing for c in evidence.calls] == [True, False]


def test_a_batch_answered_with_one_error_gives_each_operation_that_error() -> None:
    batch = [{"query": "mutation { a { id } }"}, {"query": "mutation { b { id } }"}]
    data = api_recording([http("r1", "POST", GQL, status=500, body=batch, response={"error": "boom"})])
    calls = import_bytes(data, "batch.zip").http_calls
    assert [json.loads(c.response_body or "") for c in calls] == [{"error": "boom"}] * 2
    assert all(c.status == 500 for c in calls)


def test_a_persisted_query_get_is_read_as_the_post_it_stands_for() -> None:
    url = (
        f"{GQL}?operationName=IssueComments&variables=%7B%22id%22%3A%22I_1%22%7D"
        "&extensions=%7B%22persistedQuery%22%3A%7B%22version%22%3A1%2C%22sha256Hash%22%3A%22ab12%22%7D%7D"
    )
    call = HttpCall(id="r1", method="GET", url=url, status=200)
    operation = operation_of(call)
    assert operation is not None and operation.persisted and operation.name == "IssueComments"
    assert operation.variables == {"id": "I_1"} and not operation.writes
    assert get_request(call) == {
        "operationName": "IssueComments",
        "variables": {"id": "I_1"},
        "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ab12"}},
    }


def test_a_persisted_mutation_by_hash_is_a_write_by_its_name() -> None:
    body = {"operationName": "createIssue", "variables": {"title": "x"},
            "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ff"}}}  # fmt: skip
    assert operations(_post(body))[0].writes
    assert not operations(_post({**body, "operationName": "issueList"}))[0].writes


def test_other_json_posts_are_no_graphql() -> None:
    assert (
        operations(
            HttpCall(id="r1", method="POST", url="https://x.example/api/search", request_body='{"query": "shoes"}')
        )
        == []
    )
    assert operations(HttpCall(id="r1", method="POST", url=GQL, request_body="not json")) == []
    assert operations(HttpCall(id="r1", method="POST", url=GQL, request_body='["a", 1]')) == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_document_text_parses_without_crashing(document: str) -> None:
    op_type, _name, field = parse_document(document)
    assert op_type in ("query", "mutation", "subscription")
    assert field is None or field.isidentifier()


def test_a_huge_document_is_not_scanned_past_its_limit() -> None:
    document = "mutation Big { addThing(x: 1) { id } } " + "# padding\n" * 60_000
    assert parse_document(document) == ("mutation", "Big", "addThing")
