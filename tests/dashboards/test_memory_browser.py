"""A real browser on `rlauto dashboard`: headless Chromium deletes a recipe the audit suggested
(only after Confirm delete) and confirms the designer's draft into a step task."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from rlauto_core.agent.designer import Draft, DraftStore
from rlauto_core.memory import ExperienceLibrary
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import served_dashboard
from tests.dashboards.browser import chromium_page
from tests.dashboards.conftest import CANARY_API_KEY

STEPS = [{"kind": "app_start", "package": "com.example.notes"}, {"kind": "click", "selector": {"text": "New note"}}]


@pytest.fixture
def memory_dashboard(storage: FsspecStorage, tmp_path: Path) -> Iterator[str]:
    library = ExperienceLibrary(storage)
    vague = library.add(
        "Take a photo", "Photo somehow", f"1. Open the camera somehow and do the photo ({CANARY_API_KEY})."
    )
    library.record_rating(vague.id, "delete", 1, "vague: names no element", "agent")
    DraftStore(storage).keep(
        Draft(run_id="design-9", instruction="Write the standup note", name="Write a note", steps=STEPS)
    )
    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    with served_dashboard(storage.url, tmp_path / "dashboard.log", env) as url:
        yield url


@pytest.mark.slow
def test_a_person_deletes_a_suggested_recipe_and_confirms_a_draft_in_chromium(
    memory_dashboard: str, storage: FsspecStorage, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    library = ExperienceLibrary(storage)
    [recipe] = library.all()
    with chromium_page(1400, 1000) as page:
        page.goto(memory_dashboard)
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_text("Experience", exact=True).click()
        expect(page.get_by_text("The audit suggests deleting it (score 1/10): vague: names no element")).to_be_visible()
        page.get_by_label("Your name (recorded with a keep or a delete)").fill("Chromium Person")
        page.get_by_label("Your name (recorded with a keep or a delete)").press("Enter")
        page.get_by_role("button", name="Delete", exact=True).click()
        expect(page.get_by_role("button", name="Confirm delete")).to_be_visible()
        assert library.get(recipe.id) is not None  # asked, not deleted
        experience_page = page.content()
        page.get_by_role("button", name="Confirm delete").click()
        expect(page.get_by_text("Deleted: Photo somehow")).to_be_visible()
        page.screenshot(path=str(tmp_path / "experience.png"), full_page=True)
        sidebar.get_by_text("Designer", exact=True).click()
        expect(page.get_by_text("Latest draft")).to_be_visible()
        page.get_by_label("Your name (recorded with the confirmation)").fill("Chromium Person")
        page.get_by_label("Your name (recorded with the confirmation)").press("Enter")
        page.get_by_role("button", name="Confirm as a step task").click()
        expect(page.get_by_text("Confirmed: task")).to_be_visible()
        page.screenshot(path=str(tmp_path / "designer.png"), full_page=True)
        designer_page = page.content()
    assert library.get(recipe.id) is None
    [task] = DraftStore(storage).all_tasks()
    assert (task.steps, task.confirmed_by) == (STEPS, "Chromium Person")
    for body in (experience_page, designer_page):
        assert "CANARY-APIKEY" not in body
    assert "[REDACTED]" in experience_page
