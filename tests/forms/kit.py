"""A browser for the form-app corpus: it logs what Chrome's DevTools would export as a HAR while a
person uses a server-rendered app (page loads and their assets, cookies that rotate, CSRF
tokens in pages, forms posted as navigations or by Turbo with fetch, redirects, Turbo frames,
a polling badge, an analytics beacon).

Everything is deterministic: tokens come from a seeded hash, times from a fixed clock, so the
corpus files are the same bytes every time `make_corpus.py` runs.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus, urlsplit

from tests.package.corpus_kit import Clock, iso, zip_files

CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
HTML = "text/html; charset=utf-8"
TURBO_ACCEPT = "text/vnd.turbo-stream.html, text/html, application/xhtml+xml"
Fields = list[tuple[str, str]]


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart form."""

    filename: str
    content_type: str
    data: bytes


def token(seed: str, size: int = 43) -> str:
    """A random-looking, deterministic token (CSRF tokens, session cookies, request ids)."""
    raw = b""
    counter = 0
    while len(raw) < size:
        raw += hashlib.sha256(f"{seed}/{counter}".encode()).digest()
        counter += 1
    return base64.urlsafe_b64encode(raw).decode()[:size]


def urlencoded(fields: Fields) -> str:
    return "&".join(f"{quote_plus(name)}={quote_plus(value)}" for name, value in fields)


def multipart(fields: list[tuple[str, str | Upload]], boundary: str) -> str:
    """The body as text (the corpus files are ASCII), CRLF line ends as browsers send them."""
    lines: list[str] = []
    for name, value in fields:
        lines.append(f"--{boundary}")
        if isinstance(value, Upload):
            lines.append(f'Content-Disposition: form-data; name="{name}"; filename="{value.filename}"')
            lines.append(f"Content-Type: {value.content_type}")
            lines.append("")
            lines.append(value.data.decode("ascii"))
        else:
            lines.append(f'Content-Disposition: form-data; name="{name}"')
            lines.append("")
            lines.append(value)
    lines.append(f"--{boundary}--")
    return "\r\n".join(lines) + "\r\n"


