"""The review-only dashboard (`streamlit run dashboards/review.py`, docs/dashboard.md: nothing can
be started from it) in headless Chromium: every page opened by its URL and reloaded shows its
page, and the console stays clean (no 404 while the page finds its server: `chromium_page`
fails the test on any HTTP error answer)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboards.navigation import page_paths
from rlauto_core.store.storage import FsspecStorage
from tests.conftest import REPO_ROOT
from tests.dashboards.browser import chromium_page
from tests.servers import free_port, stop_process, wait_http

# each page by its URL, and what it shows once it has run
PAGES = {
    "": "Tokens spent",
    "items": "6 items match",
    "item?job=job-a&item=it-pass": "Item it-pass",
    "upload": "Upload recordings",
    "polish": "Polish",
    "agent": "Agent",
    "experience": "Experience",
    "actions": "Actions",
    "designer": "Designer",
    "evals": "Evals",
}


@pytest.fixture
def review_only_url(filled_storage: FsspecStorage, tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    env["RLAUTO_STORAGE_URL"] = filled_storage.url
    with (tmp_path / "review-only.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(REPO_ROOT / "dashboards" / "review.py"),
             "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
             "--browser.gatherUsageStats", "false"],
            env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=90, proc=proc)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_process(proc)


@pytest.mark.slow
def test_every_page_of_the_review_only_dashboard_survives_a_reload_in_chromium(
    review_only_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    assert sorted(p for p in PAGES if p and "?" not in p) == sorted(p for p in page_paths() if p != "item")
    with chromium_page() as page:
        for path, shown in PAGES.items():
            page.goto(f"{review_only_url}/{path}")
            expect(page.get_by_text(shown).first).to_be_visible()
            page.reload()
            expect(page.get_by_text(shown).first).to_be_visible()
            page.wait_for_load_state("networkidle")
            expect(page).to_have_url(f"{review_only_url}/{path}")
        page.screenshot(path=str(tmp_path / "designer-reloaded.png"))
