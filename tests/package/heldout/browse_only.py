"""A browse-only session with no instruction (bare HAR): report lists read, table density and a
dashboard layout saved, a product-analytics batch to another host. Nothing here is a task."""

from __future__ import annotations

import json

from tests.package.corpus_kit import HttpLog, clock, har_document

SITE = "https://bi.quarterly.example"


def build() -> bytes:
    log = HttpLog(clock(2026, 5, 17, 12, 0), f"{SITE}/reports", prefix="r")
    log.call("GET", f"{SITE}/reports", status=200, resource_type="document", response="<!doctype html>",
             response_headers={"content-type": "text/html"})  # fmt: skip
    log.call("GET", f"{SITE}/api/reports?folder=finance&sort=-updated", status=200,
             response={"reports": [{"id": "rep_410", "title": "Q2 revenue"}, {"id": "rep_398", "title": "Churn"}]})  # fmt: skip
    log.call("PATCH", f"{SITE}/api/users/me/preferences", status=200,
             body={"table": {"density": "compact", "pageSize": 50}},
             response={"table": {"density": "compact", "pageSize": 50}})  # fmt: skip
    log.call("GET", f"{SITE}/api/reports/rep_410", status=200,
             response={"id": "rep_410", "title": "Q2 revenue", "widgets": [{"id": "w_1"}, {"id": "w_2"}]})  # fmt: skip
    log.call("PUT", f"{SITE}/api/dashboards/rep_410/layout", status=200,
             body={"layout": [{"i": "w_1", "x": 0, "y": 0, "w": 6, "h": 4}, {"i": "w_2", "x": 6, "y": 0, "w": 6, "h": 4}]},
             response={"ok": True})  # fmt: skip
    log.call("POST", "https://events.productlens.example/batch", status=200,
             body={"batch": [{"event": "report_opened", "id": "rep_410"}]}, response={"success": True})  # fmt: skip
    return (json.dumps(har_document(log.requests), indent=1) + "\n").encode("utf-8")
