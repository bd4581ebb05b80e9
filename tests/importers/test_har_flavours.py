"""HARs as real tools export them import, bare, as `capture.har` in a ZIP, and as network.json.

The fixtures in corpus/har/ carry each exporter's quirks: Chrome's `_` fields, HTTP/2 pseudo
headers, websocket entries and cache hits; Firefox's `postData.params`, base64 bodies and
`+02:00` offsets; Safari's `_fetchType` and empty httpVersion; Playwright's minimal timings and
`_file` bodies; Charles' BOM, `comment` fields, status 0 and `redirectURL: null`; mitmproxy's
microsecond `+00:00` timestamps and params-only form bodies; Insomnia's lower-case method and
unsent request.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from pathlib import Path

import pytest

from rlauto_core.importers import import_bytes, import_path
from rlauto_core.recording import HttpCall, Mode
from tests.importers.corpus import TASK
from tests.importers.zipcraft import jbytes, zip_bytes

HARS = Path(__file__).parent / "corpus" / "har"

# method, url, status, started_at (UTC), bytes in the request body, bytes in the response body
Expected = tuple[str, str, int | None, str, bytes | None, bytes | None]

FLAVOURS: dict[str, list[Expected]] = {
    "chrome": [
        ("GET", "https://board.example.com/api/boards/b_12?include=columns", 200, "2026-05-06T13:47:12.114",
         None, b'"col_doing"'),
        ("POST", "https://board.example.com/api/boards/b_12/cards", 201, "2026-05-06T13:47:16.020",
         b'"title":"Rotate certs"', b'"card_881"'),
        ("GET", "https://board.example.com/assets/dot.png", 200, "2026-05-06T13:47:12.300", None, b"\x89PNG"),
        ("GET", "wss://board.example.com/live", 101, "2026-05-06T13:47:12.580", None, None),
    ],
    "firefox": [
        ("POST", "https://board.example.com/api/boards/b_12/cards", 201, "2026-05-06T13:47:12.114",
         b"title=Renew+domain", b'"card_884"'),
        ("GET", "https://board.example.com/login?next=%2Fb%2Fb_12", 302, "2026-05-06T13:47:14.020", None, None),
        ("DELETE", "https://board.example.com/api/cards/card_700", 204, "2026-05-06T13:47:15.500", None, None),
    ],
    "safari": [
        ("PATCH", "https://shop.example.com/api/cart/items/ci_5521", 200, "2026-05-06T13:47:12.114",
         b'{"quantity":2}', b'"ci_5521"'),
        ("GET", "https://cdn.shop.example.com/img/sku_7741.webp", 200, "2026-05-06T13:47:12.400", None, b"RIFF"),
    ],
    "playwright": [
        ("POST", "https://chat.example.com/api/v1/channels/C01/messages", 201, "2026-05-06T13:47:12.114",
         b'"got it"', b'"M9"'),
        ("GET", "https://chat.example.com/api/v1/channels/C01/messages?limit=20", 200, "2026-05-06T13:47:12.901",
         None, None),
        ("GET", "https://chat.example.com/static/logo.svg", 200, "2026-05-06T13:47:13.050", None, b"<svg/>"),
    ],
    "charles": [
        ("POST", "https://api.tracker.example.com/v2/projects/web/issues", 201, "2026-05-06T13:47:12.114",
         b'"Login loop"', b'"number":128'),
        ("GET", "https://api.tracker.example.com/v2/projects/web/issues/128", 200, "2026-05-06T13:47:13.001",
         None, b'{"id":4812}'),
        ("CONNECT", "https://www.google-analytics.com", None, "2026-05-06T13:47:13.500", None, None),
    ],
    "mitmproxy": [
        ("POST", "https://shop.example.com/api/cart/items", 201, "2026-05-06T13:47:12.114",
         b"productId=sku_7741&quantity=1", b'"ci_5521"'),
        ("GET", "https://shop.example.com/favicon.ico", 200, "2026-05-06T13:47:12.900321", None, b"\x00\x00\x01\x00"),
    ],
    "insomnia": [
        ("POST", "https://notes.example.com/api/notes", 201, "2026-05-06T13:47:12.114", b'"Q3 planning"',
         b'"n_318"'),
        ("PUT", "https://notes.example.com/api/notes/n_318/tags", None, "2026-05-06T13:47:20.000",
         b'["q3-planning"]', None),
    ],
}  # fmt: skip


def body_bytes(text: str | None, encoding: str) -> bytes | None:
    if text is None:
        return None
    return base64.b64decode(text) if encoding == "base64" else text.encode("utf-8")


def check_calls(calls: list[HttpCall], expected: list[Expected]) -> None:
    assert [c.id for c in calls] == [str(i) for i in range(len(expected))], "HAR ids are entry positions"
    for call, (method, url, status, started, req, resp) in zip(calls, expected, strict=True):
        assert (call.method, call.url, call.status) == (method, url, status)
        assert call.started_at == datetime.fromisoformat(started).replace(tzinfo=UTC)
        request_body = body_bytes(call.request_body, call.request_body_encoding)
        response_body = body_bytes(call.response_body, call.response_body_encoding)
        if req is not None:
            assert request_body is not None and req in request_body, (call.id, request_body)
        if resp is not None:
            assert response_body is not None and resp in response_body, (call.id, response_body)


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_bare_har_imports(flavour: str) -> None:
    recording = import_path(HARS / f"{flavour}.har")
    assert recording.mode is Mode.API
    assert recording.task.instruction == ""
    check_calls(recording.http_calls, FLAVOURS[flavour])


@pytest.mark.parametrize("flavour", sorted(FLAVOURS))
def test_har_inside_zip_imports(flavour: str) -> None:
    har = (HARS / f"{flavour}.har").read_bytes()
    data = zip_bytes({"task.json": jbytes(TASK), "capture.har": har})
    recording = import_bytes(data, f"{flavour}.zip")
    assert recording.mode is Mode.API
    assert recording.task.network_requests == ["r1"]
    check_calls(recording.http_calls, FLAVOURS[flavour])


@pytest.mark.parametrize("flavour", ["chrome", "firefox", "charles"])
def test_har_object_as_network_json_imports(flavour: str) -> None:
    har = (HARS / f"{flavour}.har").read_bytes()
    data = zip_bytes({"task.json": jbytes(TASK), "network.json": har}, folder="export")
    recording = import_bytes(data, "rec.zip")
    check_calls(recording.http_calls, FLAVOURS[flavour])


def test_header_lists_keep_http2_pseudo_headers_and_cookies() -> None:
    recording = import_path(HARS / "chrome.har")
    first = recording.http_calls[0]
    assert first.header(":authority") == "board.example.com"
    assert first.header("Authorization") == "Bearer CANARY-chrome-har-bearer"
    assert recording.http_calls[1].header("cookie") == "bsess=CANARY-chrome-har-cookie"


def test_chrome_resource_type_is_read() -> None:
    types = [c.resource_type for c in import_path(HARS / "chrome.har").http_calls]
    assert types == ["fetch", "fetch", "image", "websocket"]
