"""Evidence of server-rendered apps: writes by what they do, partial-page reads and polling, form
failures with their reasons, form writes named by route and fields, the slim view of forms."""

from __future__ import annotations

from typing import Any

import pytest

from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.recording import HttpCall, Recording
from rlauto_core.rules import run_rules
from tests.checkers.helpers import attempt

SITE = "https://desk.example"
FORM = ("Content-Type", "application/x-www-form-urlencoded")
HTML = ("Content-Type", "text/html; charset=utf-8")


def call(cid: str, method: str, path: str, status: int = 200, *, body: str | None = None,
         headers: list[tuple[str, str]] | None = None, answer: str | None = None,
         answer_headers: list[tuple[str, str]] | None = None, resource_type: str = "document") -> HttpCall:  # fmt: skip
    request_headers = list(headers or [])
    if body is not None and not any(n.lower() == "content-type" for n, _ in request_headers):
        request_headers.append(FORM)
    return HttpCall(id=cid, method=method, url=SITE + path, status=status, resource_type=resource_type,
                    request_headers=request_headers, request_body=body,
                    response_headers=answer_headers if answer_headers is not None else [HTML],
                    response_body=answer)  # fmt: skip


def evidence_of(*calls: HttpCall) -> dict[str, Any]:
    evidence = build_evidence(attempt(*calls))
    return {c.id: c for c in evidence.calls}


@pytest.mark.parametrize("resource_type", ["document", "fetch", "xhr", None])
def test_a_form_post_is_a_write_however_it_was_sent(resource_type: str | None) -> None:
    post = call("1", "POST", "/tickets", 303, body="ticket%5Bsubject%5D=Jam", resource_type=resource_type or "",
                answer_headers=[("Location", "/tickets/5")])  # fmt: skip
    info = evidence_of(post)["1"]
    assert info.state_changing and info.significant and not info.failed


def test_a_navigation_get_stays_a_page_load() -> None:
    info = evidence_of(call("1", "GET", "/tickets/5", answer="<html></html>"))["1"]
    assert not info.state_changing and info.noise_category == "document"


@pytest.mark.parametrize(
    ("body", "headers", "method", "writes"),
    [
        ("_method=patch&ticket%5Bassignee_id%5D=17", [], "PATCH", True),
        ("_method=DELETE&authenticity_token=t", [], "DELETE", True),
        ("_method=put&_method=delete", [], "DELETE", True),  # repeated: servers read the last
        ("q=printer", [("X-HTTP-Method-Override", "GET")], "GET", False),  # a long GET sent as a POST
        ("a=1", [("X-HTTP-Method-Override", "PATCH")], "PATCH", True),
        ("_method=teleport", [], "POST", True),  # no method: ignored
    ],
)
def test_method_overrides_are_honoured(body: str, headers: list[tuple[str, str]], method: str, writes: bool) -> None:
    info = evidence_of(call("1", "POST", "/tickets/5", 303, body=body, headers=headers))["1"]
    assert info.state_changing is writes
    assert info.name.startswith(f"{method} /tickets/5")


def test_an_override_is_only_read_from_a_post() -> None:
    info = evidence_of(call("1", "GET", "/tickets/5?_method=delete", headers=[("X-HTTP-Method-Override", "DELETE")]))
    assert info["1"].state_changing is False


