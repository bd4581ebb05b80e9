"""Form bodies as fields: nested names into paths, repeated names into lists, file parts into
name/type/size/sha256, through the one body parser evidence, dataflow and checkers share."""

from __future__ import annotations

import base64
import hashlib

import pytest

from rlauto_core.checkers import score
from rlauto_core.checkers.views import parse_body
from rlauto_core.forms import field_names, form_fields, form_kind
from rlauto_core.forms.names import MAX_DEPTH, name_path, nest
from rlauto_core.forms.urlencoded import MAX_FIELDS
from rlauto_core.recording import HttpCall
from tests.checkers.helpers import attempt, package

FORM = "application/x-www-form-urlencoded"


def mp_body(boundary: str, parts: list[tuple[str, str, str | None]], line_end: str = "\r\n") -> str:
    """(name, value, filename) parts as a browser sends them."""
    lines: list[str] = []
    for name, value, filename in parts:
        lines.append(f"--{boundary}")
        file_part = f'; filename="{filename}"' if filename else ""
        lines.append(f'Content-Disposition: form-data; name="{name}"{file_part}')
        if filename:
            lines.append("Content-Type: application/pdf")
        lines += ["", value]
    lines.append(f"--{boundary}--")
    return line_end.join(lines) + line_end


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("ticket[subject]", ["ticket", "subject"]),
        ("items[0][qty]", ["items", "0", "qty"]),
        ("tags[]", ["tags", ""]),
        ("address.city", ["address", "city"]),
        ("Items[0].Qty", ["Items", "0", "Qty"]),
        ("a[b.c]", ["a", "b.c"]),  # a dot inside brackets is part of the key
        ("[x]", ["[x]"]),  # no head: one literal key
        ("a[b", ["a[b"]),  # unclosed: one literal key
        ("a]b", ["a]b"]),
    ],
)
def test_names_become_paths_the_way_frameworks_read_them(name: str, path: list[str]) -> None:
    assert name_path(name) == path


def test_nested_names_repeated_names_and_rows_nest_like_json() -> None:
    fields = nest(
        [("ticket[subject]", "Printer jams"), ("ticket[queue_id]", "7"), ("tags[]", "hw"), ("tags[]", "floor3"),
         ("items[][sku]", "A1"), ("items[][qty]", "2"), ("items[][sku]", "B7"), ("tag", "a"), ("tag", "b"),
         ("lines[0][qty]", "1"), ("lines[1][qty]", "3"), ("user[remember_me]", "0"), ("user[remember_me]", "1"),
         ("attrs[1718123][name]", "x")]
    )  # fmt: skip
    assert fields == {
        "ticket": {"subject": "Printer jams", "queue_id": "7"},
        "tags": ["hw", "floor3"],
        "items": [{"sku": "A1", "qty": "2"}, {"sku": "B7"}],  # a repeated key starts a new row (Rack)
        "tag": ["a", "b"],  # repeated plain names: a list (Django's getlist)
        "lines": [{"qty": "1"}, {"qty": "3"}],  # positions 0..n-1: a list
        "user": {"remember_me": ["0", "1"]},  # Rails' hidden 0 before a checked box
        "attrs": {"1718123": {"name": "x"}},  # a key that is no position stays a key
    }


def test_the_top_level_stays_named_and_only_ascii_digits_are_positions() -> None:
    """Found by the property test: a form `0=` is a field named "0", not a list; `²` no index."""
    assert nest([("0", ""), ("1", "x")]) == {"0": "", "1": "x"}
    assert nest([("a[²]", "x"), ("a[0]", "y")]) == {"a": {"²": "x", "0": "y"}}
    assert nest([("a[0]", "x"), ("a[01]", "y")]) == {"a": {"0": "x", "01": "y"}}  # `01` is a key


def test_names_that_disagree_on_shape_keep_the_form_flat_and_lose_nothing() -> None:
    assert nest([("a", "1"), ("a[b]", "2"), ("c", "3")]) == {"a": "1", "a[b]": "2", "c": "3"}


