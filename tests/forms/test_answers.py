"""What answers carry outside a JSON body: the Location of a redirect (or a 201), and what an HTML
page offers; both reach the dataflow (created ids, seen values) and the checker's view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.checkers import score
from rlauto_core.checkers.views import http_view
from rlauto_core.evidence import build_evidence
from rlauto_core.forms import location_fields, location_of, scan_html
from rlauto_core.forms.html import MAX_OFFERED
from rlauto_core.importers import import_path
from rlauto_core.package import invented_values
from rlauto_core.package.dataflow import output_locations
from rlauto_core.recording import HttpCall
from tests.checkers.helpers import attempt, package

SITE = "https://desk.example"
FORM = [("Content-Type", "application/x-www-form-urlencoded")]


def answer(location: str | None, status: int = 303, url: str = f"{SITE}/tickets", **fields: Any) -> HttpCall:
    fields.setdefault("response_headers", [("Location", location)] if location is not None else [])
    return HttpCall(id="1", method="POST", url=url, status=status, request_headers=FORM,
                    request_body="ticket%5Bsubject%5D=x", **fields)  # fmt: skip


def test_a_location_gives_its_segments_query_and_fragment_id() -> None:
    call = answer("/tickets/88123?tab=activity&tab=audit#comment-99812")
    assert location_fields(call) == {
        "url": f"{SITE}/tickets/88123?tab=activity&tab=audit#comment-99812",
        "host": "desk.example",
        "path": "/tickets/88123",
        "segments": {"0": "tickets", "1": "88123"},
        "query": {"tab": ["activity", "audit"]},
        "fragment": "comment-99812",
        "fragment_id": "99812",
    }
    location = location_of(call)
    assert location is not None and location.target == "/tickets/88123?tab=activity&tab=audit#comment-99812"


@pytest.mark.parametrize(
    ("value", "status", "expected"),
    [
        ("https://desk.example/tickets/5", 201, "/tickets/5"),  # a 201 Created points at the new record too
        ("5", 302, "/5"),  # relative to the request's URL
        ("/tickets/5", 404, None),  # a failed answer points nowhere
        ("javascript:alert(1)", 302, None),
        ("/tickets/5\r\nSet-Cookie: x=1", 302, None),  # header injection: no browser follows it
        ("http://[::1", 302, None),  # unparsable
        ("/" + "a" * 9000, 302, None),  # over MAX_LOCATION_CHARS
    ],
)
def test_which_locations_count(value: str, status: int, expected: str | None) -> None:
    location = location_of(answer(value, status))
    assert (location.path if location else None) == expected


def test_the_har_redirect_url_stands_in_when_the_header_is_gone(tmp_path: Path) -> None:
    entry = {"request": {"method": "POST", "url": f"{SITE}/tickets", "headers": []},
             "response": {"status": 302, "headers": [], "redirectURL": "/tickets/77"}}  # fmt: skip
    har = tmp_path / "sanitised.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": [entry]}}))
    [call] = import_path(har).http_calls
    assert call.extra == {"redirectURL": "/tickets/77"}
    fields = location_fields(call)
    assert fields is not None and fields["segments"] == {"0": "tickets", "1": "77"}


def test_a_location_on_another_host_names_that_sites_things_not_ours() -> None:
    call = answer("https://pay.provider.example/checkout/cs_live_81/?session=abc")
    assert location_fields(call) == {"url": "https://pay.provider.example/checkout/cs_live_81/?session=abc",
                                     "host": "pay.provider.example"}  # fmt: skip
    evidence = build_evidence(attempt(call))
    assert "cs_live_81" not in invented_values(attempt(call), evidence)


PAGE = """<!DOCTYPE html><html><head><title>Ticket #88123 · Desk</title>
<meta name="csrf-param" content="authenticity_token" /><meta name="csrf-token" content="TOKEN-meta-1" /></head>
<body><a href="/tickets/88101">#88101</a> <a href="https://desk.example/users/17?tab=open">Dana</a>
<a href="https://elsewhere.example/users/99">x</a> <a href="mailto:a@b.example">mail</a>
<form action="/tickets/88123" method="post"><input type="hidden" name="authenticity_token" value="TOKEN-form-1">
<input type="hidden" name="_method" value="patch"><input type="password" name="pw" value="never-offered">
<select name="ticket[assignee_id]"><option value="">Unassigned</option><option value="17">Dana Whitfield</option>
<option value="21" selected>Omar &amp; Co</option></select><button name="status" value="closed">Close</button>
<div id="error_explanation"><h2>2 errors prohibited this ticket from being saved:</h2>
<ul><li>Subject can&#39;t be blank</li><li>Queue must exist</li></ul></div>
<div class="field_with_errors"><input name="ticket[subject]" value=""></div></form>
<article id="comment_99812" data-comment-id="99812" data-user-id="17">hi</article></body></html>"""


def test_a_page_offers_its_choices_tokens_ids_and_links_and_shows_its_errors() -> None:
    page = scan_html(PAGE, "desk.example")
    assert page.title == "Ticket #88123 · Desk" and page.has_form and page.invalid
    assert page.errors == ("Subject can't be blank", "Queue must exist")
    offers = page.offers
    assert offers["inputs"] == {"authenticity_token": ["TOKEN-form-1"], "_method": ["patch"], "status": ["closed"]}
    assert offers["options"] == {"ticket[assignee_id]": ["17", "21"]}
    assert page.labels == {"ticket[assignee_id]": {"17": "Dana Whitfield", "21": "Omar & Co"}}
    assert offers["meta"] == {"csrf-param": ["authenticity_token"], "csrf-token": ["TOKEN-meta-1"]}
    assert offers["data"] == {"dom_id": ["99812"], "data-comment-id": ["99812"], "data-user-id": ["17"]}
    assert offers["links"] == ["/tickets/88101", "/users/17", "/tickets/88123"]  # not another site's, not mailto
    assert offers["link_ids"] == ["88101", "17", "88123"]


def test_a_hostile_page_is_scanned_within_its_limits() -> None:
    many = "".join(f'<input type="hidden" name="f{n}" value="v{n}">' for n in range(MAX_OFFERED + 500))
    page = scan_html(f"<form>{many}</form>" + "<" * 50_000 + "<a " * 50_000 + '<div class="errorlist">', "x.example")
    assert sum(len(v) for v in page.offers["inputs"].values()) == MAX_OFFERED
    assert page.has_form and page.errors == ()


def test_output_locations_hold_the_location_and_a_reads_page_offers() -> None:
    write = answer("/tickets/88123#comment-99812")
    outputs = {(root, path): value for root, path, value in output_locations(write)}
    assert outputs[("location", "segments.1")] == "88123" and outputs[("location", "fragment_id")] == "99812"
    read = HttpCall(id="2", method="GET", url=f"{SITE}/tickets/88123", status=200,
                    response_headers=[("Content-Type", "text/html; charset=utf-8")], response_body=PAGE)  # fmt: skip
    read_outputs = {(root, path): value for root, path, value in output_locations(read)}
    assert read_outputs[("html", "options.ticket[assignee_id]")] == ["17", "21"]
    # a CSRF token sits where its name says what it is (volatile kind csrf)
    assert read_outputs[("html", "meta.csrf-token")] == ["TOKEN-meta-1"]
    assert read_outputs[("html", "inputs.authenticity_token")] == ["TOKEN-form-1"]
    # a write's HTML answer is no list of offers (a re-rendered form offers nothing new)
    rerender = answer(None, status=422, response_body=PAGE, response_headers=[("Content-Type", "text/html")])
    assert not any(root == "html" for root, _, _ in output_locations(rerender))


def test_an_id_only_in_the_location_is_created_by_the_write_and_one_a_page_offered_is_not() -> None:
    page = HttpCall(id="1", method="GET", url=f"{SITE}/tickets/new", status=200, response_body=PAGE,
                    response_headers=[("Content-Type", "text/html")])  # fmt: skip
    create = HttpCall(id="2", method="POST", url=f"{SITE}/tickets", status=303, request_headers=FORM,
                      request_body="ticket%5Bsubject%5D=Jam", response_headers=[("Location", "/tickets/88777")])  # fmt: skip
    # the redirect points back at a user the page's links offered: that user is not new
    reassign = HttpCall(id="3", method="POST", url=f"{SITE}/tickets/88777", status=302, request_headers=FORM,
                        request_body="_method=patch&ticket%5Bsubject%5D=Jam2",
                        response_headers=[("Location", "/users/17/queue/88777")])  # fmt: skip
    recording = attempt(page, create, reassign)
    made = invented_values(recording, build_evidence(recording))
    assert made["88777"].call_id == "2" and made["88777"].root == "location" and made["88777"].path == "segments.1"
    assert "17" not in made


def test_a_checker_ties_a_later_write_to_the_location_of_the_write_that_made_it() -> None:
    """What a package needs: `same_as` `location.segments.1` finds the id a later attempt's server made."""
    checkers = {
        "create": {"kind": "http_call", "method": "POST", "path": "/tickets"},
        "comment": {"kind": "http_call", "method": "POST", "path_template": "/tickets/{ticketId}/comments",
                    "path_params": {"ticketId": {"same_as": {"checker": "create", "field": "location.segments.1"}}}},
    }  # fmt: skip
    create = answer("/tickets/90001")
    good = HttpCall(id="2", method="POST", url=f"{SITE}/tickets/90001/comments", status=303)
    other = HttpCall(id="2", method="POST", url=f"{SITE}/tickets/88123/comments", status=303)
    assert score(package(checkers), attempt(create, good)).passed
    wrong = score(package(checkers), attempt(create, other))
    assert not wrong.rubrics[1].passed and "location.segments.1" in wrong.rubrics[1].reason
    assert http_view(answer(None, status=200), 0).fields["location"].__class__.__name__ == "_Missing"


def test_parses_are_cached_by_how_much_text_they_hold_not_kept_forever() -> None:
    """A worker packages recording after recording: the caches of pages and bodies stay bounded."""
    from rlauto_core.forms.memo import SizedCache

    cache: SizedCache[int] = SizedCache(max_chars=100)
    made: list[str] = []
    for key in ("a" * 40, "b" * 40, "c" * 40, "a" * 40):
        cache.get(key, len(key), lambda key=key: made.append(key) or len(made))  # type: ignore[func-returns-value]
    # `a` went out when `c` came in, `b` when `a` came back: 80 characters held, never over 100
    assert made == ["a" * 40, "b" * 40, "c" * 40, "a" * 40]
    assert cache.get("c" * 40, 40, lambda: -1) == 3 and cache.get("b" * 40, 40, lambda: -1) == -1
    assert cache.get("x" * 101, 101, lambda: 7) == 7 and cache.get("x" * 101, 101, lambda: 8) == 8  # too big to keep
