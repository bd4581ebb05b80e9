"""Project board HARs: a bare Chrome export and a Firefox export zipped with a task.json."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta
from typing import Any

from builders.kit import (
    BOARD_BEARER,
    BROWSER_UA,
    CAPTURES,
    OUT,
    Clock,
    iso,
    jdump,
    pretty,
    task_json,
    write_zip,
)

# ----------------------------------------------------------------------------- 5. HAR recordings


def har_headers(headers: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in headers.items()]


def chrome_entry(
    t: datetime,
    method: str,
    url: str,
    status: int,
    *,
    rtype: str,
    req_headers: dict[str, str] | None = None,
    body: Any = None,
    resp_mime: str = "application/json",
    resp_body: Any = None,
    page: str = "page_1",
) -> dict[str, Any]:
    """One Chrome DevTools HAR entry (HAR 1.2 plus Chrome's `_` fields)."""
    from urllib.parse import parse_qsl, urlsplit

    text = resp_body if resp_body is None or isinstance(resp_body, str) else jdump(resp_body)
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "httpVersion": "http/2.0",
        "headers": har_headers({"user-agent": BROWSER_UA, **(req_headers or {})}),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query)],
        "cookies": [],
        "headersSize": -1,
        "bodySize": 0,
    }
    if body is not None:
        raw = body if isinstance(body, str) else jdump(body)
        request["postData"] = {"mimeType": "application/json", "text": raw}
        request["bodySize"] = len(raw.encode())
    content: dict[str, Any] = {"size": len((text or "").encode()), "mimeType": resp_mime}
    if text is not None:
        content["text"] = text
    return {
        "_initiator": {"type": "script"} if rtype in ("fetch", "xhr") else {"type": "parser"},
        "_priority": "High",
        "_resourceType": rtype,
        "cache": {},
        "connection": "443",
        "pageref": page,
        "request": request,
        "response": {
            "status": status,
            "statusText": {200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified"}.get(status, ""),
            "httpVersion": "http/2.0",
            "headers": har_headers({"content-type": resp_mime}),
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
            "_transferSize": 180 + content["size"],
            "_error": None,
        },
        "serverIPAddress": "203.0.113.10",
        "startedDateTime": iso(t),
        "time": 63.412,
        "timings": {
            "blocked": 1.204,
            "dns": -1,
            "ssl": -1,
            "connect": -1,
            "send": 0.118,
            "wait": 58.9,
            "receive": 3.19,
            "_blocked_queueing": 0.87,
        },
    }


def board_chrome_har() -> None:
    start = datetime(2026, 5, 6, 10, 30, 0, 0, tzinfo=UTC)
    clock = Clock(start)
    site, api = "https://board.example.com", "https://board.example.com/api"
    auth = {"authorization": BOARD_BEARER, "accept": "application/json"}
    card = {
        "id": "card_881",
        "boardId": "b_12",
        "columnId": "col_todo",
        "title": "Rotate the staging TLS certificate",
        "position": 3,
        "labels": [],
    }
    columns = [
        {"id": "col_todo", "name": "To do", "cards": 3},
        {"id": "col_doing", "name": "In progress", "cards": 2},
        {"id": "col_done", "name": "Done", "cards": 14},
    ]
    entries = [
        chrome_entry(
            clock.tick(0),
            "GET",
            f"{site}/b/b_12",
            200,
            rtype="document",
            resp_mime="text/html",
            resp_body="<!doctype html><title>Board · Ops</title><div id=board></div>",
        ),
        chrome_entry(
            clock.tick(60),
            "GET",
            f"{site}/assets/board-7c1e.js",
            200,
            rtype="script",
            resp_mime="application/javascript",
            resp_body="export{};",
        ),
        chrome_entry(
            clock.tick(10),
            "GET",
            f"{site}/assets/board-7c1e.css",
            200,
            rtype="stylesheet",
            resp_mime="text/css",
            resp_body=".col{display:flex}",
        ),
        chrome_entry(
            clock.tick(120),
            "GET",
            f"{api}/boards/b_12",
            200,
            rtype="fetch",
            req_headers=auth,
            resp_body={"id": "b_12", "name": "Ops", "columns": columns},
        ),
        chrome_entry(
            clock.tick(30),
            "POST",
            "https://plausible.io/api/event",
            202,
            rtype="ping",
            body={"n": "pageview", "u": f"{site}/b/b_12", "d": "board.example.com"},
            resp_mime="text/plain",
            resp_body="ok",
        ),
        chrome_entry(
            clock.tick(4100),
            "POST",
            f"{api}/boards/b_12/cards",
            201,
            rtype="fetch",
            req_headers={**auth, "content-type": "application/json"},
            body={"columnId": "col_todo", "title": card["title"]},
            resp_body=card,
        ),
        chrome_entry(
            clock.tick(2600),
            "PATCH",
            f"{api}/cards/card_881",
            200,
            rtype="fetch",
            req_headers={**auth, "content-type": "application/json"},
            body={"columnId": "col_doing", "position": 0},
            resp_body={**card, "columnId": "col_doing", "position": 0},
        ),
        chrome_entry(
            clock.tick(200),
            "GET",
            f"{api}/boards/b_12/columns/col_doing/cards",
            200,
            rtype="fetch",
            req_headers=auth,
            resp_body={"items": [{**card, "columnId": "col_doing", "position": 0}]},
        ),
        chrome_entry(
            clock.tick(100),
            "GET",
            f"{site}/assets/avatars/u_9.png",
            304,
            rtype="image",
            resp_mime="image/png",
        ),
    ]
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": [
                {
                    "startedDateTime": iso(start),
                    "id": "page_1",
                    "title": f"{site}/b/b_12",
                    "pageTimings": {"onContentLoad": 412.5, "onLoad": 690.1},
                }
            ],
            "entries": entries,
        }
    }
    CAPTURES.mkdir(exist_ok=True)
    (CAPTURES / "project_board.har").write_bytes(pretty(har))


