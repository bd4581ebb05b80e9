"""A real browser: `rlauto dashboard` on loopback, headless Chromium opens an item by selecting
its row and reviews it; Back returns to the filtered Items page; links open an item; the new
pages are photographed. Every test here fails on a browser console problem
(`tests/dashboards/browser.py`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dashboards.navigation import page_paths
from dashboards.repository import Repository
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import served_dashboard
from tests.dashboards.browser import chromium_page
from tests.dashboards.index_builder import BASE_TIME, ItemSpec, write_item

ROW_HEIGHT = 35  # Streamlit's data grid rows, header included


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
    from playwright.sync_api import expect

    with chromium_page() as page:
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
    from playwright.sync_api import expect

    shots = Path(os.environ.get("RLAUTO_SCREENSHOTS") or tmp_path)
    with chromium_page(1280, 1120) as page:
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
        # a package that left a recorded write out with no rule: the reviewer sees which, and why
        page.goto(f"{dashboard_url}/item?job=job-a&item=it-zero")
        expect(page.get_by_text("Recorded writes covered")).to_be_visible()
        expect(page.get_by_text("rm2 keeps its points: r19 aimed at channelId C02")).to_be_visible()
        page.get_by_text("Self-check").evaluate("e => e.scrollIntoView({block: 'start'})")
        page.wait_for_timeout(800)
        page.screenshot(path=str(shots / "item-writes.png"))
    for name in ("overview.png", "item.png", "item-writes.png"):
        assert (shots / name).stat().st_size > 10_000


@pytest.fixture
def bulk_dashboard_url(filled_storage: FsspecStorage, tmp_path: Path) -> Iterator[str]:
    """The sample index plus 30 items of job-c (two pages of 25 once filtered to them)."""
    for n in range(30):
        write_item(filled_storage, ItemSpec("job-c", f"bulk-{n:02d}", f"bulk item {n:02d}",
                                            finished_at=BASE_TIME + timedelta(hours=1, minutes=n)))  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    with served_dashboard(filled_storage.url, tmp_path / "dashboard.log", env) as url:
        yield url


@pytest.mark.slow
def test_back_from_an_item_returns_to_the_filtered_page_in_chromium(bulk_dashboard_url: str) -> None:
    from playwright.sync_api import expect

    with chromium_page() as page:
        page.goto(f"{bulk_dashboard_url}/items")
        expect(page.get_by_text("36 items match · page 1 of 2")).to_be_visible()
        page.get_by_text("Filters", exact=True).click()
        search = page.get_by_label("Search in instruction")
        search.fill("bulk")
        search.press("Enter")
        expect(page.get_by_text("30 items match · page 1 of 2")).to_be_visible()
        number = page.get_by_label("Page", exact=True)
        number.fill("2")
        number.press("Enter")
        expect(page.get_by_text("30 items match · page 2 of 2")).to_be_visible()
        select_first_row(page)  # newest first: page 2 starts at bulk-04
        expect(page.get_by_role("heading", name="Item bulk-04")).to_be_visible()
        page.go_back()
        expect(page.get_by_text("30 items match · page 2 of 2")).to_be_visible()
        expect(page.get_by_label("Page", exact=True)).to_have_value("2")
        page.get_by_text("Filters", exact=True).click()
        expect(page.get_by_label("Search in instruction")).to_have_value("bulk")
        select_first_row(page)
        expect(page.get_by_role("heading", name="Item bulk-04")).to_be_visible()
        page.get_by_role("button", name="All items").click()  # the page's own way back keeps them too
        expect(page.get_by_text("30 items match · page 2 of 2")).to_be_visible()


@pytest.mark.slow
def test_every_page_opened_by_its_url_leaves_the_console_clean_in_chromium(dashboard_url: str) -> None:
    """Each page loaded afresh (a link, a reload): no 404 while the page finds its server, no
    favicon fetched from a font CDN, nothing asked of any host but this one (`chromium_page`
    fails the test on any of these)."""
    from playwright.sync_api import expect

    with chromium_page() as page:
        for url_path in ["", *page_paths()]:  # "": the default page (Overview)
            query = "?job=job-a&item=it-pass" if url_path == "item" else ""
            page.goto(f"{dashboard_url}/{url_path}{query}")
            expect(page.get_by_role("button", name="Reload index")).to_be_visible()
            page.wait_for_load_state("networkidle")
            expect(page).to_have_url(f"{dashboard_url}/{url_path}{query}")
