"""Batch C's writers: batch B's `Recorder` (tests/package/rewards_heldout/recorder.py) logs the
exchanges; these write them the way three more tools do (all accepted by docs/formats.md):
- `playwright_har`: Playwright's `recordHar` (`creator.name` Playwright, `pages` with
  `page@<hex>` ids, `_frameref`, `_monotonicTime`, `serverIPAddress`, `_serverPort`,
  `response._transferSize`, form posts with `postData.params` beside the text);
- `safari_har`: Safari's Web Inspector export (`creator.name` "WebKit Web Inspector",
  `_fetchType`, `_priority`, `startedDateTime` with a `Z`, a page per document);
- `echo_array`: network.json as a bare array of requests (no `version` wrapper), string ids
  `req-0001`, `startedAt` in epoch seconds with a fraction, lower-case header objects, and
  response bodies stored base64 (`responseBodyEncoding: "base64"`), as a CDP-based logger keeps
  them.
Call ids: a HAR entry's 0-based position (`har_id`), the echo array's `req-NNNN` (`array_id`).
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qsl

from tests.package.rewards_heldout.recorder import Exchange, Recorder
from tests.package.rewards_kit import hexid


def har_id(echo_id: str) -> str:
    return Recorder.har_id(echo_id)


def array_id(echo_id: str) -> str:
    return f"req-{int(echo_id):04d}"


def _iso_z(x: Exchange) -> str:
    return x.started.strftime("%Y-%m-%dT%H:%M:%S.") + f"{x.started.microsecond // 1000:03d}Z"


def _query(url: str) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in parse_qsl(url.partition("?")[2], keep_blank_values=True)]


def _playwright_entry(x: Exchange, page: str, first: Exchange) -> dict[str, Any]:
    mime = x.request_headers.get("Content-Type", x.request_headers.get("content-type", ""))
    request: dict[str, Any] = {
        "method": x.method,
        "url": x.url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": [{"name": k, "value": v} for k, v in x.request_headers.items()],
        "queryString": _query(x.url),
        "headersSize": -1,
        "bodySize": len((x.request_body or "").encode()),
    }
    if x.request_body is not None:
        post: dict[str, Any] = {"mimeType": mime, "text": x.request_body}
        if mime.startswith("application/x-www-form-urlencoded"):
            post["params"] = [{"name": k, "value": v} for k, v in parse_qsl(x.request_body, keep_blank_values=True)]
        request["postData"] = post
    out_mime = x.response_headers.get("Content-Type", "x-unknown")
    monotonic = (x.started - first.started).total_seconds() * 1000 + 18412.337
    return {
        "startedDateTime": _iso_z(x),
        "time": x.duration_ms,
        "request": request,
        "response": {
            "status": x.status,
            "statusText": {200: "OK", 201: "Created", 302: "Found", 400: "Bad Request", 409: "Conflict"}.get(x.status, ""),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": [{"name": k, "value": v} for k, v in x.response_headers.items()],
            "content": {"size": len(x.response_body.encode()), "mimeType": out_mime, "text": x.response_body},
            "headersSize": -1,
            "bodySize": len(x.response_body.encode()),
            "redirectURL": x.response_headers.get("Location", ""),
            "_transferSize": len(x.response_body.encode()) + 312,
        },
        "cache": {},
        "timings": {"dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": x.duration_ms - 3, "receive": 3},
        "pageref": page,
        "serverIPAddress": "23.227.38.74",
        "_frameref": "frame@" + hexid(page + "/frame", 32),
        "_monotonicTime": round(monotonic, 3),
        "_serverPort": 443,
        "_securityDetails": {"protocol": "TLS 1.3", "subjectName": "*.myshopify.com", "issuer": "GTS CA 1D4"},
    }  # fmt: skip


def playwright_har(rec: Recorder, title: str, seed: str) -> dict[str, Any]:
    page = "page@" + hexid(seed + "/page", 32)
    first = rec.exchanges[0] if rec.exchanges else None
    started = _iso_z(first) if first else rec.start.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    pages = [
        {"startedDateTime": started, "id": page, "title": title, "pageTimings": {"onContentLoad": -1, "onLoad": -1}}
    ]
    entries = [_playwright_entry(x, page, first) for x in rec.exchanges] if first else []
    return {"log": {"version": "1.2", "creator": {"name": "Playwright", "version": "1.44.1"},
                    "browser": {"name": "chromium", "version": "125.0.6422.26"}, "pages": pages, "entries": entries}}  # fmt: skip


def safari_har(rec: Recorder, title: str) -> dict[str, Any]:
    """Safari's export: one page per top-level document GET (text/html answers), entries after it on it."""
    pages: list[dict[str, Any]] = []
    entries = []
    for x in rec.exchanges:
        html = "html" in x.response_headers.get("Content-Type", "")
        if (x.method == "GET" and html) or not pages:
            pages.append({"startedDateTime": _iso_z(x), "id": f"page_{len(pages) + 1}", "title": title if not pages else x.url,
                          "pageTimings": {"onContentLoad": 210 + 3 * len(pages), "onLoad": 388 + 5 * len(pages)}})  # fmt: skip
        request: dict[str, Any] = {"method": x.method, "url": x.url, "httpVersion": "HTTP/1.1", "cookies": [],
                                   "headers": [{"name": k, "value": v} for k, v in x.request_headers.items()],
                                   "queryString": _query(x.url), "headersSize": -1, "bodySize": len(x.request_body or "")}  # fmt: skip
        if x.request_body is not None:
            mime = x.request_headers.get("Content-Type", "application/octet-stream")
            request["postData"] = {"mimeType": mime, "text": x.request_body}
        entries.append({
            "pageref": pages[-1]["id"],
            "startedDateTime": _iso_z(x),
            "time": x.duration_ms,
            "request": request,
            "response": {"status": x.status, "statusText": {200: "OK", 302: "Found"}.get(x.status, ""), "httpVersion": "HTTP/1.1",
                         "cookies": [], "headers": [{"name": k, "value": v} for k, v in x.response_headers.items()],
                         "content": {"size": len(x.response_body), "compression": 0,
                                     "mimeType": x.response_headers.get("Content-Type", "").split(";")[0], "text": x.response_body},
                         "redirectURL": x.response_headers.get("Location", ""), "headersSize": -1, "bodySize": len(x.response_body)},
            "cache": {},
            "timings": {"blocked": 0.2, "dns": -1, "connect": -1, "ssl": -1, "send": 0.1, "wait": x.duration_ms - 5, "receive": 4.7},
            "_fetchType": "Network Load",
            "_priority": "high" if x.method != "GET" else "medium",
        })  # fmt: skip
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebKit Web Inspector", "version": "1.0"},
            "pages": pages,
            "entries": entries,
        }
    }


def echo_array(rec: Recorder, page: str) -> list[dict[str, Any]]:
    out = []
    for number, x in enumerate(rec.exchanges, start=1):
        item: dict[str, Any] = {
            "id": f"req-{number:04d}",
            "startedAt": round(x.started.timestamp(), 3),
            "durationMs": x.duration_ms,
            "method": x.method,
            "url": x.url,
            "resourceType": "fetch",
            "requestHeaders": {k.lower(): v for k, v in x.request_headers.items()},
            "requestBody": x.request_body,
            "status": x.status,
            "responseHeaders": {k.lower(): v for k, v in x.response_headers.items()},
            "responseBody": base64.b64encode(x.response_body.encode()).decode() if x.response_body else None,
            "pageUrl": page,
        }
        if x.response_body:
            item["responseBodyEncoding"] = "base64"
        out.append(item)
    return out
