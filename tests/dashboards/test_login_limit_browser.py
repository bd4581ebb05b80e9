"""In a real browser against `rlauto dashboard`: five wrong passwords start a wait, a page
reload keeps it (the same client, a new session in the same server process), and during the
wait even the right password does not sign in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import served_dashboard
from tests.dashboards.browser import chromium_page

PASSWORD = "correct horse battery"


@pytest.fixture
def guarded_dashboard(filled_storage: FsspecStorage, tmp_path: Path) -> Iterator[str]:
    env = {**os.environ, "RLAUTO_DASHBOARD_PASSWORD": PASSWORD, "RLAUTO_DASHBOARD_LOGIN_WAIT": "60"}
    with served_dashboard(filled_storage.url, tmp_path / "dashboard.log", env) as url:
        yield url


def _sign_in(page: Any, password: str) -> None:
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()
    # the next attempt only once this one's script run ended (the status widget is gone)
    page.wait_for_timeout(300)
    running = page.get_by_test_id("stStatusWidget")
    if running.count():
        running.wait_for(state="detached", timeout=60_000)


@pytest.mark.slow
def test_the_wait_survives_a_reload_in_chromium(guarded_dashboard: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    with chromium_page(1200, 900) as page:
        page.goto(guarded_dashboard)
        for attempt in range(5):
            _sign_in(page, f"guess-{attempt}")
            expect(page.get_by_text("Wrong password.")).to_be_visible()
        expect(page.get_by_text("Too many wrong passwords")).to_be_visible()
        expect(page.get_by_text("wait 60 s")).to_be_visible()
        page.reload()
        expect(page.get_by_text("Too many wrong passwords")).to_be_visible()
        _sign_in(page, PASSWORD)
        expect(page.get_by_text("Too many wrong passwords")).to_be_visible()
        page.screenshot(path=str(tmp_path / "locked.png"))
        assert page.get_by_text("Tokens spent").count() == 0, "signed in during the wait"
