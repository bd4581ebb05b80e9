"""Hostile form traffic: a 10 MB multipart body, broken percent-encoding, a Location on another
host, header and field bombs, hostile pages and bodies of any shape. Each is read (or refused
with a domain error naming the file), never crashes, writes only into the package's folder,
leaves the original as it was, and keeps file bytes out of evidence."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlauto_core.checkers.outputs import output_locations
from rlauto_core.checkers.views import parse_body
from rlauto_core.config import RunOptions
from rlauto_core.errors import RecordingError
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence
from rlauto_core.forms import failure_reasons, form_fields, form_write_name, scan_html
from rlauto_core.forms.html import MAX_HTML_CHARS, MAX_OFFERED
from rlauto_core.importers import import_path
from rlauto_core.package import invented_values
from rlauto_core.recording import HttpCall
from rlauto_core.redact import redact_text
from tests.forms.kit import Browser, Upload, recording_zip
from tests.importers.corpus import random_text
from tests.package.corpus_kit import clock
from tests.package.offline import package_offline

SITE = "https://files.example"
MB = 1024 * 1024


def session(seed: str) -> Browser:
    b = Browser(SITE, clock(2026, 5, 12, 9, 0), seed)
    b.visit("/docs/new", '<form enctype="multipart/form-data"><select name="doc[kind]"><option value="msa">MSA'
                         "</option></select></form>")  # fmt: skip
    return b


def write(tmp_path: Path, name: str, b: Browser, instruction: str = "Upload the contract as 'MSA'") -> Path:
    path = tmp_path / name
    path.write_bytes(recording_zip(instruction, SITE, name, b))
    return path


def outside_files(tmp_path: Path, keep: set[Path]) -> set[Path]:
    return {p for p in tmp_path.rglob("*") if p.is_file()} - keep


def test_a_10_mb_multipart_upload_is_summarised_and_packaged_without_its_bytes(tmp_path: Path) -> None:
    content = random_text(10 * MB)  # incompressible, so the ZIP is no bomb
    b = session("ten-mb")
    b.submit("/docs", [("authenticity_token", "tok-1"), ("doc[title]", "MSA"), ("doc[kind]", "msa"),
                       ("doc[file]", Upload("msa.pdf", "application/pdf", content.encode()))],
             status=302, location="/docs/7781", boundary="----WebKitFormBoundaryTenMb")  # fmt: skip
    source = write(tmp_path, "ten_mb.zip", b)
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    recording = import_path(source)
    evidence = build_evidence(recording)
    upload = next(c for c in evidence.calls if c.state_changing)
    assert upload.name == "POST /docs (doc[title], doc[kind], doc[file])" and not upload.failed
    sent = recording.calls[upload.index]
    fields = parse_body(sent.request_body, sent.request_body_encoding, sent.header("content-type"))
    assert fields["doc"]["file"] == {"filename": "msa.pdf", "content_type": "application/pdf", "size": 10 * MB,
                                     "sha256": hashlib.sha256(content.encode()).hexdigest()}  # fmt: skip
    views = json.dumps([slim_evidence(recording, evidence), full_evidence(recording, evidence)])
    assert content[1000:1100] not in views and len(views) < 100_000
    out = tmp_path / "out"
    outcome = package_offline(source, RunOptions(), out)
    assert outcome.passed and outcome.package_path is not None and outcome.package_path.parent == out, outcome.error
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before  # the original is kept
    assert outside_files(tmp_path, {source}) <= {p for p in out.rglob("*") if p.is_file()}


def test_broken_percent_encoding_is_read_as_a_server_would(tmp_path: Path) -> None:
    b = session("broken")
    b.submit("/docs", [], status=302, location="/docs/9")
    b.entries[-1]["request"]["postData"]["text"] = "doc%5Btitle%5D=100%25+done+%zz&doc%5Bnote%5D=%E9t%C3%A9%&x=%"
    source = write(tmp_path, "broken.zip", b)
    recording = import_path(source)
    evidence = build_evidence(recording)
    upload = next(c for c in evidence.calls if c.state_changing)
    assert upload.name == "POST /docs (doc[title], doc[note], x)"
    body = parse_body(recording.calls[upload.index].request_body, "text", "application/x-www-form-urlencoded")
    assert body == {"doc": {"title": "100% done %zz", "note": "\ufffdté%"}, "x": "%"}
    assert package_offline(source, RunOptions(), tmp_path / "out").package is not None


def test_a_location_on_another_host_is_recorded_never_taken_for_our_ids(tmp_path: Path) -> None:
    b = session("other-host")
    b.submit("/payments", [("authenticity_token", "tok-2"), ("payment[amount]", "120")], status=303,
             location="https://evil.example/tickets/55123/steal?token=CANARY-loc-77&next=%0d%0a#frag-9")  # fmt: skip
    source = write(tmp_path, "other_host.zip", b, "Pay the 120 invoice")
    recording = import_path(source)
    evidence = build_evidence(recording)
    payment = next(c for c in evidence.calls if c.state_changing)
    assert not payment.failed  # a 303 is the write's success, wherever it points
    made = invented_values(recording, evidence)
    assert "55123" not in made and "frag-9" not in made
    assert {o.path for o in made.values()} <= {"url", "host"}
    [slim] = [c for c in slim_evidence(recording, evidence)["calls"] if c.get("write")]
    assert slim["location"].startswith("https://evil.example/") and "CANARY-loc-77" not in json.dumps(slim)


def test_a_write_answered_with_a_huge_fragment_offers_within_bounds(tmp_path: Path) -> None:
    """A write's HTML answer is read now (an htmx swap, a Turbo stream): 3.5 MB of rows with ids
    offer at most MAX_OFFERED values, and the package is still made (the self-check's redo renames
    the thousand ids those offers make in one pass over the page: one sub per id took 200 s on 8 MB)."""
    b = session("fragment-bomb")
    rows = "".join(f'<tr id="row_{n}" data-row-id="{n}"><td>{n}</td></tr>' for n in range(10_000, 70_000))
    b.submit("/docs", [("doc[kind]", "msa"), ("doc[title]", "MSA")], status=200, fetch=True,
             headers={"HX-Request": "true"}, html=f"<tbody>{rows}</tbody>")  # fmt: skip
    path = write(tmp_path, "fragment.zip", b)
    recording = import_path(path)
    call = next(c for c in recording.http_calls if c.method == "POST")
    assert len(call.response_body or "") > MAX_HTML_CHARS
    offered = [v for root, _, value in output_locations(call) if root == "html" for v in value]
    assert 0 < len(offered) <= MAX_OFFERED
    outcome = package_offline(path, RunOptions(), tmp_path / "out")
    assert outcome.package is not None, outcome.error


def test_a_header_bomb_is_read_within_the_importers_limit_and_past_it_refused(tmp_path: Path) -> None:
    b = session("header-bomb")
    b.submit("/docs", [("doc[title]", "MSA")], status=302, location="/docs/42")
    entry = b.entries[-1]
    bomb = [{"name": f"X-Filler-{n}", "value": "v" * 8} for n in range(30_000)]
    entry["request"]["headers"] = bomb + entry["request"]["headers"]
    entry["response"]["headers"] = bomb + entry["response"]["headers"]  # the Location comes last
    source = write(tmp_path, "header_bomb.zip", b)
    recording = import_path(source)
    evidence = build_evidence(recording)
    upload = next(c for c in evidence.calls if c.state_changing)
    assert upload.name == "POST /docs (doc[title])"
    assert invented_values(recording, evidence)["42"].path == "segments.1"
    entry["response"]["headers"] = [{"name": "Location", "value": "/" + "a" * (MB + 10)}]
    refused = write(tmp_path, "header_too_long.zip", b)
    with pytest.raises(RecordingError) as error:
        import_path(refused)
    assert error.value.file.endswith("recording.har") and "too long" in error.value.problem


@pytest.mark.parametrize(
    "body",
    [
        "&".join(f"f{n}=1" for n in range(200_000)),  # 200k fields
        "a" + "[b]" * 10_000 + "=1",  # nested 10,000 deep
        "&".join(["a=1", "a[b]=2"] * 20_000),  # shapes fighting, repeatedly
    ],
    ids=["fields", "depth", "shapes"],
)
def test_field_bombs_stay_text_and_the_write_keeps_its_route_name(body: str, tmp_path: Path) -> None:
    b = session("field-bomb")
    b.submit("/docs", [], status=302, location="/docs/42")
    b.entries[-1]["request"]["postData"]["text"] = body
    recording = import_path(write(tmp_path, "field_bomb.zip", b))
    evidence = build_evidence(recording)
    upload = next(c for c in evidence.calls if c.state_changing)
    assert upload.name.startswith("POST /docs")
    slim = slim_evidence(recording, evidence)
    assert len(json.dumps(slim)) < 20_000


def test_a_multipart_bomb_and_broken_parts_do_not_crash() -> None:
    many = "".join(f'--b\r\nContent-Disposition: form-data; name="f{n}"\r\n\r\n1\r\n' for n in range(50_000)) + "--b--"
    assert form_fields(many, "text", "multipart/form-data; boundary=b") is None
    for broken in ["--b\r\nno headers end", "--b\r\nContent-Disposition: form-data\r\n\r\nno name\r\n--b--",
                   '--b\r\nContent-Disposition: form-data; name="cut"\r\n\r\nthe recording stops here']:  # fmt: skip
        parse_body(broken, "text", "multipart/form-data; boundary=b")
    cut = form_fields(
        '--b\r\nContent-Disposition: form-data; name="cut"\r\n\r\nstops', "text", "multipart/form-data; boundary=b"
    )
    assert cut == {"cut": "stops"}


def test_a_hostile_page_answer_is_scanned_within_bounds() -> None:
    page = '<form><div class="errorlist">' + "<li>x" * 200_000 + '<input name="a" value="' + "v" * 10_000
    call = HttpCall(id="1", method="POST", url=f"{SITE}/docs", status=422, response_body=page,
                    request_headers=[("Content-Type", "application/x-www-form-urlencoded")], request_body="a=1",
                    response_headers=[("Content-Type", "text/html")])  # fmt: skip
    scanned = scan_html(page * 3, "files.example")
    assert scanned.has_form and scanned.errors == () and not scanned.invalid  # the box never closes
    assert failure_reasons([call]) == {}  # so it says nothing: the status alone tells the failure


@settings(max_examples=150, deadline=None)
@given(
    body=st.one_of(st.text(max_size=400), st.binary(max_size=400).map(lambda b: b.decode("latin-1"))),
    content_type=st.sampled_from(
        [
            None,
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=b",
            "multipart/form-data",
            "application/x-www-form-urlencoded; charset=bogus",
            "text/html",
        ]
    ),
)
def test_any_body_any_content_type_never_raises(body: str, content_type: str | None) -> None:
    """Form parsing, naming, redaction and page scanning take whatever a recorder wrote."""
    fields = form_fields(body, "text", content_type)
    assert fields is None or isinstance(fields, dict)
    parse_body(body, "text", content_type)
    parse_body(body, "base64", content_type)
    redact_text(body)
    scan_html(body, "x.example")
    call = HttpCall(id="1", method="POST", url=f"{SITE}/x", status=302, request_body=body,
                    request_headers=[("Content-Type", content_type)] if content_type else [],
                    response_headers=[("Location", body[:50])])  # fmt: skip
    assert (form_write_name(call) or "POST /x").startswith("POST /x")
    failure_reasons([call])


def test_a_corpus_of_broken_recordings_names_the_file_and_the_problem(tmp_path: Path) -> None:
    b = session("bad-params")
    b.submit("/docs", [], status=302, location="/docs/1")
    b.entries[-1]["request"]["postData"] = {"mimeType": "multipart/form-data", "params": [{"value": "no name"}]}
    with pytest.raises(RecordingError) as error:
        import_path(write(tmp_path, "bad_params.zip", b))
    assert (
        error.value.file.endswith("recording.har")
        and 'params[0] must be an object with a "name"' in error.value.problem
    )
    with zipfile.ZipFile(tmp_path / "bad_params.zip") as archive:
        assert "recording.har" in archive.namelist()  # the original is left as it was
