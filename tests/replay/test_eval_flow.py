"""The eval flow end to end through Prefect with the scripted model: every example package played
to full marks, the success rate in the flow's artifact, the rows in the parquet index, and the
Evals page in Chromium showing the model's success rate and an attempt's calls beside its rubrics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

from rlauto_core.store import open_storage, read_env_evals
from tests.dashboards.apptest_support import served_dashboard
from tests.dashboards.browser import chromium_page

pytestmark = [pytest.mark.prefect, pytest.mark.slow]


def test_the_scripted_model_solves_every_example_through_the_flow_and_the_page_shows_it(
    prefect_api_url: str, example_packages: dict[str, Path], tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    from flows.evals import eval_agent

    storage_url = (tmp_path / "storage").as_uri()
    packages = [str(p) for _, p in sorted(example_packages.items())]
    state = eval_agent(packages, "scripted", storage_url=storage_url, attempts=1, return_state=True)
    outcome = state.result()
    assert outcome.summary["success_rate"] == 1.0 and len(outcome.rows) == len(packages)
    assert all(r.passed and r.score == r.max_score > 0 and r.rubrics_failed == [] for r in outcome.rows)

    with get_client(sync_client=True) as client:
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[state.state_details.flow_run_id]))
        )
    pages = [a.data for a in artifacts if a.type == "markdown"]
    assert any("Success rate 100%" in str(page) and "issue_tracker" in str(page) for page in pages)
    # Every rubric of every package has its row in the summary, at 100% for the golden play.
    summaries = "\n".join(map(str, pages))
    assert outcome.summary["rubrics"] and all(f"| {name} | 100% |" in summaries for name in outcome.summary["rubrics"])
    assert any(a.type == "table" for a in artifacts)

    storage = open_storage(storage_url)
    rows = read_env_evals(storage)
    assert {r.eval_id for r in rows} == {outcome.eval_id} and len(rows) == len(packages)
    assert all(storage.exists(r.attempt_path) and storage.exists(r.episode_path) for r in rows)

    env = {k: v for k, v in os.environ.items() if k != "RLAUTO_DASHBOARD_PASSWORD"}
    with served_dashboard(storage_url, tmp_path / "dashboard.log", env) as url, chromium_page() as page:
        page.goto(f"{url}/evals")
        expect(page.get_by_role("heading", name="Evals")).to_be_visible()
        expect(page.get_by_text("Success rate per model")).to_be_visible()
        expect(page.get_by_text("scripted: success rate 100%")).to_be_visible()
        expect(page.get_by_text("Rubrics", exact=False).first).to_be_visible()
        page.wait_for_timeout(1000)  # the grids draw after they appear
        page.screenshot(path=str(tmp_path / "evals.png"), full_page=True)
        body = page.content()
    assert "CANARY" not in body
    assert (tmp_path / "evals.png").stat().st_size > 10_000


def test_the_eval_agent_deployment_has_a_typed_form_and_is_deployed_by_rlauto_up() -> None:
    import yaml
    from prefect.utilities.callables import parameter_schema

    from flows.evals import eval_agent
    from tests.conftest import REPO_ROOT

    deployments = yaml.safe_load((REPO_ROOT / "prefect.yaml").read_text())["deployments"]
    entry = next(d for d in deployments if d["name"] == "eval-agent")
    assert entry["entrypoint"] == "flows/evals.py:eval_agent" and entry["work_pool"]["name"] == "rlauto"
    assert "-n eval-agent" in (REPO_ROOT / "infra" / "deploy.sh").read_text()
    form = parameter_schema(eval_agent.fn).model_dump()["properties"]
    assert {"packages", "model", "base_url", "key_secret", "attempts", "max_turns"} <= set(form)
    assert form["attempts"]["maximum"] == 20 and form["model"]["default"] == "scripted"
