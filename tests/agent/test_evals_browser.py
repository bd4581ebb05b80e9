"""The Evals page and the Agent page's recent runs in headless Chromium, all parts real:
`rlauto dashboard`, the served `run-agent` deployment, the demo phone. A run started with
`rlauto agent run` is found on the Agent page with its origin and state and opened with its step
cards (the token counter's icon drawn, not an empty box); two evals of a suite (the scripted
model and a model claiming success at once) are compared on the Evals page, and a task run
opens its step cards on the Agent page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device_flows.agent_eval_flow import eval_agent_suite
from rlauto_core.agent.run import ModelChoice
from rlauto_core.agent.suite import EvalStore, load_suite
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.scripts import call, turn
from tests.agent.served import served_run_agent
from tests.agent.test_flow_run import CANARY
from tests.dashboards.apptest_support import served_dashboard
from tests.dashboards.browser import chromium_page
from tests.fakes.llm_server import FakeLlmServer
from tests.in_process_cli import invoke

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
PICKED = ("wifi-on", "note-already-there", "nfc-on")
ROW_HEIGHT = 35  # Streamlit's data grid rows, header included


@pytest.fixture
def served(
    prefect_api_url: str, fake_llm: FakeLlmServer, demo_adb: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[dict[str, str]]:
    monkeypatch.setenv("AGENT_API_KEY", CANARY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    monkeypatch.delenv("RLAUTO_DASHBOARD_PASSWORD", raising=False)
    with served_run_agent(tmp_path / "runner.log") as env:
        yield env


def _evals(storage: FsspecStorage, fake_llm: FakeLlmServer) -> list[str]:
    shipped = load_suite()
    three = shipped.model_copy(update={"name": "three", "tasks": [shipped.task(t) for t in PICKED]})
    claims = call("report_task", kind="completion", summary="Done.", checked=["the task"], evidence=["done"])
    fake_llm.script("liar", turn(claims))
    ids = []
    for model in ("scripted", "liar"):
        state = eval_agent_suite(SERIAL, suite=three, model=ModelChoice(model=model), storage_url=storage.url,
                                 return_state=True)  # fmt: skip
        assert state.is_completed(), state.message
        ids.append(str(state.state_details.flow_run_id))
    return ids


def _select_first_row(page: Any, grid: Any) -> None:
    from playwright.sync_api import expect

    expect(grid).to_be_visible()
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # the grid draws its rows after it appears
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + ROW_HEIGHT * 1.5)


def test_a_cli_run_is_found_and_opened_on_the_agent_page_and_evals_compare_models_on_the_evals_page(
    served: dict[str, str], fake_llm: FakeLlmServer, storage: FsspecStorage, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    done = invoke("agent", "run", "Write the note 'Call Alice'", "--device", SERIAL, "--model", "scripted",
                  "--json", "--storage", storage.url)  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    scripted_eval, liar_eval = _evals(storage, fake_llm)
    liar_first = next(r for r in EvalStore(storage).records(liar_eval) if r.task_id == PICKED[0])

    with served_dashboard(storage.url, tmp_path / "dashboard.log", served) as url, chromium_page() as page:
        page.goto(f"{url}/agent")
        row = page.locator(f".st-key-agent-run-row-{run_id}")
        expect(row).to_contain_text("completed")
        expect(row).to_contain_text("· cli ·")
        expect(page.locator(".st-key-agent-recent-runs")).to_contain_text("· eval ·")  # the evals' task runs too
        row.get_by_role("button").click()
        expect(page.get_by_text("Step 1 · ui_tree")).to_be_visible()
        assert f"agent_run={run_id}" in page.url
        page.goto(page.url)  # a new session from the link: the page at its top, the run from the URL
        coin = page.get_by_role("img", name="toll icon").first  # a Material Symbols glyph, as the page ships it
        expect(coin).to_be_visible()
        expect(page.get_by_text(re.compile(r"tokens \(↑")).first).to_be_visible()
        line = coin.locator("xpath=ancestor::p[1]")
        line.screenshot(path=str(tmp_path / "usage.png"))  # looked at: a coin-like glyph, then the counts
        box = coin.bounding_box()
        assert box is not None and 12 <= box["width"] <= 40  # one glyph drawn, not the word "toll" in a text font
        page.screenshot(path=str(tmp_path / "agent-page.png"))

        page.goto(f"{url}/evals")
        expect(page.get_by_text("Agent task suites")).to_be_visible()
        expect(page.locator('[data-testid="stVegaLiteChart"]').first).to_be_visible()
        expect(page.get_by_text("Success per tag")).to_be_visible()
        page.wait_for_timeout(1000)  # the charts and grids draw after they appear
        page.screenshot(path=str(tmp_path / "evals-page.png"), full_page=True)
        _select_first_row(page, page.locator(f".st-key-agent-eval-runs-{liar_eval} [data-testid='stDataFrame']"))
        expect(page.get_by_text("Step 1 · report_task")).to_be_visible()
        assert f"agent_run={liar_first.agent_run_id}" in page.url and page.url.startswith(f"{url}/agent?")
    assert scripted_eval != liar_eval
