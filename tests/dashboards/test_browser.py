"""A real browser: `rlauto dashboard` on loopback, headless Chromium opens an item by selecting
its row and reviews it; links open an item; the new pages are photographed."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import served_dashboard

CHROMIUM = "/usr/bin/chromium"
ROW_HEIGHT = 35  # Streamlit's data grid rows, header included
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def dashboard_url(filled_storage: FsspecStorage, tmp_path: Path) -> Iterator[str]:
    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    with served_dashboard(filled_storage.url, tmp_path / "dashboard.log", env) as url:
        yield url


def select_first_row(page: Any) -> None:
    """Click the first row's selection cell of the items table (a canvas grid: by position)."""
    from playwright.sync_api import expect

    grid = page.locator('[data-testid="stDataFrame"]').first
    expect(grid).to_be_visible()
    page.wait_for_timeout(500)  # the grid draws its rows after it appears
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT * 1.5)  # below the header row, in the marker column


@pytest.mark.slow
def test_a_reviewer_opens_an_item_and_submits_a_review_in_chromium(
    dashboard_url: str, filled_storage: FsspecStorage, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            expect.set_options(timeout=60_000)  # a loaded 2-core machine renders slowly
            page.goto(dashboard_url)
            expect(page.get_by_text("Tokens spent")).to_be_visible()
            page.locator('[data-testid="stSidebar"]').get_by_text("Items", exact=True).click()
            expect(page.get_by_text("6 items match")).to_be_visible()
            assert page.get_by_role("button", name="Open item").count() == 0  # the row is the way in
            select_first_row(page)  # newest first: it-canary
            expect(page.get_by_role("heading", name="Item it-canary")).to_be_visible()
            expect(page.get_by_text("rename the board 'Q3 plan' to 'Q4 plan'").first).to_be_visible()
            assert page.url == f"{dashboard_url}/item?job=job-b&item=it-canary"  # a link to share
            page.screenshot(path=str(tmp_path / "item.png"))
            page.get_by_role("tab", name="Review").click()
            page.get_by_text("reject", exact=True).click()
            page.get_by_label("Reviewer").fill("Chromium Reviewer")
            page.get_by_label("Comment").fill("checker for rubric 2 is too loose")
            page.get_by_role("button", name="Submit review").click()
            expect(page.get_by_text("Recorded: reject by Chromium Reviewer")).to_be_visible()
            page.screenshot(path=str(tmp_path / "review.png"), full_page=True)
            body = page.content()
        finally:
            browser.close()
    for canary in ("CANARY-AUTH", "CANARY-COOKIE", "CANARY-APIKEY"):
        assert canary not in body
    item = Repository(filled_storage.url, refresh_seconds=0).get_item("job-b", "it-canary")
    assert item is not None
    assert (item.decision, item.reviewer, item.review_comment) == (
        "reject",
        "Chromium Reviewer",
        "checker for rubric 2 is too loose",
    )
    assert (tmp_path / "review.png").stat().st_size > 10_000


@pytest.mark.slow
def test_links_open_an_item_and_the_pages_are_photographed_in_chromium(dashboard_url: str, tmp_path: Path) -> None:
    """`/item?job=...&item=...` and the older `/?job=...&item=...` open the item; the overview and
    the item's judge loop are photographed (into RLAUTO_SCREENSHOTS when set: docs/img is made so)."""
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("RLAUTO_SCREENSHOTS") or tmp_path)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1120})
            page.set_default_timeout(60_000)
            expect.set_options(timeout=60_000)
            page.goto(dashboard_url)
            expect(page.get_by_text("Best total score per item, by job")).to_be_visible()  # the chart's title
            expect(page.locator('[data-testid="stVegaLiteChart"]')).to_have_count(2)
            page.wait_for_timeout(1500)  # the charts animate in
            page.screenshot(path=str(shots / "overview.png"))
            page.goto(f"{dashboard_url}/item?job=job-a&item=it-pass")
            expect(page.get_by_role("heading", name="Item it-pass")).to_be_visible()
            page.get_by_role("tab", name="Judge loop").click()
            expect(page.get_by_text("Judge dimensions per iteration")).to_be_visible()
            page.wait_for_timeout(1500)
            page.screenshot(path=str(shots / "item.png"))
            page.get_by_role("tab", name="Compare iterations").click()
            expect(page.get_by_text("differences from iteration 1 to 2")).to_be_visible()
            page.goto(f"{dashboard_url}/?job=job-b&item=it-unicode")
            expect(page.get_by_role("heading", name="Item it-unicode")).to_be_visible()
            expect(page).to_have_url(f"{dashboard_url}/item?job=job-b&item=it-unicode")
        finally:
            browser.close()
    for name in ("overview.png", "item.png"):
        assert (shots / name).stat().st_size > 10_000