@dataclass
class Browser:
    """One person's session on one site; `seed` makes its tokens and cookies differ per run."""

    site: str
    clock: Clock
    seed: str
    cookie_name: str = "_app_session"
    entries: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    cookies: dict[str, str] = field(default_factory=dict)
    page_url: str = ""
    counter: int = 0

    def fresh(self, what: str) -> str:
        self.counter += 1
        return token(f"{self.seed}/{what}/{self.counter}")

    def visit(
        self, path: str, html: str, *, assets: tuple[str, ...] = (), status: int = 200, fetch: bool = False
    ) -> None:
        """A page load: the document (or a Turbo Drive visit made with fetch) and its assets."""
        url = self.site + path
        if not fetch:
            self.pages.append({"startedDateTime": iso(self.clock.now), "id": f"page_{len(self.pages) + 1}",
                               "title": url, "pageTimings": {"onContentLoad": 310, "onLoad": 520}})  # fmt: skip
        headers = {"Accept": TURBO_ACCEPT if fetch else "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"}
        if fetch:
            headers["X-Turbo-Request-Id"] = self.fresh("turbo-request")
        self._entry("GET", url, "fetch" if fetch else "document", headers, None, status, HTML, html)
        self.page_url = url
        for asset in assets:
            kind = "stylesheet" if asset.endswith(".css") else "script" if asset.endswith(".js") else "image"
            mime = {"stylesheet": "text/css", "script": "text/javascript", "image": "image/png"}[kind]
            body = "body{margin:0}" if kind == "stylesheet" else "console.log(1)" if kind == "script" else None
            self._entry("GET", self.site + asset, kind, {"Accept": "*/*"}, None, 200, mime, body, gap=12)

    def submit(
        self,
        path: str,
        fields: list[tuple[str, str | Upload]],
        *,
        status: int,
        location: str | None = None,
        html: str | None = None,
        turbo: bool = False,
        boundary: str | None = None,
        fetch: bool = False,
        headers: dict[str, str] | None = None,
        answer_headers: dict[str, str] | None = None,
        mime: str | None = None,
    ) -> None:
        """A form post: a page navigation, or Turbo's (or a script's: `fetch`, with its own
        `headers`) fetch; answered by a redirect, a re-render or a fragment (`mime`)."""
        accept = TURBO_ACCEPT if turbo else "text/html,application/xhtml+xml"
        headers = {"Origin": self.site, "Accept": accept, **(headers or {})}
        if turbo:
            headers["X-Turbo-Request-Id"] = self.fresh("turbo-request")
        if boundary is not None:
            content_type = f"multipart/form-data; boundary={boundary}"
            body = multipart(fields, boundary)
        else:
            content_type = "application/x-www-form-urlencoded"
            body = urlencoded([(n, v) for n, v in fields if isinstance(v, str)])
        headers["Content-Type"] = content_type
        extra = {"Location": location} if location else {}
        extra.update(answer_headers or {})
        mime = mime or (HTML if html is not None else "text/html; charset=utf-8")
        kind = "fetch" if turbo or fetch else "document"
        self._entry("POST", self.site + path, kind, headers, (content_type, body),
                    status, mime, html or "", extra=extra, gap=900)  # fmt: skip

    def partial(self, path: str, headers: dict[str, str], html: str, *, mime: str = HTML) -> None:
        """A script's partial-page read (htmx, a Turbo stream, an XHR for a fragment)."""
        self._entry("GET", self.site + path, "fetch", {"Accept": "text/html", **headers}, None, 200, mime, html, gap=60)

    def frame(self, path: str, frame_id: str, html: str) -> None:
        """A Turbo frame loading its content (a partial page)."""
        headers = {"Accept": "text/html, application/xhtml+xml", "Turbo-Frame": frame_id,
                   "X-Turbo-Request-Id": self.fresh("turbo-request")}  # fmt: skip
        self._entry("GET", self.site + path, "fetch", headers, None, 200, HTML, html, gap=60)

    def beacon(self, url: str, event: str) -> None:
        """An analytics event posted to another host (noise)."""
        body = json.dumps({"n": event, "u": self.page_url, "d": urlsplit(self.site).netloc}, separators=(",", ":"))
        self._entry("POST", url, "fetch", {"Content-Type": "text/plain"}, ("text/plain", body), 202, "text/plain",
                    "ok", gap=40, cookies=False)  # fmt: skip

    def _entry(
        self,
        method: str,
        url: str,
        resource_type: str,
        headers: dict[str, str],
        post: tuple[str, str] | None,
        status: int,
        mime: str,
        text: str | None,
        *,
        extra: dict[str, str] | None = None,
        gap: int = 400,
        cookies: bool = True,
    ) -> None:
        started = self.clock.tick(gap)
        same_site = url.startswith(self.site)
        request_headers = [
            {"name": ":method", "value": method},
            {"name": ":path", "value": url.split(urlsplit(url).netloc, 1)[1] or "/"},
            {"name": "user-agent", "value": CHROME_UA},
            *({"name": k, "value": v} for k, v in headers.items()),
        ]
        if self.page_url and url != self.page_url:
            request_headers.append({"name": "Referer", "value": self.page_url})
        if cookies and same_site and self.cookies:
            cookie_header = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            request_headers.append({"name": "Cookie", "value": cookie_header})
        response_headers = [
            {"name": "Content-Type", "value": mime},
            {"name": "X-Request-Id", "value": self.fresh("rid")},
        ]
        set_cookies = []
        if same_site and resource_type in ("document", "fetch") and mime.startswith("text/html"):
            # Rails-style session cookies are re-encrypted on every answer
            self.cookies[self.cookie_name] = self.fresh("session")
            set_cookies.append({"name": self.cookie_name, "value": self.cookies[self.cookie_name], "path": "/",
                                "httpOnly": True, "secure": True, "sameSite": "Lax"})  # fmt: skip
            response_headers.append({"name": "Set-Cookie", "value": f"{self.cookie_name}={self.cookies[self.cookie_name]}; path=/; secure; HttpOnly; SameSite=Lax"})  # fmt: skip
        response_headers.extend({"name": k, "value": v} for k, v in (extra or {}).items())
        request: dict[str, Any] = {
            "method": method,
            "url": url,
            "httpVersion": "http/2.0",
            "headers": request_headers,
            "queryString": [],
            "cookies": [{"name": k, "value": v} for k, v in self.cookies.items()] if cookies and same_site else [],
            "headersSize": -1,
            "bodySize": len(post[1].encode()) if post else 0,
        }
        if post is not None:
            request["postData"] = {"mimeType": post[0], "text": post[1]}
        self.entries.append(
            {
                "_resourceType": resource_type,
                "_priority": "VeryHigh" if resource_type == "document" else "High",
                "cache": {},
                "connection": "443",
                "pageref": f"page_{max(len(self.pages), 1)}",
                "request": request,
                "response": {
                    "status": status,
                    "statusText": _STATUS_TEXT.get(status, ""),
                    "httpVersion": "http/2.0",
                    "headers": response_headers,
                    "cookies": set_cookies,
                    "content": {"size": len((text or "").encode()), "mimeType": mime, "text": text or ""},
                    "redirectURL": (extra or {}).get("Location", ""),
                    "headersSize": -1,
                    "bodySize": -1,
                    "_transferSize": len((text or "").encode()) + 420,
                    "_error": None,
                },
                "serverIPAddress": "203.0.113.10",
                "startedDateTime": iso(started),
                "time": 85.4,
                "timings": {
                    "blocked": 1.2,
                    "dns": -1,
                    "ssl": -1,
                    "connect": -1,
                    "send": 0.2,
                    "wait": 80.1,
                    "receive": 3.9,
                    "_blocked_queueing": 0.8,
                },
            }
        )

    def har(self) -> dict[str, Any]:
        return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
                        "pages": self.pages, "entries": self.entries}}  # fmt: skip


_STATUS_TEXT = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    302: "Found",
    303: "See Other",
    422: "Unprocessable Content",
}


def recording_zip(instruction: str, site: str, rec_id: str, browser: Browser) -> bytes:
    """A recording ZIP: task.json and the HAR the browser exported."""
    task = {
        "metadata": {"recordingId": rec_id, "recordedAt": "2026-05-11T08:30:00.000Z", "site": site},
        "task": {"instruction": instruction, "networkRequests": [], "subtasks": [], "rubrics": []},
    }
    har = json.dumps(browser.har(), indent=1, ensure_ascii=False).encode() + b"\n"
    return zip_files({"task.json": task, "recording.har": har})
