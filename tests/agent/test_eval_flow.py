"""The `eval-agent-suite` flow through the session Prefect server on the demo phone, over the
shipped demo suite: the scripted model's documented score (not 100 %: it fails the impossible
tasks, the edits across two apps and what it does not know), and a model that claims success
at once passing exactly the tasks whose state already holds (at most a fifth of the suite).
Every task run is a flow run of its own with its step cards; records, the summary, the index
rows and the summary artifact are where the dashboard and the CLI read them."""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow.parquet as pq
import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId

from device_flows.agent_eval_flow import eval_agent_suite
from rlauto_core.agent.events import RunEnded, ToolCalled
from rlauto_core.agent.run import ModelChoice
from rlauto_core.agent.suite import AGENT_EVALS_DIR, EvalStore, load_suite
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL
from tests.agent.prefect_support import artifacts_of, run_events
from tests.agent.scripts import call, turn
from tests.fakes.llm_server import FakeLlmServer

pytestmark = [pytest.mark.prefect, pytest.mark.slow]
KEY = "sk-eval-canary-5d0c2a"
# the scripted model's score on the demo suite (docs/agent-suite.md): what it passes, exactly
SCRIPTED_PASSES = {
    "note-call-alice", "shopping-add-eggs", "wifi-on", "bluetooth-off", "dark-theme-on", "airplane-on",
    "note-already-there", "wifi-already-on", "bluetooth-already-on", "bread-already-bought", "signed-out-note",
    "note-with-screenshot",
}  # fmt: skip


def _children(flow_run_id: str) -> list[Any]:
    with get_client(sync_client=True) as client:
        runs = client.read_flow_run(flow_run_id)
        children = client.read_flow_runs(flow_run_filter=FlowRunFilter(
            parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[runs.id])), limit=200)  # fmt: skip
    return children


def _rows(storage: FsspecStorage, eval_id: str) -> list[dict[str, Any]]:
    paths = [p for p in storage.list(f"{AGENT_EVALS_DIR}/eval={eval_id}") if p.endswith(".parquet")]
    return [row for p in paths for row in pq.read_table(io.BytesIO(storage.read_bytes(p))).to_pylist()]


def test_the_scripted_model_scores_twelve_of_the_demo_suites_23_tasks_each_a_flow_run_with_its_step_cards(
    prefect_api_url: str, demo_adb: Any, storage: FsspecStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_API_KEY", raising=False)
    monkeypatch.setenv("AGENT_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: no model call may go out
    state = eval_agent_suite(SERIAL, model=ModelChoice(model="scripted"), storage_url=storage.url, return_state=True)
    assert state.is_completed(), state.message
    summary = state.result()
    suite = load_suite()
    assert (summary["tasks"], summary["runs"], summary["errors"]) == (len(suite.tasks), len(suite.tasks), 0)
    passed = {t["task_id"] for t in summary["per_task"] if t["passed"]}
    assert passed == SCRIPTED_PASSES and summary["success_rate"] == pytest.approx(12 / 23)
    assert summary["per_tag"]["impossible"] == 0 and summary["per_tag"]["already-done"] == 1
    assert summary["per_tag"]["two-apps"] == 0 and summary["per_tag"]["takeover"] == 0.5

    eval_id = str(state.state_details.flow_run_id)
    records = {r.task_id: r for r in EvalStore(storage).records(eval_id)}
    assert set(records) == {t.id for t in suite.tasks}
    # a task whose agent reported completion but did half: the check read the phone, not the report
    half = records["shopping-and-note"]
    assert half.outcome == "completed" and not half.success and "Milk is on the list" in half.reason
    signed = records["signed-out-note"]
    assert signed.success and signed.takeovers == 1 and signed.steps > 5 and signed.wall_s >= signed.agent_s > 0
    assert records["delete-note"].outcome == "completed" and "the run ended blocked" in records["delete-note"].reason

    children = {str(r.id): r for r in _children(eval_id)}
    assert set(children) == {r.agent_run_id for r in records.values()}  # a flow run per task run
    assert {r.name for r in children.values()} == {f"{t.id}-run-1" for t in suite.tasks}
    alice = records["note-call-alice"].agent_run_id
    events = run_events(storage, alice)
    assert [e.tool for e in events if isinstance(e, ToolCalled)][:2] == ["ui_tree", "app_start"]
    assert isinstance(events[-1], RunEnded) and events[-1].outcome == "completed"
    cards = [a for a in artifacts_of(alice) if a.type == "markdown" and "### Step" in str(a.data)]
    assert len(cards) == records["note-call-alice"].steps

    rows = _rows(storage, eval_id)
    assert len(rows) == 23 and {r["model"] for r in rows} == {"scripted"} and sum(r["success"] for r in rows) == 12
    assert {r["suite_digest"] for r in rows} == {suite.digest()} and all(r["memory"] is False for r in rows)
    artifact = [a for a in artifacts_of(eval_id) if a.key == f"agent-suite-{eval_id}"]
    assert artifact and "12/23 passed, 52%" in str(artifact[0].data) and "| impossible | 0% |" in str(artifact[0].data)


def test_a_model_claiming_success_at_once_passes_only_the_tasks_whose_state_already_holds(
    prefect_api_url: str,
    demo_adb: Any,
    fake_llm: FakeLlmServer,
    storage: FsspecStorage,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_API_KEY", KEY)
    monkeypatch.setenv("AGENT_BASE_URL", fake_llm.base_url())
    claims = call("report_task", kind="completion", summary="Done.", checked=["the task"], evidence=["it is done"])
    fake_llm.script("liar", turn(claims))  # every answer: completion at once, doing nothing
    state = eval_agent_suite(SERIAL, model=ModelChoice(model="liar"), storage_url=storage.url, return_state=True)
    assert state.is_completed(), state.message
    summary = state.result()
    suite = load_suite()
    already = {t.id for t in suite.tasks if "already-done" in t.tags}
    assert len(already) * 5 <= len(suite.tasks)
    assert {t["task_id"] for t in summary["per_task"] if t["passed"]} == already
    assert all(r["outcome"] == "completed" and r["steps"] == 1 for t in summary["per_task"] for r in t["results"])
    assert fake_llm.calls("liar") == len(suite.tasks)
    eval_id = str(state.state_details.flow_run_id)
    stored = json.dumps([*_rows(storage, eval_id), summary], default=str)
    assert KEY not in stored and fake_llm.base_url() in stored  # the endpoint named, never its key
    # what each task run cost, as the model's answers reported it (the fake counts a token per 4
    # characters): one call each, its tokens counted, none for the scripted model's runs above
    records = EvalStore(storage).records(eval_id)
    assert all(r.model_calls == 1 and r.tokens_total == r.tokens_prompt + r.tokens_completion > 0 for r in records)
    assert summary["tokens_total"] == sum(r.tokens_total for r in records)
    # the artifact's per-task table: a row per task, passed ones with no reason, failed ones with it
    [artifact] = [a for a in artifacts_of(eval_id) if a.key == f"agent-suite-{eval_id}"]
    rows = {line.split(" | ")[0].strip("| "): line for line in str(artifact.data).splitlines() if " | " in line}
    assert {t.id for t in suite.tasks} <= set(rows)
    for task in suite.tasks:
        assert (" | 1/1 | " in rows[task.id]) is (task.id in already), rows[task.id]
        assert rows[task.id].endswith(" |  |") is (task.id in already), rows[task.id]
