"""Write the example recordings to examples/recordings/ (deterministic: same bytes every run).

Run: `python examples/make_recordings.py`. Every timestamp is fixed and every ZIP entry has a
fixed date_time and permissions, so re-running gives identical files. The secrets planted in
the recordings (Bearer tokens, cookies, an `access_token` query) contain the marker
`CANARY` so redaction tests can grep for them; see examples/README.md.
"""

from __future__ import annotations

import base64
import json
import sys
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "recordings"
ZIP_DATE = (2026, 5, 6, 13, 47, 0)

# Planted secrets: anything containing CANARY must never leave the redactor.
TRACKER_BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzQyIn0.CANARY-tracker-bearer-5f1c"
TRACKER_COOKIE = "tr_session=CANARY-tracker-cookie-9a2e; theme=dark; _ga=GA1.2.1234.5678"
TRACKER_ACCESS_TOKEN = "CANARY-tracker-query-token-77d0"
SHOP_COOKIE = "sid=CANARY-shop-session-3c8b; cart_v=7; consent=analytics"
SHOP_API_KEY = "pk_live_CANARY-shop-apikey-1e4f"
BOARD_BEARER = "Bearer CANARY-board-bearer-0b6d"


# ----------------------------------------------------------------------------- helpers


def jdump(obj: Any) -> str:
    """Compact JSON, the way browsers send bodies."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def pretty(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def epoch_ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


class Clock:
    """Advancing fixed clock so every recording has plausible, reproducible timings."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def tick(self, ms: int) -> datetime:
        self.now = self.now + timedelta(milliseconds=ms)
        return self.now


