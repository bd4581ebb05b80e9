"""Issue tracker (echo network.json at the ZIP root): create an issue, label it, assign it."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from builders.kit import (
    JSON_RESP,
    OUT,
    TINY_PNG,
    TRACKER_ACCESS_TOKEN,
    TRACKER_BEARER,
    TRACKER_COOKIE,
    Clock,
    EchoNetwork,
    pretty,
    task_json,
    write_zip,
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