def board_firefox_zip() -> None:
    """Firefox export: form posts as postData.params, base64 bodies, timings -1, +02:00 offsets."""
    start = datetime(2026, 5, 6, 10, 41, 0, 0, tzinfo=UTC)
    clock = Clock(start)
    site = "https://board.example.com"
    ua = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

    def local(t: datetime) -> str:
        return (t + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}+02:00"

    def entry(
        t: datetime,
        method: str,
        url: str,
        status: int,
        *,
        params: list[tuple[str, str]] | None = None,
        resp: Any = None,
        mime: str = "application/json",
        b64: bool = False,
    ) -> dict[str, Any]:
        req: dict[str, Any] = {
            "bodySize": 0,
            "method": method,
            "url": url,
            "httpVersion": "HTTP/2",
            "headers": har_headers(
                {
                    "Host": "board.example.com",
                    "User-Agent": ua,
                    "Authorization": BOARD_BEARER,
                    "Cookie": "bsess=CANARY-board-cookie-44aa",
                }
            ),
            "cookies": [{"name": "bsess", "value": "CANARY-board-cookie-44aa"}],
            "queryString": [],
            "headersSize": 412,
        }
        if params is not None:
            from urllib.parse import urlencode

            text = urlencode(params)
            req["postData"] = {
                "mimeType": "application/x-www-form-urlencoded",
                "params": [{"name": k, "value": v} for k, v in params],
                "text": text,
            }
            req["bodySize"] = len(text)
        text_out = resp if resp is None or isinstance(resp, str) else jdump(resp)
        content: dict[str, Any] = {"mimeType": mime, "size": len((text_out or "").encode())}
        if text_out is not None:
            if b64:
                content["text"] = base64.b64encode(text_out.encode()).decode()
                content["encoding"] = "base64"
            else:
                content["text"] = text_out
        return {
            "pageref": "page_1",
            "startedDateTime": local(t),
            "request": req,
            "response": {
                "status": status,
                "statusText": {200: "OK", 201: "Created", 204: "No Content"}.get(status, ""),
                "httpVersion": "HTTP/2",
                "headers": har_headers({"content-type": mime}),
                "cookies": [],
                "content": content,
                "redirectURL": "",
                "headersSize": 220,
                "bodySize": content["size"],
            },
            "cache": {},
            "timings": {
                "blocked": -1,
                "dns": -1,
                "connect": -1,
                "ssl": -1,
                "send": 0,
                "wait": 71,
                "receive": 0,
            },
            "time": 71,
            "_securityState": "secure",
            "serverIPAddress": "203.0.113.10",
            "connection": "443",
        }

    card = {
        "id": "card_884",
        "boardId": "b_12",
        "columnId": "col_todo",
        "title": "Renew the status-page domain",
    }
    entries = [
        entry(
            clock.tick(0),
            "GET",
            f"{site}/api/boards/b_12",
            200,
            resp={"id": "b_12", "name": "Ops", "columns": ["col_todo", "col_doing", "col_done"]},
            b64=True,
        ),
        entry(clock.tick(300), "GET", f"{site}/assets/icons.svg", 200, resp="<svg/>", mime="image/svg+xml"),
        entry(
            clock.tick(3800),
            "POST",
            f"{site}/api/boards/b_12/cards",
            201,
            params=[("columnId", "col_todo"), ("title", card["title"])],
            resp=card,
            b64=True,
        ),
        entry(
            clock.tick(2100),
            "POST",
            f"{site}/api/cards/card_884/move",
            200,
            params=[("columnId", "col_done"), ("position", "0")],
            resp={**card, "columnId": "col_done", "position": 0},
            b64=True,
        ),
        entry(clock.tick(40), "POST", "https://plausible.io/api/event", 202, resp="ok", mime="text/plain"),
    ]
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "Firefox", "version": "128.0"},
            "browser": {"name": "Firefox", "version": "128.0"},
            "pages": [
                {
                    "startedDateTime": local(start),
                    "id": "page_1",
                    "title": "Ops board",
                    "pageTimings": {"onContentLoad": -1, "onLoad": -1},
                }
            ],
            "entries": entries,
        }
    }
    instruction = "On the Ops board, add a 'Renew the status-page domain' card to To do, then move it to Done."
    write_zip(
        OUT / "project_board_firefox.zip",
        [
            ("task.json", task_json("rec_pb_884", start, site, instruction, ["2", "3"])),
            ("capture.har", pretty(har)),
        ],
    )