def test_a_name_nested_past_the_depth_limit_is_no_form() -> None:
    deep = "a" + "[b]" * (MAX_DEPTH + 1)
    assert nest([(deep, "1")]) is None
    assert form_fields(f"{deep}=1", "text", FORM) is None
    assert parse_body(f"{deep}=1", "text", FORM) == f"{deep}=1"  # kept as text, as an oversized JSON body is


def test_urlencoded_decoding_plus_percent_charset_and_broken_escapes() -> None:
    body = "utf8=%E2%9C%93&ticket%5Bsubject%5D=Printer+on+fire&odd=100%25+%zz+%&lone=%E9&raw=caf\u00e9"
    assert form_fields(body, "text", FORM) == {
        "utf8": "✓",
        "ticket": {"subject": "Printer on fire"},
        "odd": "100% %zz %",  # a broken escape stays as written
        "lone": "\ufffd",  # a byte that is no UTF-8: the replacement character
        "raw": "café",  # unescaped text stays text
    }
    latin = form_fields("name=Ren%E9e", "text", f"{FORM}; charset=ISO-8859-1")
    assert latin == {"name": "Renée"}
    assert form_fields("name=x", "text", f"{FORM}; charset=no-such-charset") == {"name": "x"}


def test_the_content_type_decides_and_a_body_with_none_is_sniffed() -> None:
    assert form_kind(FORM) == "urlencoded" and form_kind("multipart/form-data; boundary=x") == "multipart"
    assert form_kind("application/json", "a=1") is None
    assert form_kind(None, "a=1&b=2") == "urlencoded" and form_kind(None, "a = b") is None
    assert form_kind(None, mp_body("XyZ", [("a", "1", None)])) == "multipart"
    # JSON sent under a form content type is JSON
    assert parse_body('{"title": "x"}', "text", FORM) == {"title": "x"}


@pytest.mark.parametrize("line_end", ["\r\n", "\n"])
def test_multipart_fields_and_a_file_summarised_never_kept(line_end: str) -> None:
    pdf = "%PDF-1.4 contract body " * 40
    body = mp_body("----WebKitFormBoundaryA1b2", [("authenticity_token", "tok", None), ("doc[title]", "MSA (signed)", None),
                                                   ("doc[file]", pdf, "msa-signed.pdf")], line_end)  # fmt: skip
    fields = form_fields(body, "text", "multipart/form-data; boundary=----WebKitFormBoundaryA1b2")
    assert fields == {
        "authenticity_token": "tok",
        "doc": {
            "title": "MSA (signed)",
            "file": {
                "filename": "msa-signed.pdf",
                "content_type": "application/pdf",
                "size": len(pdf),
                "sha256": hashlib.sha256(pdf.encode()).hexdigest(),
            },
        },
    }
    assert pdf not in str(fields)
    # the same body base64-encoded, and with no content type (the boundary sniffed)
    encoded = base64.b64encode(body.encode()).decode()
    assert form_fields(encoded, "base64", "multipart/form-data; boundary=----WebKitFormBoundaryA1b2") == fields
    assert form_fields(body, "text", None) == fields


