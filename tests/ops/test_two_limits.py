"""The batch's two limits are what their names say: `concurrency` holds the model calls in
flight, `items_in_flight` the recordings worked on at once, so that more recordings than model
calls are under way and their other steps overlap the model waits."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

from flows import package_batch
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer
from tests.ops.test_global_llm_limit import slow
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

DELAY = 1.0  # a model answer: long enough for the items of one batch to be under way together
WIDE_DELAY = 2.0  # where overlap is asserted: on a loaded 2-core machine items start up to ~1 s apart


def most_items_at_once(names: list[str]) -> int:
    """The most of these item flow runs that were running at the same moment (the server's times)."""
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=names)))
    spans = [(r.start_time, r.end_time) for r in runs if r.start_time and r.end_time]
    assert len(spans) == len(names)
    return max(sum(1 for s, e in spans if s <= start < e) for start, _ in spans)


def batch(
    fake: FakeLlmServer, folder: Path, start: int, concurrency: int, items_in_flight: int, delay: float = DELAY
) -> tuple[int, int]:
    fake.reset()
    fake.script("analyzer", slow(faithful_analyzer(), delay))
    fake.script("judge", slow(judge_answer(), delay))
    files = write_variants(folder / "in", 6, start=start)
    outcome = asyncio.run(package_batch([str(p) for p in files], concurrency=concurrency,
                                        storage_url=(folder / "store").as_uri(), items_in_flight=items_in_flight))  # fmt: skip
    assert [i.status for i in outcome.items] == ["completed"] * 6
    return fake.max_in_flight(), most_items_at_once([p.name for p in files])


def test_model_calls_and_items_in_flight_are_two_bounds(
    prefect_api_url: str, fake_model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GLOBAL_LLM_CONCURRENCY", "0")  # the batch's own limit is the one measured
    calls, items = batch(fake_model, tmp_path / "wide", start=300, concurrency=2, items_in_flight=6, delay=WIDE_DELAY)
    assert calls == 2  # never more model calls than `concurrency`, and the limit was reached
    assert items >= 3  # more recordings under way than model calls: the second bound is wider

    calls, items = batch(fake_model, tmp_path / "narrow", start=310, concurrency=2, items_in_flight=2)
    assert calls <= 2 and items <= 2  # items in flight bound the runs, whatever the model limit
