"""The model-call cache: Prefect's result store, no task run per call (tasks/model_calls.py).

Against the fake model server (the real HTTP client counts as a call what reaches it) and files
on disk: a record the earlier cached `model-call` task wrote is still found, a record that cannot
be read is a miss that is paid once and written again, a record that cannot be written costs
the answer nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from prefect import flow, task

from rlauto_core.config import RunOptions, Settings
from rlauto_core.llm import Message, ModelClient, ModelReply, TokenUsage, open_clients
from tasks.model_calls import CachedModelClient, answer_store, cached_answer
from tests.fakes.llm_server import FakeLlmServer

ASK = [Message(role="user", content="Say hello.")]


@contextmanager
def analyzer_cached(results: Path, prefix: str = "rec-1") -> Iterator[CachedModelClient]:
    with open_clients(Settings(), RunOptions()) as clients:
        assert clients.analyzer is not None
        inner: ModelClient = clients.analyzer
        yield CachedModelClient(inner, key_prefix=prefix, prompt_version="v-test", result_storage=results)


def records(results: Path) -> list[Path]:
    return [p for p in results.rglob("*") if p.is_file()]


def test_a_second_ask_is_answered_from_the_record_without_a_call(fake_model: FakeLlmServer, tmp_path: Path) -> None:
    fake_model.script("analyzer", {"text": "hello"})
    with analyzer_cached(tmp_path / "results") as client:
        first = client.complete(ASK)
    with analyzer_cached(tmp_path / "results") as client:
        again = client.complete(ASK)
    assert fake_model.calls("analyzer") == 1
    assert again.text == first.text == "hello" and again.model == first.model
    assert len(records(tmp_path / "results")) == 1
    with analyzer_cached(tmp_path / "results", prefix="rec-2") as client:  # another recording: its own key
        client.complete(ASK)
    assert fake_model.calls("analyzer") == 2


@pytest.mark.prefect
def test_a_record_the_cached_task_wrote_is_read_back(prefect_api_url: str, tmp_path: Path) -> None:
    """Results cached by the `model-call` task of earlier versions (same storage, same JSON
    records) are still answers: an upgrade does not pay for a batch's calls again."""
    results = tmp_path / "prefect-results"
    reply = ModelReply(text='{"ok": true}', usage=TokenUsage(prompt_tokens=3, completion_tokens=2), model="m-1")

    @task(name="model-call", cache_key_fn=lambda *_: "llm-old-key", persist_result=True, result_serializer="json",
          result_storage=results)  # fmt: skip
    def model_call() -> ModelReply:
        return reply

    @flow(name="answer-cache-old-record")
    def old() -> None:
        model_call()

    old()
    assert records(results), "the task wrote no record"
    assert cached_answer(answer_store(results), "llm-old-key") == reply
    assert cached_answer(answer_store(results), "llm-other-key") is None


@pytest.mark.parametrize("content", [b"", b"\x00\xff not json", b'{"metadata": {"storage_key": 7}, "result": 1}',
                                     b'{"result": "not a reply", "metadata": {"serializer": {"type": "json"}}}'])  # fmt: skip
def test_an_unreadable_record_is_a_miss_paid_once_and_written_again(
    fake_model: FakeLlmServer, tmp_path: Path, content: bytes
) -> None:
    fake_model.script("analyzer", {"text": "hello"})
    results = tmp_path / "results"
    with analyzer_cached(results) as client:
        client.complete(ASK)
    [record] = records(results)
    record.write_bytes(content)
    with analyzer_cached(results) as client:
        answer = client.complete(ASK)
    assert answer.text == "hello" and fake_model.calls("analyzer") == 2
    with analyzer_cached(results) as client:
        client.complete(ASK)
    assert fake_model.calls("analyzer") == 2, "the record was not written again"


def test_a_record_that_cannot_be_written_costs_the_answer_nothing(
    fake_model: FakeLlmServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake_model.script("analyzer", {"text": "hello"})
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache's folder should be")
    with caplog.at_level(logging.WARNING, logger="rlauto.llm"), analyzer_cached(blocked) as client:
        answer = client.complete(ASK)
    assert answer.text == "hello" and fake_model.calls("analyzer") == 1
    assert any("not written" in r.getMessage() for r in caplog.records)
    assert blocked.read_text() == "a file where the cache's folder should be"
