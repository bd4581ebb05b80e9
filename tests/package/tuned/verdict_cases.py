"""Recordings that must not become packages: nothing in them is a task."""

from __future__ import annotations

from tests.package.corpus_kit import HttpLog, api_files, clock, task_doc, zip_files

SITE = "https://ops.parcelpoint.example"


def grid_save_only() -> bytes:
    """The "create save." case: no instruction, rows read, the grid's column state saved."""
    log = HttpLog(clock(2026, 5, 9, 14, 0), f"{SITE}/orders", prefix="r")
    log.call("GET", f"{SITE}/api/orders?status=packed", status=200, response={"rows": [{"id": 4411}, {"id": 4412}]})
    log.call("POST", f"{SITE}/api/grid/save", status=200,
             body={"grid": "orders", "columns": ["id", "customer", "status"]}, response={"ok": True})  # fmt: skip
    return zip_files(api_files(task_doc("", SITE, "rec_grid_save"), log, None))


def lookup_without_instruction() -> bytes:
    """Only reads, and no instruction saying what to report."""
    log = HttpLog(clock(2026, 5, 9, 15, 0), f"{SITE}/orders", prefix="r")
    log.call("GET", f"{SITE}/api/orders/4411", status=200, response={"id": 4411, "status": "packed"})
    log.call("GET", f"{SITE}/api/orders/4411/events", status=200, response={"events": [{"type": "packed"}]})
    return zip_files(api_files(task_doc("", SITE, "rec_lookup_bare"), log, None))
