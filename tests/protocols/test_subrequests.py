"""A JSON batch of HTTP sub-requests (Salesforce composite and composite batch, Microsoft Graph
`$batch`) split on import into the calls it stands for, each with its own status and answer: a
sub-request refused inside the 200 is a failed call, a later one's `@{ref.id}` gets the id the
earlier one made."""

from __future__ import annotations

import json

from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.protocols.subrequests import MAX_PARTS, split_call
from rlauto_core.recording import HttpCall
from tests.recording_builders import api_recording, http

SF = "https://acme.my.salesforce.com/services/data/v60.0"
GRAPH = "https://graph.microsoft.com/v1.0"


def _call(url: str, body: object, answer: object, status: int = 200) -> HttpCall:
    return HttpCall(id="r1", method="POST", url=url, request_body=json.dumps(body), status=status,
                    response_body=json.dumps(answer))  # fmt: skip


def test_a_composite_is_one_call_per_sub_request_with_its_own_status_and_references_filled() -> None:
    body = {"allOrNone": False, "compositeRequest": [
        {"method": "POST", "url": "/services/data/v60.0/sobjects/Account", "referenceId": "acct",
         "body": {"Name": "Nordwind"}},
        {"method": "POST", "url": "/services/data/v60.0/sobjects/Contact", "referenceId": "contact",
         "body": {"LastName": "Kowalski", "AccountId": "@{acct.id}"}},
        {"method": "PATCH", "url": "/services/data/v60.0/sobjects/Account/@{acct.id}", "referenceId": "upd",
         "body": {"Rating": "Hot"}},
    ]}  # fmt: skip
    answer = {"compositeResponse": [
        {"body": {"id": "001XX", "success": True}, "httpHeaders": {"Location": "/x"}, "httpStatusCode": 201, "referenceId": "acct"},
        {"body": [{"errorCode": "DUPLICATES_DETECTED", "message": "dup"}], "httpHeaders": {}, "httpStatusCode": 400, "referenceId": "contact"},
        {"body": None, "httpHeaders": {}, "httpStatusCode": 204, "referenceId": "upd"},
    ]}  # fmt: skip
    data = api_recording([http("r1", "POST", f"{SF}/composite", body=body, response=answer)])
    recording = import_bytes(data, "composite.zip")
    account, contact, update = recording.http_calls
    assert [c.id for c in recording.http_calls] == ["r1-op1", "r1-op2", "r1-op3"]
    assert (account.method, account.url, account.status) == ("POST", f"{SF}/sobjects/Account", 201)
    assert json.loads(contact.request_body or "")["AccountId"] == "001XX"  # the reference, filled
    assert update.url == f"{SF}/sobjects/Account/001XX" and update.status == 204
    assert ("Location", "/x") in account.response_headers
    failed = [c.failed for c in build_evidence(recording).calls]
    assert failed == [False, True, False]  # refused inside the 200


def test_a_graph_batch_resolves_relative_urls_and_answers_by_id() -> None:
    body = {"requests": [
        {"id": "1", "method": "GET", "url": "/me/messages?$top=1"},
        {"id": "2", "method": "POST", "url": "/me/events", "body": {"subject": "Sync"},
         "headers": {"Content-Type": "application/json"}},
    ]}  # fmt: skip
    answer = {"responses": [{"id": "2", "status": 201, "body": {"id": "AAMk"}},
                            {"id": "1", "status": 200, "body": {"value": []}}]}  # fmt: skip
    parts = split_call(_call(f"{GRAPH}/$batch", body, answer))
    assert [(p.method, p.url, p.status) for p in parts] == [
        ("GET", f"{GRAPH}/me/messages?$top=1", 200), ("POST", f"{GRAPH}/me/events", 201)
    ]  # fmt: skip
    assert json.loads(parts[1].response_body or "") == {"id": "AAMk"}


def test_other_bodies_and_hostile_batches_stay_one_call() -> None:
    plain = _call(f"{SF}/sobjects/Account", {"Name": "x"}, {"id": "1"})
    assert split_call(plain) == [plain]
    broken = HttpCall(id="r1", method="POST", url=f"{SF}/composite", request_body='{"compositeRequest": [',
                      status=200)  # fmt: skip
    assert split_call(broken) == [broken]
    not_requests = _call(f"{SF}/composite", {"compositeRequest": [{"method": "POST"}, "x"]}, {})
    assert split_call(not_requests) == [not_requests]
    huge = _call(f"{SF}/composite", {"compositeRequest": [{"method": "GET", "url": "/a"}] * (MAX_PARTS + 1)}, {})
    assert split_call(huge) == [huge]
    # an answer that is no list of results: each part keeps the batch's own status and answer
    lost = split_call(
        _call(f"{SF}/composite", {"compositeRequest": [{"method": "GET", "url": "/services/a"}]}, "oops", 502)
    )
    assert [(p.status, p.response_body) for p in lost] == [(502, '"oops"')]
