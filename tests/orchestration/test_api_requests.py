"""What one item costs in Prefect API requests, counted on the wire as the bench counts them
(bench/api_requests.py) against the session's Prefect server: a change that adds a request per
item, or to every batch, fails here (issue 21: 12.4 per item before, 5 now)."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest

from bench.api_requests import counting_api_requests
from flows import control, pipeline
from flows.pipeline import package_batch
from rlauto_core.config import RunOptions
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

# an item: its tracking task run, its flow run (created Running, named), Judging, its final
# state, its page
PER_ITEM = {
    "POST /api/task_runs": 1,
    "POST /api/flow_runs": 1,
    "POST /api/flow_runs/{id}/set_state": 2,
    "POST /api/artifacts": 1,
}
# a batch: its own run and its engine's reads and writes, the child flow's id, its progress and
# summary, its last stop check
PER_BATCH = 14


def requests_of_batch(api_url: str, root: Path, count: int, start: int) -> Counter[str]:
    """The requests of one batch of `count` new recordings, less the answers a busy server
    asked to be sent again (SQLite's 503s: Prefect's client retries those, not our code)."""
    files = write_variants(root / f"in-{start}", count, start=start)
    transient: Counter[str] = Counter()
    with counting_api_requests(api_url, transient) as counts:
        batch = asyncio.run(
            package_batch([str(f) for f in files], RunOptions(), 2, None, (root / "store").as_uri(), None, 4)
        )
    assert [i.status for i in batch.items] == ["completed"] * count, [i.error for i in batch.items]
    assert not any(i.reused for i in batch.items)
    # the log shipper sends what the run logged in batches on a timer, paced by the clock too
    counts.pop("POST /api/logs", None)
    return counts - transient


def test_one_item_costs_five_prefect_api_requests(
    prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the batch's stop watch and progress updates are paced by the clock: held still here, so the
    # counts are the same on a quiet and a loaded machine (each still runs once: last stop
    # check, first and last progress)
    monkeypatch.setattr(control, "WATCH_EVERY", 3600.0)
    monkeypatch.setattr(pipeline, "PROGRESS_EVERY", 3600.0)
    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", judge_answer())
    requests_of_batch(prefect_api_url, tmp_path, 1, start=0)  # the process's one-time costs, not counted
    two = requests_of_batch(prefect_api_url, tmp_path, 2, start=10)
    six = requests_of_batch(prefect_api_url, tmp_path, 6, start=20)

    # a CSRF token is fetched once per API client: the batch's, and the log shipper's at its first
    # send, whichever batch that falls in (paced by its timer); never one per item
    csrf = "GET /api/csrf-token"
    assert two[csrf] <= 2 and six[csrf] <= 2, (two, six)
    per_item = {name: (six[name] - two[name]) / 4 for name in six | two if name != csrf}
    assert {name: n for name, n in per_item.items() if n} == PER_ITEM, (two, six)
    assert sum(per_item.values()) == 5
    batch_alone = sum(n for name, n in two.items() if name != csrf) + 1 - 2 * 5  # + the batch's own token
    assert batch_alone <= PER_BATCH, two
    assert len(fake_model.requests()) == (1 + 2 + 6) * 2  # each item's analyzer and judge, once


def test_an_items_steps_are_no_task_runs(prefect_api_url: str, fake_model: FakeLlmServer, tmp_path: Path) -> None:
    """A task run costs the server three events and a row (about 30 ms of its one core): the
    item's parse, rules, model calls and export are none. The batch keeps one tracking task run
    per item (how a job's deletion and a cancel find its items), and the calls are still cached."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    fake_model.script("analyzer", faithful_analyzer())
    fake_model.script("judge", judge_answer())
    files = [str(f) for f in write_variants(tmp_path / "in", 2, start=40)]
    batch = asyncio.run(package_batch(files, RunOptions(), 2, "steps-a", (tmp_path / "store").as_uri()))
    assert batch.flow_run_id and [i.status for i in batch.items] == ["completed"] * 2
    items = [i.flow_run_id for i in batch.items]
    with get_client(sync_client=True) as client:

        def task_runs_of(*ids: str | None) -> list[str]:
            runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=list(ids))))
            return sorted(r.name.rsplit("-", 1)[0] for r in runs)

        assert task_runs_of(*items) == []
        assert task_runs_of(batch.flow_run_id) == ["bundle-all-results", "package-recording", "package-recording"]
    asyncio.run(package_batch(files, RunOptions(), 2, "steps-b", (tmp_path / "store").as_uri()))
    assert len(fake_model.requests()) == 2 * 2  # another job, the same calls: answered from the cache