def test_binary_files_rfc_5987_names_and_chrome_empty_files() -> None:
    data = bytes(range(256)) * 8
    raw = (
        b"--b\r\nContent-Disposition: form-data; name=\"f\"; filename*=UTF-8''r%C3%A9sum%C3%A9.bin\r\n\r\n"
        + data
        + b'\r\n--b\r\nContent-Disposition: form-data; name="empty"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n'
        b"\r\n--b--\r\n"
    )
    fields = form_fields(base64.b64encode(raw).decode(), "base64", "multipart/form-data; boundary=b")
    assert fields is not None
    assert fields["f"] == {"filename": "résumé.bin", "content_type": None, "size": len(data),
                           "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    assert fields["empty"]["size"] == 0  # Chrome's HAR leaves file contents out


def test_a_multipart_form_rebuilt_from_har_params_keeps_its_file_names() -> None:
    """The HAR importer rebuilds `postData.params` as `a=1&f=<file NAME>` (docs/formats.md)."""
    fields = form_fields("doc%5Btitle%5D=x&doc%5Bfile%5D=%3Cfile+q3.pdf%3E", "text", "multipart/form-data; boundary=z")
    assert fields == {"doc": {"title": "x", "file": {"filename": "q3.pdf", "content_type": None, "size": None,
                                                      "sha256": None}}}  # fmt: skip


def test_too_many_fields_or_parts_stay_text() -> None:
    bomb = "&".join(f"f{n}=1" for n in range(MAX_FIELDS + 1))
    assert form_fields(bomb, "text", FORM) is None and parse_body(bomb, "text", FORM) == bomb
    assert form_fields("&".join(f"f{n}=1" for n in range(MAX_FIELDS)), "text", FORM) is not None
    parts = mp_body("b", [(f"f{n}", "1", None) for n in range(1001)])
    assert form_fields(parts, "text", "multipart/form-data; boundary=b") is None
    assert form_fields("no boundary here", "text", "multipart/form-data; boundary=b") is None


def test_callers_get_their_own_copy_of_a_cached_parse() -> None:
    first = form_fields("a%5Bb%5D=1", "text", FORM)
    assert first is not None
    first["a"]["b"] = "changed"
    assert form_fields("a%5Bb%5D=1", "text", FORM) == {"a": {"b": "1"}}


def test_checkers_see_nested_form_fields_and_files() -> None:
    """What a package checker matches against: `request.ticket.queue_id`, `request.doc.file.sha256`."""
    pdf = "%PDF-1.4 signed"
    body = mp_body("b", [("doc[title]", "MSA", None), ("doc[file]", pdf, "msa.pdf")])
    upload = HttpCall(id="1", method="POST", url="https://files.example/docs", status=302,
                      request_headers=[("Content-Type", "multipart/form-data; boundary=b")], request_body=body)  # fmt: skip
    ticket = HttpCall(id="2", method="POST", url="https://desk.example/tickets", status=303,
                      request_headers=[("Content-Type", FORM)],
                      request_body="ticket%5Bsubject%5D=Jam&ticket%5Bqueue_id%5D=7&tags%5B%5D=a&tags%5B%5D=b")  # fmt: skip
    checkers = {
        "upload": {"kind": "http_call", "method": "POST", "path": "/docs",
                   "request": {"doc.title": "MSA", "doc.file.sha256": hashlib.sha256(pdf.encode()).hexdigest()}},
        "ticket": {"kind": "http_call", "path": "/tickets",
                   "request": {"ticket.queue_id": "7", "tags": {"contains": ["b"]}}},
    }  # fmt: skip
    report = score(package(checkers), attempt(upload, ticket))
    assert [r.passed for r in report.rubrics] == [True, True]
    other = HttpCall.model_validate({**upload.model_dump(), "request_body": body.replace(pdf, "%PDF-1.4 draft!")})
    wrong = score(package(checkers), attempt(other, ticket))
    assert not wrong.rubrics[0].passed and "doc.file.sha256" in wrong.rubrics[0].reason


def test_a_form_writes_field_names_leave_the_plumbing_out() -> None:
    call = HttpCall(id="1", method="POST", url="https://desk.example/tickets/5", request_headers=[("Content-Type", FORM)],
                    request_body="utf8=%E2%9C%93&_method=patch&authenticity_token=t&ticket%5Bassignee_id%5D=17"
                                 "&items%5B0%5D%5Bqty%5D=1&items%5B1%5D%5Bqty%5D=2&commit=Assign")  # fmt: skip
    assert field_names(call) == ["ticket[assignee_id]", "items[0][qty]", "items[1][qty]"]
    json_call = HttpCall(id="2", method="POST", url="https://x.example/a", request_body='{"a": 1}',
                         request_headers=[("Content-Type", "application/json")])  # fmt: skip
    assert field_names(json_call) is None