def write_zip(path: Path, files: list[tuple[str, bytes]], *, folder: str | None = None) -> None:
    """A ZIP with fixed metadata; `folder` puts everything under one top-level folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        if folder is not None:
            info = zipfile.ZipInfo(folder + "/", date_time=ZIP_DATE)
            info.create_system = 3
            info.external_attr = (0o40755 << 16) | 0x10
            zf.writestr(info, b"")
        for name, data in files:
            full = f"{folder}/{name}" if folder else name
            info = zipfile.ZipInfo(full, date_time=ZIP_DATE)
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=6)


# A 1x1 transparent PNG: a screenshot stand-in carried byte for byte into packages.
TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

BROWSER_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"
)


class EchoNetwork:
    """Builds an echo `network.json` request list with ids r1..rN."""

    def __init__(self, clock: Clock, page: str, *, epoch: bool = False, list_headers: bool = False) -> None:
        self.clock = clock
        self.page = page
        self.epoch = epoch
        self.list_headers = list_headers
        self.requests: list[dict[str, Any]] = []

    def _headers(self, headers: dict[str, str]) -> Any:
        if self.list_headers:
            return [{"name": k, "value": v} for k, v in headers.items()]
        return headers

    def add(
        self,
        method: str,
        url: str,
        *,
        status: int,
        resource_type: str = "fetch",
        req_headers: dict[str, str] | None = None,
        req_body: Any = None,
        resp_headers: dict[str, str] | None = None,
        resp_body: Any = None,
        gap_ms: int = 120,
        duration_ms: int = 80,
        page: str | None = None,
        resp_base64: bool = False,
    ) -> str:
        started = self.clock.tick(gap_ms)
        rid = f"r{len(self.requests) + 1}"
        body_in = req_body if req_body is None or isinstance(req_body, str) else jdump(req_body)
        body_out = resp_body if resp_body is None or isinstance(resp_body, str) else jdump(resp_body)
        request: dict[str, Any] = {
            "id": rid,
            "startedAt": epoch_ms(started) if self.epoch else iso(started),
            "durationMs": duration_ms,
            "method": method,
            "url": url,
            "resourceType": resource_type,
            "requestHeaders": self._headers({"user-agent": BROWSER_UA, **(req_headers or {})}),
            "requestBody": body_in,
            "status": status,
            "responseHeaders": self._headers(resp_headers or {}),
            "responseBody": body_out,
            "pageUrl": page or self.page,
        }
        if resp_base64:
            request["responseBodyEncoding"] = "base64"
        self.requests.append(request)
        return rid


JSON_RESP = {"content-type": "application/json; charset=utf-8"}


def task_json(rec_id: str, recorded: datetime, site: str, instruction: str, marked: list[str]) -> bytes:
    return pretty(
        {
            "metadata": {
                "recordingId": rec_id,
                "recordedAt": iso(recorded),
                "extensionVersion": "05061347",
                "site": site,
                "browser": {"name": "Chrome", "version": "126.0.6478.126"},
                "annotator": "ann_0193",
            },
            "task": {"instruction": instruction, "networkRequests": marked, "subtasks": [], "rubrics": []},
        }
    )


# ----------------------------------------------------------------------------- 1. issue tracker


def issue_tracker() -> None:
    start = datetime(2026, 5, 6, 13, 47, 12, 114000, tzinfo=UTC)
    net = EchoNetwork(Clock(start), "https://tracker.example.com/projects/web/issues")
    site, api = "https://tracker.example.com", "https://api.tracker.example.com/v2"
    auth = {
        "authorization": TRACKER_BEARER,
        "cookie": TRACKER_COOKIE,
        "accept": "application/json",
        "origin": site,
        "x-request-id": "0",
    }
    preflight_resp = {
        "access-control-allow-origin": site,
        "access-control-allow-methods": "GET,POST,PATCH,DELETE",
        "access-control-allow-headers": "authorization,content-type,x-request-id",
        "access-control-max-age": "600",
    }
    existing = [
        {
            "id": 4790 + i,
            "number": 120 + i,
            "title": t,
            "state": "open",
            "labels": [lbl] if lbl else [],
            "assignee": None,
            "createdAt": f"2026-05-0{1 + i % 5}T09:1{i}:00Z",
        }
        for i, (t, lbl) in enumerate(
            [
                ("Sidebar flickers on resize", "ui"),
                ("Export to CSV drops unicode", "bug"),
                ("Add keyboard shortcut for search", None),
                ("Slow first paint on dashboard", "perf"),
                ("Dark mode contrast on badges", "ui"),
                ("Webhook retries are not logged", None),
                ("Typo in onboarding email", "docs"),
                ("Flaky test: test_upload_resume", "ci"),
            ]
        )
    ]
    new_issue = {
        "id": 4812,
        "number": 128,
        "title": "Login redirect loops when session cookie expires",
        "description": "Steps: 1. log in 2. wait for the session to expire 3. click any link.\n"
        "Expected: the login page. Actual: endless 302 between /login and /app.",
        "state": "open",
        "priority": "high",
        "projectId": "prj_web",
        "reporter": {"id": "u_42", "login": "kim"},
        "assignee": None,
        "labels": [],
        "createdAt": "2026-05-06T13:47:31Z",
    }
    labels = [
        {"id": "lbl_bug", "name": "bug", "color": "#d73a4a"},
        {"id": "lbl_ui", "name": "ui", "color": "#0e8a16"},
        {"id": "lbl_perf", "name": "perf", "color": "#fbca04"},
        {"id": "lbl_auth", "name": "auth", "color": "#5319e7"},
        {"id": "lbl_docs", "name": "docs", "color": "#0075ca"},
    ]
    members = [
        {"id": "u_42", "login": "kim", "name": "Kim Park"},
        {"id": "u_17", "login": "rafael", "name": "Rafael Souza"},
        {"id": "u_23", "login": "ines", "name": "Inês Costa"},
    ]

    net.add(
        "GET",
        f"{site}/projects/web/issues",
        status=200,
        resource_type="document",
        req_headers={"cookie": TRACKER_COOKIE, "accept": "text/html"},
        resp_headers={"content-type": "text/html; charset=utf-8"},
        resp_body="<!doctype html><html><head><title>Issues · web</title>"
        '<script src="/static/js/app.3f9a1c.js" defer></script></head>'
        '<body><div id="root"></div></body></html>',
        duration_ms=142,
    )
    net.add(
        "GET",
        f"{site}/static/js/app.3f9a1c.js",
        status=200,
        resource_type="script",
        resp_headers={"content-type": "application/javascript", "cache-control": "max-age=31536000"},
        resp_body="(()=>{var e={};/* bundled app */})();",
    )
    net.add(
        "GET",
        f"{site}/static/css/app.9b2e4d.css",
        status=200,
        resource_type="stylesheet",
        resp_headers={"content-type": "text/css"},
        resp_body=":root{--accent:#3b82f6}body{margin:0;font-family:Inter,sans-serif}",
    )
    net.add(
        "GET",
        f"{site}/static/fonts/inter-var.woff2",
        status=200,
        resource_type="font",
        resp_headers={"content-type": "font/woff2"},
        resp_body=base64.b64encode(b"wOF2\x00\x01\x00\x00" + bytes(range(48))).decode(),
        resp_base64=True,
    )
    net.add(
        "GET",
        f"{site}/static/img/logo.png",
        status=200,
        resource_type="image",
        resp_headers={"content-type": "image/png"},
        resp_body=base64.b64encode(TINY_PNG).decode(),
        resp_base64=True,
    )
    net.add("OPTIONS", f"{api}/me", status=204, resource_type="preflight", resp_headers=preflight_resp)
    net.add("GET", f"{api}/me", status=200, req_headers=auth, resp_headers=JSON_RESP, resp_body=members[0])
    net.add(
        "GET",
        f"{api}/projects/web/issues?state=open&page=1&per_page=25",
        status=200,
        req_headers=auth,
        resp_headers={**JSON_RESP, "etag": 'W/"iss-120-127"'},
        resp_body={"items": existing, "total": len(existing), "page": 1},
        duration_ms=96,
    )
    net.add(
        "POST",
        "https://www.google-analytics.com/g/collect?v=2&tid=G-7Q2X9LZ1&cid=1234.5678&en=page_view"
        "&dl=https%3A%2F%2Ftracker.example.com%2Fprojects%2Fweb%2Fissues",
        status=204,
        resource_type="ping",
        gap_ms=40,
    )
    net.add(
        "GET",
        "wss://rt.tracker.example.com/socket?vsn=2.0.0&project=web",
        status=101,
        resource_type="websocket",
        req_headers={"upgrade": "websocket", "connection": "Upgrade", "sec-websocket-version": "13"},
        resp_headers={"upgrade": "websocket", "connection": "Upgrade"},
    )
    net.add(
        "OPTIONS",
        f"{api}/projects/web/issues",
        status=204,
        resource_type="preflight",
        resp_headers=preflight_resp,
        gap_ms=5200,
    )
    r_create = net.add(
        "POST",
        f"{api}/projects/web/issues",
        status=201,
        req_headers={**auth, "content-type": "application/json"},
        req_body={
            "title": new_issue["title"],
            "description": new_issue["description"],
            "priority": "high",
            "labels": [],
        },
        resp_headers={**JSON_RESP, "location": f"{api}/projects/web/issues/128"},
        resp_body=new_issue,
        duration_ms=188,
    )
    net.add(
        "POST",
        "https://o451234.ingest.sentry.io/api/6789012/envelope/?sentry_key=ab12cd34&sentry_version=7",
        status=200,
        resource_type="fetch",
        req_headers={"content-type": "text/plain;charset=UTF-8"},
        req_body='{"event_id":"9f1c","sent_at":"2026-05-06T13:47:31.9Z"}\n{"type":"transaction"}\n'
        '{"transaction":"/projects/:p/issues","spans":[]}',
        resp_headers=JSON_RESP,
        resp_body={"id": "9f1c"},
        gap_ms=30,
    )
    net.add(
        "GET",
        f"{api}/projects/web/issues/128",
        status=200,
        req_headers=auth,
        resp_headers=JSON_RESP,
        resp_body=new_issue,
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "GET",
        f"{api}/projects/web/labels?access_token={TRACKER_ACCESS_TOKEN}",
        status=200,
        req_headers={"accept": "application/json", "origin": site},
        resp_headers=JSON_RESP,
        resp_body={"items": labels},
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "OPTIONS",
        f"{api}/projects/web/issues/128/labels",
        status=204,
        resource_type="preflight",
        resp_headers=preflight_resp,
        gap_ms=2400,
    )
    r_label = net.add(
        "POST",
        f"{api}/projects/web/issues/128/labels",
        status=200,
        req_headers={**auth, "content-type": "application/json"},
        req_body={"labelIds": ["lbl_bug", "lbl_auth"]},
        resp_headers=JSON_RESP,
        resp_body={**new_issue, "labels": [labels[0], labels[3]]},
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "GET",
        f"{api}/projects/web/members",
        status=200,
        req_headers=auth,
        resp_headers=JSON_RESP,
        resp_body={"items": members},
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "GET",
        f"{site}/static/img/avatars/u_17.png",
        status=304,
        resource_type="image",
        req_headers={"if-none-match": '"av-u17-3"'},
        resp_headers={"etag": '"av-u17-3"'},
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "OPTIONS",
        f"{api}/projects/web/issues/128",
        status=204,
        resource_type="preflight",
        resp_headers=preflight_resp,
        gap_ms=1900,
    )
    assigned = {**new_issue, "labels": [labels[0], labels[3]], "assignee": members[1]}
    r_assign = net.add(
        "PATCH",
        f"{api}/projects/web/issues/128",
        status=200,
        req_headers={**auth, "content-type": "application/json"},
        req_body={"assigneeId": "u_17"},
        resp_headers=JSON_RESP,
        resp_body=assigned,
        page=f"{site}/projects/web/issues/128",
    )
    net.add(
        "POST",
        "https://api.segment.io/v1/t",
        status=200,
        req_headers={"content-type": "text/plain"},
        req_body={"event": "Issue Assigned", "properties": {"issue": 128}, "writeKey": "wk_tracker"},
        resp_headers=JSON_RESP,
        resp_body={"success": True},
        gap_ms=25,
    )
    net.add(
        "GET",
        f"{api}/projects/web/issues?state=open&page=1&per_page=25",
        status=200,
        req_headers=auth,
        resp_headers={**JSON_RESP, "etag": 'W/"iss-120-128"'},
        resp_body={"items": [assigned, *existing], "total": len(existing) + 1, "page": 1},
        page=f"{site}/projects/web/issues",
        gap_ms=800,
    )
    net.add(
        "GET",
        f"{api}/notifications/unread_count",
        status=200,
        req_headers=auth,
        resp_headers=JSON_RESP,
        resp_body={"count": 3},
        page=f"{site}/projects/web/issues",
    )

    instruction = (
        "In the web project, file a high-priority issue 'Login redirect loops when session cookie "
        "expires' with repro steps, label it bug and auth, and assign it to Rafael."
    )
    dbdiff = {
        "tables": {
            "issues": {
                "inserted": [
                    {
                        "id": 4812,
                        "project_id": "prj_web",
                        "number": 128,
                        "title": new_issue["title"],
                        "priority": "high",
                        "state": "open",
                        "reporter_id": "u_42",
                        "assignee_id": None,
                    }
                ],
                "updated": [
                    {
                        "before": {"id": 4812, "assignee_id": None},
                        "after": {"id": 4812, "assignee_id": "u_17"},
                    }
                ],
                "deleted": [],
            },
            "issue_labels": {
                "inserted": [
                    {"issue_id": 4812, "label_id": "lbl_bug"},
                    {"issue_id": 4812, "label_id": "lbl_auth"},
                ],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "issue_tracker.zip",
        [
            (
                "task.json",
                task_json("rec_it_4812", start, site, instruction, [r_create, r_label, r_assign]),
            ),
            ("network.json", pretty({"version": 1, "requests": net.requests})),
            ("dbdiff.json", pretty(dbdiff)),
            ("screenshots/final.png", TINY_PNG),
        ],
    )


# ----------------------------------------------------------------------------- 2. shop


def shop() -> None:
    start = datetime(2026, 5, 7, 9, 12, 3, 500000, tzinfo=UTC)
    site = "https://shop.example.com"
    # Epoch-millisecond timestamps and name/value header lists: both valid echo variants.
    net = EchoNetwork(Clock(start), f"{site}/c/coffee", epoch=True, list_headers=True)
    web = {"cookie": SHOP_COOKIE, "accept": "application/json", "x-api-key": SHOP_API_KEY}
    product = {
        "id": "sku_7741",
        "name": "Ethiopia Yirgacheffe, whole bean 250 g",
        "price": {"amount": 1450, "currency": "EUR"},
        "stock": 38,
        "roast": "light",
    }
    catalogue = [
        product,
        {"id": "sku_7742", "name": "Colombia Huila 250 g", "price": {"amount": 1290, "currency": "EUR"}},
        {"id": "sku_7750", "name": "Decaf Brazil 500 g", "price": {"amount": 1990, "currency": "EUR"}},
        {"id": "sku_7760", "name": "Espresso blend 1 kg", "price": {"amount": 3200, "currency": "EUR"}},
    ]
    net.add(
        "GET",
        f"{site}/c/coffee",
        status=200,
        resource_type="document",
        req_headers={"cookie": SHOP_COOKIE, "accept": "text/html"},
        resp_headers={"content-type": "text/html"},
        resp_body="<!doctype html><title>Coffee – Shop</title><main id=app></main>",
    )
    net.add("GET", f"{site}/_next/static/chunks/main-8c1d.js", status=200, resource_type="script")
    net.add("GET", f"{site}/_next/static/css/4e2a.css", status=200, resource_type="stylesheet")
    net.add("GET", f"{site}/fonts/Recoleta-Medium.woff2", status=200, resource_type="font")
    net.add(
        "GET",
        "https://cdn.shop.example.com/img/products/sku_7741/w_640.webp",
        status=200,
        resource_type="image",
    )
    net.add(
        "GET",
        f"{site}/api/products?category=coffee&sort=popular",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body={"items": catalogue, "next": None},
    )
    net.add(
        "POST",
        "https://www.google-analytics.com/g/collect?v=2&tid=G-SHOP99&en=view_item_list",
        status=204,
        resource_type="ping",
    )
    net.add(
        "GET",
        f"{site}/api/products/sku_7741",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body=product,
        page=f"{site}/p/sku_7741",
        gap_ms=2100,
    )
    r_fail = net.add(
        "POST",
        f"{site}/api/cart/items",
        status=500,
        req_headers={**web, "content-type": "application/json"},
        req_body={"productId": "sku_7741", "quantity": 1},
        resp_headers=JSON_RESP,
        resp_body={"error": "internal", "message": "inventory service timeout", "traceId": "7f0c2a"},
        page=f"{site}/p/sku_7741",
        gap_ms=1800,
        duration_ms=3004,
    )
    net.add(
        "POST",
        f"{site}/_vercel/insights/event",
        status=200,
        req_headers={"content-type": "application/json"},
        req_body={"name": "add_to_cart_error", "path": "/p/sku_7741"},
        page=f"{site}/p/sku_7741",
        gap_ms=10,
    )
    cart_item = {"id": "ci_5521", "productId": "sku_7741", "quantity": 1, "unitPrice": 1450}
    r_add = net.add(
        "POST",
        f"{site}/api/cart/items",
        status=201,
        req_headers={**web, "content-type": "application/json"},
        req_body={"productId": "sku_7741", "quantity": 1},
        resp_headers=JSON_RESP,
        resp_body={"cartId": "cart_3307", "item": cart_item},
        page=f"{site}/p/sku_7741",
        gap_ms=1500,
    )
    net.add(
        "GET",
        f"{site}/api/cart",
        status=200,
        req_headers=web,
        resp_headers={**JSON_RESP, "etag": '"cart-3307-v8"'},
        resp_body={"id": "cart_3307", "items": [cart_item], "subtotal": 1450},
        page=f"{site}/cart",
        gap_ms=900,
    )
    r_qty = net.add(
        "PATCH",
        f"{site}/api/cart/items/ci_5521",
        status=200,
        req_headers={**web, "content-type": "application/json"},
        req_body={"quantity": 2},
        resp_headers=JSON_RESP,
        resp_body={"cartId": "cart_3307", "item": {**cart_item, "quantity": 2}},
        page=f"{site}/cart",
        gap_ms=1400,
    )
    net.add(
        "GET",
        f"{site}/api/cart",
        status=304,
        req_headers={**web, "if-none-match": '"cart-3307-v9"'},
        resp_headers={"etag": '"cart-3307-v9"'},
        page=f"{site}/cart",
    )
    net.add(
        "GET",
        f"{site}/api/shipping/options?country=DE",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body={"options": [{"id": "ship_dhl_std", "price": 490}, {"id": "ship_dhl_exp", "price": 990}]},
        page=f"{site}/checkout",
        gap_ms=1100,
    )
    order = {
        "id": "ord_90311",
        "cartId": "cart_3307",
        "status": "placed",
        "items": [{"productId": "sku_7741", "quantity": 2, "unitPrice": 1450}],
        "shipping": {"optionId": "ship_dhl_std", "price": 490},
        "total": {"amount": 3390, "currency": "EUR"},
    }
    r_order = net.add(
        "POST",
        f"{site}/api/orders",
        status=201,
        req_headers={**web, "content-type": "application/json", "idempotency-key": "c1e0f3b2-0d4e"},
        req_body={
            "cartId": "cart_3307",
            "shippingOptionId": "ship_dhl_std",
            "paymentMethodId": "pm_card_4242",
        },
        resp_headers=JSON_RESP,
        resp_body=order,
        page=f"{site}/checkout",
        gap_ms=4200,
        duration_ms=640,
    )
    net.add(
        "POST",
        "https://bat.bing.com/action/0?ti=5612345&evt=purchase&gv=33.90",
        status=204,
        resource_type="ping",
        page=f"{site}/checkout",
    )
    net.add(
        "GET",
        f"{site}/api/orders/ord_90311",
        status=200,
        req_headers=web,
        resp_headers=JSON_RESP,
        resp_body=order,
        page=f"{site}/order/ord_90311",
    )
    assert r_fail != r_add
    instruction = (
        "Add two bags of the Ethiopia Yirgacheffe (250 g) to the cart and check out with "
        "standard DHL shipping using the saved card."
    )
    dbdiff = {
        "tables": {
            "cart_items": {
                "inserted": [
                    {"id": "ci_5521", "cart_id": "cart_3307", "product_id": "sku_7741", "quantity": 2}
                ],
                "updated": [],
                "deleted": [],
            },
            "orders": {
                "inserted": [
                    {
                        "id": "ord_90311",
                        "cart_id": "cart_3307",
                        "status": "placed",
                        "total_cents": 3390,
                        "shipping_option": "ship_dhl_std",
                    }
                ],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "shop_checkout.zip",
        [
            ("task.json", task_json("rec_shop_90311", start, site, instruction, [r_add, r_qty, r_order])),
            ("network.json", pretty({"version": 1, "requests": net.requests})),
            ("dbdiff.json", pretty(dbdiff)),
        ],
        folder="shop-checkout-0507",
    )


# ----------------------------------------------------------------------------- MCP helpers


class EchoCalls:
    """Builds an echo `mcp_calls.json` call list with ids c1..cN."""

    def __init__(self, clock: Clock, server: str) -> None:
        self.clock = clock
        self.server = server
        self.calls: list[dict[str, Any]] = []

    def add(
        self,
        tool: str,
        arguments: dict[str, Any],
        structured: Any,
        *,
        text: str | None = None,
        is_error: bool = False,
        gap_ms: int = 400,
        duration_ms: int = 120,
    ) -> str:
        started = self.clock.tick(gap_ms)
        cid = f"c{len(self.calls) + 1}"
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": text if text is not None else jdump(structured)}],
            "isError": is_error,
        }
        if structured is not None:
            result["structuredContent"] = structured
        self.calls.append(
            {
                "id": cid,
                "server": self.server,
                "tool": tool,
                "arguments": arguments,
                "result": result,
                "startedAt": iso(started),
                "durationMs": duration_ms,
            }
        )
        return cid


def tool_spec(name: str, description: str, props: dict[str, str], required: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {k: {"type": v} for k, v in props.items()},
            "required": required,
        },
    }


def session_json(
    session_id: str, start: datetime, end: datetime, user: dict[str, Any], servers: list[dict[str, Any]]
) -> bytes:
    return pretty(
        {
            "sessionId": session_id,
            "startedAt": iso(start),
            "endedAt": iso(end),
            "user": user,
            "client": {"name": "echo-mcp-recorder", "version": "05061347"},
            "servers": servers,
        }
    )


# ----------------------------------------------------------------------------- 3. discord-like MCP


def discord() -> None:
    start = datetime(2026, 5, 6, 16, 2, 41, 250000, tzinfo=UTC)
    clock = Clock(start)
    calls = EchoCalls(clock, "discord")
    guild, chan, other = "1098234567890123456", "1101987654321098765", "1101987654321000042"
    maya_msg = "1237700112233445566"
    me = {"id": "880011223344556677", "username": "kim.dev", "globalName": "Kim"}
    history = [
        {
            "id": maya_msg,
            "channelId": chan,
            "author": {"id": "880099887766554433", "username": "maya"},
            "content": "Can someone pick up the hotfix for the login loop before Thursday's release?",
            "timestamp": "2026-05-06T15:58:02.118Z",
        },
        {
            "id": "1237699001122334455",
            "channelId": chan,
            "author": {"id": "880055443322110099", "username": "ravi"},
            "content": "RC2 is tagged, changelog in the doc.",
            "timestamp": "2026-05-06T15:40:11.500Z",
        },
        {
            "id": "1237698000000000001",
            "channelId": chan,
            "author": {"id": "880099887766554433", "username": "maya"},
            "content": "Release planning sync moved to 15:00.",
            "timestamp": "2026-05-06T14:02:47.002Z",
        },
    ]
    calls.add("discord_get_current_user", {}, me, gap_ms=0)
    calls.add("discord_update_presence", {"status": "online", "activity": None}, {"ok": True})
    calls.add(
        "discord_list_guilds",
        {},
        {
            "guilds": [
                {"id": guild, "name": "Acme Eng"},
                {"id": "1098230000000000001", "name": "Side project"},
            ]
        },
    )
    calls.add(
        "discord_list_channels",
        {"guildId": guild},
        {
            "channels": [
                {"id": chan, "name": "release-planning", "type": "text"},
                {"id": other, "name": "random", "type": "text"},
                {"id": "1101987654321000077", "name": "incidents", "type": "text"},
            ]
        },
    )
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": chan, "limit": 20},
        {"messages": history},
        duration_ms=210,
    )
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": other, "limit": 10},
        {
            "messages": [
                {
                    "id": "1237701000000000009",
                    "channelId": other,
                    "author": {"id": "880055443322110099", "username": "ravi"},
                    "content": "lunch?",
                }
            ]
        },
    )
    calls.add("discord_heartbeat", {"sequence": 42}, {"ack": True}, gap_ms=900, duration_ms=8)
    calls.add("discord_start_typing", {"channelId": chan}, {"ok": True}, gap_ms=1500, duration_ms=30)
    reply = {
        "id": "1237702555666777888",
        "channelId": chan,
        "guildId": guild,
        "author": {"id": me["id"], "username": me["username"]},
        "content": "On it, I'll ship the login-loop hotfix today.",
        "messageReference": {"messageId": maya_msg, "channelId": chan},
        "timestamp": "2026-05-06T16:02:49.112Z",
    }
    calls.add(
        "discord_send_message",
        {"guildId": guild, "channelId": chan, "content": reply["content"], "replyTo": maya_msg},
        reply,
        gap_ms=4200,
        duration_ms=180,
    )
    calls.add(
        "discord_get_unread_count",
        {"guildId": guild, "channelId": chan},
        {"channelId": chan, "unread": 3, "mentions": 1},
    )
    calls.add(
        "discord_mark_channel_read",
        {"guildId": guild, "channelId": chan, "messageId": reply["id"]},
        {"ok": True, "channelId": chan, "lastReadMessageId": reply["id"]},
        gap_ms=1100,
    )
    calls.add("discord_heartbeat", {"sequence": 43}, {"ack": True}, gap_ms=300, duration_ms=7)
    calls.add(
        "discord_list_messages",
        {"guildId": guild, "channelId": chan, "limit": 5},
        {"messages": [reply, *history][:5]},
    )
    end = clock.tick(500)
    tools = [
        tool_spec("discord_get_current_user", "The logged-in user.", {}, []),
        tool_spec("discord_update_presence", "Set presence status.", {"status": "string"}, ["status"]),
        tool_spec("discord_heartbeat", "Gateway heartbeat.", {"sequence": "integer"}, []),
        tool_spec("discord_list_guilds", "Guilds the user is in.", {}, []),
        tool_spec("discord_list_channels", "Channels of a guild.", {"guildId": "string"}, ["guildId"]),
        tool_spec(
            "discord_list_messages",
            "Latest messages of a channel.",
            {"guildId": "string", "channelId": "string", "limit": "integer"},
            ["channelId"],
        ),
        tool_spec(
            "discord_start_typing", "Show the typing indicator.", {"channelId": "string"}, ["channelId"]
        ),
        tool_spec(
            "discord_send_message",
            "Send a message, optionally as a reply.",
            {"guildId": "string", "channelId": "string", "content": "string", "replyTo": "string"},
            ["channelId", "content"],
        ),
        tool_spec(
            "discord_get_unread_count",
            "Unread messages in a channel.",
            {"guildId": "string", "channelId": "string"},
            ["channelId"],
        ),
        tool_spec(
            "discord_mark_channel_read",
            "Mark a channel read up to a message.",
            {"guildId": "string", "channelId": "string", "messageId": "string"},
            ["channelId"],
        ),
    ]
    instruction = (
        "In Acme Eng's #release-planning, reply to Maya's latest message saying you'll ship the "
        "login-loop hotfix today, then mark the channel as read."
    )
    dbdiff = {
        "tables": {
            "messages": {
                "inserted": [
                    {
                        "id": reply["id"],
                        "channel_id": chan,
                        "author_id": me["id"],
                        "content": reply["content"],
                        "reply_to": maya_msg,
                    }
                ],
                "updated": [],
                "deleted": [],
            },
            "read_states": {
                "inserted": [],
                "updated": [
                    {
                        "before": {"channel_id": chan, "user_id": me["id"], "mention_count": 1, "unread": 3},
                        "after": {
                            "channel_id": chan,
                            "user_id": me["id"],
                            "mention_count": 0,
                            "unread": 0,
                            "last_read_id": reply["id"],
                        },
                    }
                ],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "discord_reply.zip",
        [
            ("task.json", task_json("rec_dc_7888", start, "mcp://discord", instruction, ["c9", "c11"])),
            ("mcp_calls.json", pretty({"version": 1, "calls": calls.calls})),
            (
                "session.json",
                session_json(
                    "s_dc_41",
                    start,
                    end,
                    {"id": me["id"], "name": me["username"]},
                    [{"name": "discord", "version": "1.4.0", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
    )


# ----------------------------------------------------------------------------- 4. slack-like MCP


def slack() -> None:
    start = datetime(2026, 5, 8, 2, 14, 9, 0, tzinfo=UTC)
    clock = Clock(start)
    calls = EchoCalls(clock, "slack")
    team, me = "T04ACME01", "U04KIM0001"
    dana, lee = "U04DANA002", "U04LEE0003"
    new_chan = "C07INC22910"
    calls.add(
        "slack_auth_test",
        {},
        {
            "ok": True,
            "url": "https://acme.slack.example/",
            "team": "Acme",
            "user": "kim",
            "team_id": team,
            "user_id": me,
        },
        gap_ms=0,
    )
    calls.add("slack_whoami", {}, {"id": me, "name": "kim", "tz": "Europe/Berlin"})
    calls.add("slack_get_presence", {"user": me}, {"presence": "active", "online": True})
    calls.add(
        "slack_list_users",
        {"query": "dana"},
        {"members": [{"id": dana, "name": "dana", "real_name": "Dana Whitfield"}]},
    )
    calls.add(
        "slack_list_users",
        {"query": "lee"},
        {"members": [{"id": lee, "name": "lee", "real_name": "Lee Okafor"}]},
    )
    channel = {
        "id": new_chan,
        "name": "incident-2291",
        "is_private": True,
        "created": 1778206455,
        "creator": me,
        "topic": {"value": "Checkout 5xx spike, 2026-05-08"},
    }
    c_create = calls.add(
        "slack_create_channel",
        {"name": "incident-2291", "is_private": True, "topic": "Checkout 5xx spike, 2026-05-08"},
        {"ok": True, "channel": channel},
        gap_ms=3100,
    )
    calls.add(
        "slack_list_channels",
        {"types": "private_channel", "limit": 50},
        {"channels": [channel, {"id": "C05OPS00001", "name": "ops-private", "is_private": True}]},
    )
    c_invite = calls.add(
        "slack_invite_to_channel",
        {"channel": new_chan, "users": [dana, lee]},
        {"ok": True, "channel": {**channel, "num_members": 3}},
        gap_ms=2300,
    )
    calls.add("slack_get_presence", {"user": dana}, {"presence": "away", "online": False})
    summary = (
        ":rotating_light: Incident 2291: checkout returns 5xx for ~8% of requests since 01:52 UTC. "
        "Suspect: inventory service timeouts after the 01:45 deploy. Dana on rollback, Lee on comms."
    )
    c_post = calls.add(
        "slack_post_message",
        {"channel": new_chan, "text": summary, "unfurl_links": False},
        {
            "ok": True,
            "channel": new_chan,
            "ts": "1778206481.000200",
            "message": {"user": me, "text": summary, "ts": "1778206481.000200"},
        },
        gap_ms=5200,
    )
    end = clock.tick(800)
    names = [
        ("slack_auth_test", "Check the token and return the identity.", {}),
        ("slack_whoami", "The current user.", {}),
        ("slack_get_presence", "A user's presence.", {"user": "string"}),
        ("slack_list_users", "Search workspace members.", {"query": "string"}),
        (
            "slack_create_channel",
            "Create a channel.",
            {"name": "string", "is_private": "boolean", "topic": "string"},
        ),
        ("slack_list_channels", "List channels.", {"types": "string", "limit": "integer"}),
        ("slack_invite_to_channel", "Invite users to a channel.", {"channel": "string", "users": "array"}),
        ("slack_post_message", "Post a message.", {"channel": "string", "text": "string"}),
    ]
    tools = [tool_spec(n, d, p, list(p)[:1]) for n, d, p in names]
    instruction = (
        "Create a private Slack channel #incident-2291 with the topic 'Checkout 5xx spike, 2026-05-08', "
        "invite Dana and Lee, and post the incident summary in it."
    )
    dbdiff = {
        "tables": {
            "channels": {
                "inserted": [{"id": new_chan, "name": "incident-2291", "is_private": True, "creator_id": me}],
                "updated": [],
                "deleted": [],
            },
            "channel_members": {
                "inserted": [
                    {"channel_id": new_chan, "user_id": me},
                    {"channel_id": new_chan, "user_id": dana},
                    {"channel_id": new_chan, "user_id": lee},
                ],
                "updated": [],
                "deleted": [],
            },
            "messages": {
                "inserted": [
                    {"ts": "1778206481.000200", "channel_id": new_chan, "user_id": me, "text": summary}
                ],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "slack_incident_channel.zip",
        [
            (
                "task.json",
                task_json("rec_sl_2291", start, "mcp://slack", instruction, [c_create, c_invite, c_post]),
            ),
            ("mcp_calls.json", pretty({"version": 1, "calls": calls.calls})),
            (
                "session.json",
                session_json(
                    "s_sl_77",
                    start,
                    end,
                    {"id": me, "name": "kim"},
                    [{"name": "slack", "version": "2.1.3", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
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
    (OUT / "project_board.har").write_bytes(pretty(har))


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
    instruction = (
        "On the Ops board, add a 'Renew the status-page domain' card to To do, then move it to Done."
    )
    write_zip(
        OUT / "project_board_firefox.zip",
        [
            ("task.json", task_json("rec_pb_884", start, site, instruction, ["2", "3"])),
            ("capture.har", pretty(har)),
        ],
    )


# ----------------------------------------------------------------------------- 6. JSON-RPC log MCP


def notes_jsonrpc() -> None:
    start = datetime(2026, 5, 9, 7, 5, 0, 0, tzinfo=UTC)
    clock = Clock(start)
    lines: list[dict[str, Any]] = []

    def send(msg: dict[str, Any], gap: int = 30) -> None:
        lines.append({"direction": "send", "timestamp": epoch_ms(clock.tick(gap)), "message": msg})

    def recv(msg: dict[str, Any], gap: int = 60) -> None:
        lines.append({"direction": "recv", "timestamp": epoch_ms(clock.tick(gap)), "message": msg})

    def call(rid: int | str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }

    def ok(rid: int | str, structured: Any) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "content": [{"type": "text", "text": jdump(structured)}],
                "structuredContent": structured,
                "isError": False,
            },
        }

    tools = [
        tool_spec("notes_list", "List notes in a folder.", {"folder": "string", "limit": "integer"}, []),
        tool_spec(
            "notes_create",
            "Create a note.",
            {"title": "string", "body": "string", "folder": "string"},
            ["title"],
        ),
        tool_spec("notes_add_tag", "Tag a note.", {"noteId": "string", "tag": "string"}, ["noteId", "tag"]),
        tool_spec(
            "notes_share",
            "Share a note.",
            {"noteId": "string", "email": "string", "permission": "string"},
            ["noteId", "email"],
        ),
        tool_spec("notes_sync_status", "Sync state of the local cache.", {}, []),
    ]
    send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "echo-mcp-recorder", "version": "05061347"},
            },
        },
        gap=0,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": True}, "logging": {}},
                "serverInfo": {"name": "notes", "version": "0.9.2"},
            },
        }
    )
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    recv({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})
    send(call(2, "notes_list", {"folder": "inbox", "limit": 20}), gap=2500)
    recv(ok(2, {"notes": [{"id": "n_301", "title": "Groceries"}, {"id": "n_298", "title": "Q2 retro"}]}))
    note = {
        "id": "n_318",
        "title": "Q3 planning: goals",
        "folder": "work",
        "body": "1. Ship offline mode\n2. Cut p95 sync latency to 300 ms\n3. Hire two engineers",
    }
    send(
        call("call-3", "notes_create", {"title": note["title"], "body": note["body"], "folder": "work"}),
        gap=6000,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "logger": "notes", "data": "note n_318 written to disk"},
        },
        gap=40,
    )
    recv(ok("call-3", note), gap=20)
    send(call(4, "notes_add_tag", {"noteId": "n_318", "tag": "Q3 planning"}), gap=3000)
    recv(
        {
            "jsonrpc": "2.0",
            "id": 4,
            "error": {
                "code": -32602,
                "message": "invalid tag: spaces are not allowed",
                "data": {"field": "tag"},
            },
        }
    )
    send(call(5, "notes_add_tag", {"noteId": "n_318", "tag": "q3-planning"}), gap=2200)
    recv(ok(5, {"noteId": "n_318", "tags": ["q3-planning"]}))
    send({"jsonrpc": "2.0", "id": 6, "method": "ping"}, gap=500)
    recv({"jsonrpc": "2.0", "id": 6, "result": {}}, gap=5)
    send(
        call(
            "call-7", "notes_share", {"noteId": "n_318", "email": "ines@acme.example", "permission": "edit"}
        ),
        gap=4100,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "call-7", "progress": 1, "total": 2},
        },
        gap=100,
    )
    recv(
        ok(
            "call-7",
            {
                "noteId": "n_318",
                "sharedWith": [{"email": "ines@acme.example", "permission": "edit"}],
                "shareId": "sh_5120",
            },
        ),
        gap=200,
    )
    recv({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, gap=900)
    # Sent while the recorder was stopping: its response never arrived (an unanswered call).
    send(call(8, "notes_sync_status", {}), gap=300)
    end = clock.tick(50)

    jsonl = "".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n" for line in lines)
    instruction = (
        "Create a 'Q3 planning: goals' note in the work folder listing the three Q3 goals, tag it "
        "q3-planning and share it with ines@acme.example with edit rights."
    )
    dbdiff = {
        "tables": {
            "notes": {
                "inserted": [{"id": "n_318", "folder": "work", "title": note["title"]}],
                "updated": [],
                "deleted": [],
            },
            "note_tags": {
                "inserted": [{"note_id": "n_318", "tag": "q3-planning"}],
                "updated": [],
                "deleted": [],
            },
            "note_shares": {
                "inserted": [
                    {"id": "sh_5120", "note_id": "n_318", "email": "ines@acme.example", "permission": "edit"}
                ],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "notes_jsonrpc.zip",
        [
            (
                "task.json",
                task_json("rec_nt_318", start, "mcp://notes", instruction, ["call-3", "5", "call-7"]),
            ),
            ("mcp_calls.json", jsonl.encode("utf-8")),
            (
                "session.json",
                session_json(
                    "s_nt_9",
                    start,
                    end,
                    {"id": "u_42", "name": "kim"},
                    [{"name": "notes", "version": "0.9.2", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
    )


BUILDERS: list[Callable[[], None]] = [
    issue_tracker,
    shop,
    discord,
    slack,
    board_chrome_har,
    board_firefox_zip,
    notes_jsonrpc,
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for build in BUILDERS:
        build()
    for path in sorted(OUT.iterdir()):
        sys.stdout.write(f"{path.name}\t{path.stat().st_size} bytes\n")


if __name__ == "__main__":
    main()
