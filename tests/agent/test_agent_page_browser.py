"""The Agent page in headless Chromium, all parts real: `rlauto dashboard` with its Prefect agent
launcher, the served `run-agent` deployment, the demo phone's notes app and the fake model.
A person picks the free phone (the busy one is disabled), sends an instruction, watches step
cards with thumbnails, reloads without losing or doubling a card, hands a takeover back with
a note, and sees the run complete; no key on the page."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prefect import flow

from device_flows.demo import NotesApp
from device_flows.slot import phone_slot
from rlauto_core.agent.events import ToolCalled
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import in_thread, run_events, wait_for
from tests.agent.scripts import WRITE_NOTE, call, texts_of, turn
from tests.agent.served import served_run_agent
from tests.agent.test_flow_run import CANARY
from tests.fakes.llm_server import FakeLlmServer
from tests.servers import free_port, stop_process, wait_http

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip
OTHER = "fake-2"
RELEASE = threading.Event()


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp(needs_login=True)


@flow(name="hold-other-phone")
def hold_other_phone() -> None:
    with phone_slot(OTHER):
        RELEASE.wait(600)


@pytest.fixture
def dashboard(
    prefect_api_url: str,
    fake_llm: FakeLlmServer,
    demo_adb: Any,
    storage: FsspecStorage,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> Iterator[str]:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.setenv("AGENT_MODEL", "agent")
    monkeypatch.delenv("RLAUTO_DASHBOARD_PASSWORD", raising=False)
    with served_run_agent(tmp_path / "runner.log") as env:
        port = free_port()
        log = (tmp_path / "dashboard.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, "-c", "from flows.cli import main; main()", "dashboard", "--port", str(port),
             "--storage", storage.url],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            wait_http(f"http://127.0.0.1:{port}/_stcore/health", timeout=120, proc=proc)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop_process(proc)
            log.close()


def _cards(page: Any) -> list[str]:
    """The step cards on the page, by their event's sequence number (a duplicate shows twice)."""
    classes = page.locator("[class*='st-key-agent-card-']").evaluate_all("els => els.map(e => e.className)")
    return [m.group(1) for c in classes for m in [re.search(r"st-key-agent-card-(\d+)", c)] if m]


def test_the_agent_page_runs_a_task_with_a_takeover_in_chromium(
    dashboard: str, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    RELEASE.clear()
    holder, held = in_thread(hold_other_phone)
    fake_llm.script(
        "agent",
        turn(call("app_start", package="com.example.notes")),
        turn(call("screenshot"), call("request_takeover", reason="login", message="Please sign in to Notes")),
        *WRITE_NOTE[1:],
    )
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1500, "height": 1100})
                page.set_default_timeout(90_000)
                expect.set_options(timeout=90_000)  # a loaded 2-core machine renders slowly
                page.goto(dashboard)
                page.locator('[data-testid="stSidebar"]').get_by_text("Agent", exact=True).click()
                expect(page.get_by_role("button", name=re.compile(rf"^{SERIAL}( |$)"))).to_be_enabled()
                wait_for(lambda: held.get("error") is None and _other_busy(page), timeout=90, out=held)
                expect(page.get_by_role("button", name=re.compile(rf"^{OTHER}( |$)"))).to_be_disabled()

                page.get_by_role("button", name=re.compile(rf"^{SERIAL}( |$)")).click()
                expect(page.locator('[data-testid="stBaseButton-primary"]', has_text=SERIAL).first).to_be_visible()
                page.get_by_label("Instruction").fill("Write the note 'Call Alice'")
                page.get_by_label("Instruction").press("Tab")
                page.get_by_role("button", name="Send").click()
                expect(page.get_by_text("A person is needed (login): Please sign in to Notes")).to_be_visible()
                first = page.locator("[class*='st-key-agent-card-']").first
                expect(first.get_by_text("Step 1 · app_start")).to_be_visible()
                expect(page.locator("[class*='st-key-agent-card-'] img").first).to_be_visible()  # a thumbnail
                page.screenshot(path=str(tmp_path / "takeover.png"), full_page=True)

                # a reload replays the run from its log: every card once, none missing
                run_id = _run_id(page)
                assert page.url.startswith(f"{dashboard}/agent?")  # the URL names the page and the run
                page.reload()  # a new session: the page and the run come back from the URL, the cards from its log
                expect(page.get_by_text("A person is needed (login): Please sign in to Notes")).to_be_visible()
                tools = [e for e in run_events(storage, run_id) if isinstance(e, ToolCalled)]
                wait_for(lambda: len(_cards(page)) == len(tools), timeout=60)
                assert len(set(_cards(page))) == len(_cards(page)) == 2

                notes_app.sign_in()  # the person signs in on the phone
                note = page.get_by_label("Note for the agent (optional)")
                note.fill("signed in as alice")
                note.press("Tab")
                page.get_by_role("button", name="Hand back to the agent").click()
                expect(page.get_by_text("Ended: completed")).to_be_visible()
                expect(page.get_by_text("Wrote the note").first).to_be_visible()
                expect(page.get_by_text(re.compile(r"[1-9][\d,]* tokens \(↑"))).to_be_visible()
                done = [e for e in run_events(storage, run_id) if isinstance(e, ToolCalled)]
                wait_for(lambda: len(_cards(page)) == len(done), timeout=60)
                assert len(set(_cards(page))) == len(done) > 2
                page.screenshot(path=str(tmp_path / "done.png"), full_page=True)
                body = page.content()
            finally:
                browser.close()
    finally:
        RELEASE.set()
        holder.join(60)
    assert notes_app.notes[-1] == "Call Alice"
    after = next(r.body for r in fake_llm.requests("agent") if "signed in as alice" in texts_of(r.body))
    assert "request_takeover" in str(after)
    assert CANARY not in body
    assert (tmp_path / "done.png").stat().st_size > 10_000


def _other_busy(page: Any) -> bool:
    """The page lists phones when it renders: reload it until the held phone shows up busy."""
    if (
        page.get_by_role("button", name=re.compile(rf"^{OTHER}( |$)")).count()
        and page.get_by_text("busy with run").count()
    ):
        return True
    page.get_by_role("button", name="Refresh phones").click()
    page.wait_for_timeout(1000)
    return False


def _run_id(page: Any) -> str:
    match = re.search(r"agent_run=([A-Za-z0-9._-]+)", page.url)
    assert match, page.url
    return match.group(1)
