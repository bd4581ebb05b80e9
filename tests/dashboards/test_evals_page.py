"""The Evals page's agent-suite section through AppTest over a real storage: evals of the same suite
compared across models and memory settings (the chart's rates, the evals newest first, per tag),
another suite's content kept apart, an unreadable index file named, nothing secret shown."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from dashboards.repository import Repository
from rlauto_core.agent.suite import CheckResult, EvalSetup, EvalStore, TaskRunRecord
from rlauto_core.store.storage import FsspecStorage
from tests.dashboards.apptest_support import chart, go, rendered_bytes, texts
from tests.dashboards.conftest import CANARY_API_KEY

pytestmark = pytest.mark.usefixtures("loopback_address")
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
TASKS = {
    "wifi-on": ["settings", "easy"],
    "delete-note": ["notes", "impossible"],
    "note-exists": ["notes", "already-done"],
}


def _script(repository: "Repository") -> None:  # noqa: UP037 (the body runs alone)
    from dashboards.review import main

    main(repository)


def _table(at: AppTest, column: str) -> Any:
    """The data frame shown with `column` (AppTest keeps no key for a data frame)."""
    [found] = [d.value for d in at.dataframe if column in d.value.columns]
    return found


def _page(storage: FsspecStorage) -> AppTest:
    at = AppTest.from_function(_script, args=(Repository(storage.url, refresh_seconds=0),), default_timeout=60)
    return go(at, "evals")


def _eval(storage: FsspecStorage, eval_id: str, model: str, memory: bool, passed: set[str], minutes: int,
          digest: str = "d1") -> None:  # fmt: skip
    setup = EvalSetup(eval_id=eval_id, suite="demo", suite_digest=digest, model=model, memory=memory,
                      serial="demo-1", tasks=list(TASKS), started_at=T0 + timedelta(minutes=minutes))  # fmt: skip
    store = EvalStore(storage)
    for n, (task, tags) in enumerate(TASKS.items()):
        ok = task in passed
        check = CheckResult(check="the check", passed=ok, found="" if ok else f"found {CANARY_API_KEY}")
        store.save_record(setup, TaskRunRecord(
            eval_id=eval_id, task_id=task, run=1, instruction=task, tags=tags, agent_run_id=f"{eval_id}-{task}",
            success=ok, outcome="completed", checks=[check], steps=3 + n, tokens_total=100 * (n + 1),
            agent_s=1.0, wall_s=1.2, finished_at=T0 + timedelta(minutes=minutes, seconds=n),
        ))  # fmt: skip


def test_evals_of_a_suite_compare_models_and_memory_settings_in_a_chart_and_tables(storage: FsspecStorage) -> None:
    _eval(storage, "e-scripted", "scripted", False, {"wifi-on", "note-exists"}, 0)
    _eval(storage, "e-liar", "liar", False, {"note-exists"}, 10)
    _eval(storage, "e-scripted-mem", "scripted", True, {"wifi-on", "note-exists", "delete-note"}, 20)
    _eval(storage, "e-old-suite", "scripted", False, set(), 30, digest="d0")  # another suite's content
    storage.write_bytes("index/agent_evals/eval=broken/x.parquet", b"not parquet")
    at = _page(storage)
    assert not at.exception
    assert at.selectbox(key="agent-eval-suite").value == "demo (d0)"  # the newest suite first
    at.selectbox(key="agent-eval-suite").set_value("demo (d1)").run()
    _spec, frames = chart(at, "Success rate by model and memory")
    rates = {(r["model"], r["memory"]): r["percent"] for _, r in frames[0].iterrows()}
    assert rates == {("liar", "off"): 33.3, ("scripted", "off"): 66.7, ("scripted", "on"): 100.0}
    evals = _table(at, "eval")
    assert list(evals["eval"]) == ["e-scripted-mem", "e-liar", "e-scripted"]  # newest first, d0 apart
    assert list(evals["passed"]) == [3, 1, 2] and list(evals["memory"]) == ["on", "off", "off"]
    tags = _table(at, "scripted · memory on")
    assert tags.loc["impossible", "scripted · memory on"] == 1.0 and tags.loc["impossible", "liar · memory off"] == 0
    assert any("1 eval file(s) cannot be read" in w for w in texts(at, "warning"))
    runs = _table(at, "why not")
    assert list(runs["task"]) == list(TASKS) and bool(runs["passed"].all())
    assert CANARY_API_KEY.encode() not in rendered_bytes(at)


def test_without_evals_the_section_says_how_to_run_one(storage: FsspecStorage) -> None:
    at = _page(storage)
    assert not at.exception
    assert any("rlauto agent eval --device demo-1 --model scripted" in c for c in texts(at, "caption"))
