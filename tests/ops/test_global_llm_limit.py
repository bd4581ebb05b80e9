"""GLOBAL_LLM_CONCURRENCY caps the model calls in flight across every run (seed 000): a batch
of 8 recordings at concurrency 8 with a limit of 2 never has more than 2 calls at the fake model
server at once, in one process here (and across two workers in test_scale_out)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from flows import package_batch
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest
from tests.orchestration.recordings import write_variants

pytestmark = [pytest.mark.prefect, pytest.mark.slow]

# long enough for calls of different items to overlap; the unlimited control waits longer, so
# that items started a second apart on a loaded machine still overlap (it runs them all at once)
LIMITED_DELAY, UNLIMITED_DELAY = 0.4, 2.0


def slow(
    step: Callable[[RecordedRequest], dict[str, Any]] | dict[str, Any], delay: float
) -> Callable[[RecordedRequest], dict[str, Any]]:
    return lambda request: {**(step(request) if callable(step) else step), "delay": delay}


def batch_of_eight(fake: FakeLlmServer, folder: Path, start: int, delay: float = LIMITED_DELAY) -> int:
    """Package 8 fresh recordings at concurrency 8; the most calls the server saw at once."""
    fake.reset()
    fake.script("analyzer", slow(faithful_analyzer(), delay))
    fake.script("judge", slow(judge_answer(), delay))
    files = write_variants(folder / "in", 8, start=start)
    batch = asyncio.run(package_batch([str(p) for p in files], concurrency=8, storage_url=(folder / "store").as_uri()))
    assert [i.status for i in batch.items] == ["completed"] * 8
    assert fake.calls("analyzer") == 8 and fake.calls("judge") == 8
    return fake.max_in_flight()


def test_a_limit_of_two_holds_for_a_batch_of_eight_in_one_process(
    prefect_api_url: str, fake_model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GLOBAL_LLM_CONCURRENCY", "0")
    unlimited = batch_of_eight(fake_model, tmp_path / "free", start=100, delay=UNLIMITED_DELAY)
    assert unlimited > 2  # the batch does overlap its calls: the limit below is what holds them

    monkeypatch.setenv("GLOBAL_LLM_CONCURRENCY", "2")
    assert batch_of_eight(fake_model, tmp_path / "limited", start=110) == 2


def test_items_ensuring_the_limit_at_the_same_moment_all_go_on(prefect_api_url: str) -> None:
    """Eight items of a batch start together and each ensures `rlauto-llm`: several find it
    missing and create it; the losers' "already exists" must not fail their item (it did in CI)."""
    import contextlib
    import contextvars
    import threading

    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    from tasks.model_calls import ensure_llm_limit

    with get_client(sync_client=True) as client, contextlib.suppress(ObjectNotFound):
        client.delete_global_concurrency_limit_by_name("rlauto-llm")
    start, errors = threading.Barrier(8), []

    def item() -> None:
        start.wait()
        try:
            ensure_llm_limit(3)
        except Exception as error:  # the test reports what any item raised
            errors.append(error)

    # each thread runs in a copy of this context, as item threads do: Prefect's settings live there
    threads = [threading.Thread(target=contextvars.copy_context().run, args=(item,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with get_client(sync_client=True) as client:
        assert client.read_global_concurrency_limit_by_name("rlauto-llm").limit == 3