def test_partial_page_reads_are_reads_and_the_same_one_repeated_is_polling() -> None:
    frame = [("Turbo-Frame", "assignment"), ("Accept", "text/html")]
    calls = [
        call("1", "GET", "/tickets/5/assignment/edit", headers=frame, resource_type="fetch", answer="<turbo-frame>"),
        call("2", "GET", "/contacts?page=2", headers=[("HX-Request", "true")], resource_type="xhr", answer="<tr>"),
        call("3", "GET", "/repo/files", headers=[("X-PJAX", "true")], resource_type="xhr", answer="<div>"),
        call(
            "4",
            "GET",
            "/stream",
            resource_type="fetch",
            answer="<turbo-stream>",
            answer_headers=[("Content-Type", "text/vnd.turbo-stream.html; charset=utf-8")],
        ),
        *(
            call(
                f"b{n}",
                "GET",
                "/notifications/badge",
                headers=[("Turbo-Frame", "badge")],
                resource_type="fetch",
                answer="<turbo-frame>",
            )
            for n in range(3)
        ),
        call("n", "GET", "/tickets/5", headers=[("X-Turbo-Request-Id", "r1")], resource_type="fetch", answer="<html>"),
        call(
            "h",
            "GET",
            "/contacts",
            headers=[("HX-Request", "true"), ("HX-Boosted", "true")],
            resource_type="xhr",
            answer="<html>",
        ),
        call("p", "GET", "/tickets/6", headers=[("Sec-Purpose", "prefetch")], resource_type="fetch", answer="<html>"),
    ]
    info = evidence_of(*calls)
    for cid in ("1", "2", "3", "4"):
        assert info[cid].significant and not info[cid].state_changing, cid
    assert {info[f"b{n}"].noise_category for n in range(3)} == {"polling"}
    assert info["n"].noise_category == "document" and info["h"].noise_category == "document"  # visits by fetch
    assert info["p"].noise_category == "prefetch"


RERENDER = """<html><body><form action="/admin/users/42" method="post">
<input class="form-control is-invalid" name="email" value="maya@"><div class="invalid-feedback">The email field must
be a valid email address.</div></form></body></html>"""
DJANGO = """<html><body><form method="post"><ul class="errorlist"><li>Enter a valid date.</li></ul>
<input type="date" name="follow_up" value="06/02/2026"></form></body></html>"""


def test_form_failures_carry_the_forms_errors_as_their_reason() -> None:
    calls = [
        call("422", "POST", "/admin/users/42", 422, body="_method=PUT&email=maya%40", answer=RERENDER),
        call("200", "POST", "/crm/calls/add/", 200, body="follow_up=06%2F02%2F2026", answer=DJANGO),
        call("ok", "POST", "/crm/calls/add/", 200, body="follow_up=2026-06-02", answer="<html><p>Saved</p></html>"),
        call("500", "POST", "/crm/calls/add/", 500, body="a=1", answer="oops"),
        call("403", "POST", "/crm/calls/add/", 403, body="a=1", answer='<div class="alert-danger">Not allowed</div>'),
        call(
            "login",
            "POST",
            "/tickets",
            302,
            body="ticket%5Bsubject%5D=x",
            answer_headers=[("Location", "/users/sign_in")],
        ),
        call(
            "back",
            "POST",
            "/profile",
            302,
            body="name=",
            headers=[("Referer", f"{SITE}/profile/edit")],
            answer_headers=[("Location", f"{SITE}/profile/edit")],
        ),
        call("form", "GET", "/profile/edit", answer=RERENDER),
        call("303", "POST", "/tickets", 303, body="ticket%5Bsubject%5D=x", answer_headers=[("Location", "/tickets/9")]),
    ]
    info = evidence_of(*calls)
    assert info["422"].failed and info["422"].failure == (
        "the form came back with errors: The email field must be a valid email address."
    )
    assert info["200"].failed and info["200"].failure == "the form came back with errors: Enter a valid date."
    assert not info["ok"].failed and info["ok"].failure is None  # a 200 page with no errors is a success
    assert info["500"].failed and info["500"].failure is None  # the status says it all
    assert info["403"].failed and info["403"].failure is None  # an error page, no form came back
    assert (
        info["login"].failed
        and info["login"].failure == "redirected to sign-in (/users/sign_in): the session had ended"
    )
    assert info["back"].failed and info["back"].failure.startswith("redirected back to the form, which shows errors")
    assert not info["303"].failed  # See Other to the new record: the write's success


