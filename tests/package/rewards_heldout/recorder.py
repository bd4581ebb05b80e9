"""The held-out batch's own recorder: exchanges logged once, written the way other tools write them.

Batch B of issue 28 is written apart from batch A (tests/package/rewards) and with other
conventions, so the fixes made for batch A are measured on traffic they were not shaped by:
- `echo_document`: echo network.json with numeric ids (1..N), epoch-millisecond `startedAt` and
  headers as lists of `{name, value}` (all accepted by docs/formats.md);
- `firefox_har`: Firefox's HAR export (no `_resourceType`, `pageref`, `_securityState`, cookies
  listed, header names as sent);
- `mitmproxy_har`: mitmproxy's HAR (`creator.name` mitmproxy, `postData.text`, ISO times with an
  offset, no pages).
Call ids: the echo `id`; a HAR entry's 0-based position (`har_id`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from tests.package.corpus_kit import jdump


@dataclass
class Exchange:
    method: str
    url: str
    request_headers: dict[str, str]
    request_body: str | None
    status: int
    response_headers: dict[str, str]
    response_body: str
    started: datetime
    duration_ms: int


@dataclass
class Recorder:
    """One person's (or agent's) traffic: `send` logs an exchange and returns its echo id."""

    start: datetime
    exchanges: list[Exchange] = field(default_factory=list)

    def send(
        self,
        method: str,
        url: str,
        *,
        status: int,
        body: Any = None,
        answer: Any = None,
        headers: dict[str, str] | None = None,
        answer_headers: dict[str, str] | None = None,
        gap_ms: int = 420,
    ) -> str:
        self.start += timedelta(milliseconds=gap_ms)
        request_headers = dict(headers or {})
        if body is not None and not isinstance(body, str):
            request_headers.setdefault("Content-Type", "application/json")
        response_headers = dict(answer_headers) if answer_headers is not None else {"Content-Type": "application/json"}
        sent = body if body is None or isinstance(body, str) else jdump(body)
        got = answer if isinstance(answer, str) else ("" if answer is None else jdump(answer))
        duration = 60 + 7 * (len(self.exchanges) % 5)
        self.exchanges.append(
            Exchange(method, url, request_headers, sent, status, response_headers, got, self.start, duration)
        )
        return str(len(self.exchanges))

    @staticmethod
    def har_id(echo_id: str) -> str:
        return str(int(echo_id) - 1)


def at(year: int, month: int, day: int, hour: int, minute: int) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def echo_document(rec: Recorder, page: str) -> dict[str, Any]:
    requests = []
    for number, x in enumerate(rec.exchanges, start=1):
        requests.append({
            "id": number,
            "startedAt": int(x.started.timestamp() * 1000),
            "durationMs": x.duration_ms,
            "method": x.method,
            "url": x.url,
            "resourceType": "xhr",
            "requestHeaders": [{"name": k, "value": v} for k, v in x.request_headers.items()],
            "requestBody": x.request_body,
            "status": x.status,
            "responseHeaders": [{"name": k, "value": v} for k, v in x.response_headers.items()],
            "responseBody": x.response_body or None,
            "pageUrl": page,
        })  # fmt: skip
    return {"version": 1, "requests": requests}


def _har_entry(x: Exchange, *, firefox: bool) -> dict[str, Any]:
    request: dict[str, Any] = {
        "method": x.method,
        "url": x.url,
        "httpVersion": "HTTP/2" if firefox else "HTTP/1.1",
        "headers": [{"name": k, "value": v} for k, v in x.request_headers.items()],
        "cookies": [],
        "queryString": [],
        "headersSize": -1 if not firefox else 512,
        "bodySize": len(x.request_body or ""),
    }
    if x.request_body is not None:
        request["postData"] = {"mimeType": x.request_headers.get("Content-Type", "text/plain"), "text": x.request_body}
        if firefox:
            request["postData"]["params"] = []
    entry: dict[str, Any] = {
        "startedDateTime": x.started.isoformat(timespec="milliseconds") if not firefox else x.started.strftime("%Y-%m-%dT%H:%M:%S.") + f"{x.started.microsecond // 1000:03d}+00:00",
        "time": x.duration_ms,
        "request": request,
        "response": {
            "status": x.status,
            "statusText": "",
            "httpVersion": request["httpVersion"],
            "headers": [{"name": k, "value": v} for k, v in x.response_headers.items()],
            "cookies": [],
            "content": {"size": len(x.response_body), "mimeType": x.response_headers.get("Content-Type", ""), "text": x.response_body},
            "redirectURL": x.response_headers.get("Location", ""),
            "headersSize": -1,
            "bodySize": len(x.response_body),
        },
        "cache": {},
        "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": x.duration_ms - 4, "receive": 4},
    }  # fmt: skip
    if firefox:
        entry["pageref"] = "page_1"
        entry["_securityState"] = "secure"
        entry["serverIPAddress"] = "198.51.100.24"
        entry["connection"] = "443"
    return entry


def firefox_har(rec: Recorder, title: str) -> dict[str, Any]:
    first = rec.exchanges[0].started if rec.exchanges else rec.start
    pages = [{"startedDateTime": first.isoformat(timespec="milliseconds"), "id": "page_1", "title": title,
              "pageTimings": {"onContentLoad": 412, "onLoad": 655}}]  # fmt: skip
    return {"log": {"version": "1.2", "creator": {"name": "Firefox", "version": "126.0"}, "browser": {"name": "Firefox", "version": "126.0"},
                    "pages": pages, "entries": [_har_entry(x, firefox=True) for x in rec.exchanges]}}  # fmt: skip


def mitmproxy_har(rec: Recorder) -> dict[str, Any]:
    return {"log": {"version": "1.2", "creator": {"name": "mitmproxy", "version": "10.3.0", "comment": "mitmproxy har_dump"},
                    "pages": [], "entries": [_har_entry(x, firefox=False) for x in rec.exchanges]}}  # fmt: skip