def test_the_rules_and_the_slim_view_say_why_a_form_failed() -> None:
    recording = attempt(call("1", "POST", "/crm/calls/add/", 200, body="follow_up=06%2F02%2F2026", answer=DJANGO),
                        call("2", "POST", "/crm/calls/add/", 302, body="follow_up=2026-06-02",
                             answer_headers=[("Location", "/crm/calls/9131/")]))  # fmt: skip
    evidence = build_evidence(recording)
    [flag] = [f for f in run_rules(recording, evidence) if f.code.startswith("failed_state_change")]
    assert flag.code == "failed_state_change_retried"
    assert "failed with status 200 (the form came back with errors: Enter a valid date.)" in flag.message
    slim = {c["id"]: c for c in slim_evidence(recording, evidence)["calls"]}
    assert slim["1"]["failed"] is True and slim["1"]["failure"].endswith("Enter a valid date.")
    assert slim["1"]["response"]["errors"] == ["Enter a valid date."]
    assert slim["2"]["location"] == "/crm/calls/9131/"


def test_a_form_write_is_named_by_its_route_and_fields() -> None:
    calls = [
        call("1", "POST", "/tickets", 303, body="utf8=%E2%9C%93&authenticity_token=t&ticket%5Bsubject%5D=Jam"
             "&ticket%5Bqueue_id%5D=7&ticket%5Bpriority%5D=high&ticket%5Bdescription%5D=x&commit=Create+Ticket"),
        call("2", "POST", "/tickets/5", 303, body="_method=patch&authenticity_token=t&ticket%5Bassignee_id%5D=17"),
        call("3", "POST", "/tickets/5", 303, body="_method=delete&authenticity_token=t"),
        call("4", "POST", "/crm/calls/add/", 302, body="csrfmiddlewaretoken=t&outcome=voicemail&notes=x"),
        call("5", "POST", "/api/tickets", 201, body='{"subject": "x"}', headers=[("Content-Type", "application/json")]),
    ]  # fmt: skip
    names = {cid: info.name for cid, info in evidence_of(*calls).items()}
    assert names == {
        "1": "POST /tickets (ticket[subject], ticket[queue_id], ticket[priority], ...)",
        "2": "PATCH /tickets/5 (ticket[assignee_id])",
        "3": "DELETE /tickets/5",
        "4": "POST /crm/calls/add/ (outcome, notes)",
        "5": "POST /api/tickets",  # a JSON write keeps its plain name
    }


def test_form_bodies_reach_entities_and_the_slim_view_as_fields_without_tokens() -> None:
    body = "authenticity_token=CANARY-tok-5e1f&ticket%5Bqueue_id%5D=7&ticket%5Bsubject%5D=Jam"
    recording: Recording = attempt(call("1", "POST", "/tickets", 303, body=body,
                                        answer_headers=[("Location", "/tickets/88123")]))  # fmt: skip
    evidence = build_evidence(recording)
    assert ("queueId", "7") in evidence.calls[0].entities
    [slim] = slim_evidence(recording, evidence)["calls"]
    assert slim["body"] == {"authenticity_token": "[REDACTED]", "ticket": {"queue_id": "7", "subject": "Jam"}}
    assert slim["location"] == "/tickets/88123"
    assert "CANARY-tok-5e1f" not in str(full_evidence(recording, evidence))


def test_the_slim_view_of_a_page_lists_its_choices_by_label() -> None:
    page = """<form><input type="hidden" name="authenticity_token" value="CANARY-tok-77aa">
    <select name="ticket[assignee_id]"><option value="17">Dana Whitfield</option><option value="21">Omar Reyes</option>
    </select></form>"""
    recording = attempt(call("1", "GET", "/tickets/5/assignment/edit", headers=[("Turbo-Frame", "a")],
                             resource_type="fetch", answer=page))  # fmt: skip
    [slim] = slim_evidence(recording, build_evidence(recording))["calls"]
    assert slim["response"]["options"] == {"ticket[assignee_id]": {"17": "Dana Whitfield", "21": "Omar Reyes"}}
    assert "CANARY-tok-77aa" not in str(slim)
