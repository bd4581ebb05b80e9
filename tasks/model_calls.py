"""Every model call is a cached Prefect task behind the global LLM concurrency limit.

The cache key is built from the recording's hash, the options' hash, the role, the endpoint
(model, base URL, API mode, sampling: `EndpointConfig.answer_key`), the call's place in the item
(for the analyzer and judge: the iteration number), the prompt version and the prompt itself, so
a re-run or a resumed run reads a completed call back from result storage instead of paying for
it again, and a changed model is never served another model's answer.

Transient errors are retried once, in the HTTP client (with backoff and Retry-After): the task
itself is not retried on top.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import lru_cache
from typing import Any

from prefect import task

from rlauto_core.llm import EndpointConfig, Message, ModelClient, ModelReply, Role, process_gate

LLM_LIMIT_NAME = "rlauto-llm"


def _call_key(context: Any, parameters: dict[str, Any]) -> str:
    return str(parameters["cache_key"])


@task(
    name="model-call",
    task_run_name="{role}-iter{iteration}-call{sequence}",
    cache_key_fn=_call_key,
    persist_result=True,
    result_serializer="json",
)
def model_call(
    client: ModelClient,
    role: str,
    iteration: int,
    sequence: int,
    messages: list[Message],
    json_output: bool,
    cache_key: str,
) -> ModelReply:
    return client.complete(messages, json_output=json_output)


class CachedModelClient:
    """A `ModelClient` whose every `complete` runs as the cached `model_call` task.

    `on_call` is told which role is about to be called (the flow shows "Judging" for the judge).
    """

    def __init__(
        self,
        inner: ModelClient,
        *,
        key_prefix: str,
        prompt_version: str,
        iteration: Callable[[], int] = lambda: 1,
        on_call: Callable[[Role, bool], None] | None = None,
        result_storage: Any = None,
    ) -> None:
        self._task = model_call.with_options(result_storage=result_storage) if result_storage else model_call
        self._inner = inner
        self._key_prefix = key_prefix
        self._prompt_version = prompt_version
        self._on_call = on_call
        self._iteration = iteration
        self._calls: dict[int, int] = {}

    @property
    def role(self) -> Role:
        return self._inner.role

    @property
    def endpoint_host(self) -> str:
        return self._inner.endpoint_host

    @property
    def endpoint(self) -> EndpointConfig:
        return self._inner.endpoint

    def complete(self, messages: list[Message], *, json_output: bool = False) -> ModelReply:
        # the iteration number, and the n-th call of this role within it (a re-ask is a second call)
        iteration = self._iteration()
        self._calls[iteration] = sequence = self._calls.get(iteration, 0) + 1
        asked = json.dumps([self.endpoint.answer_key(), [m.model_dump() for m in messages]], sort_keys=True)
        prompt_hash = hashlib.sha256(asked.encode()).hexdigest()[:16]
        key = (
            f"llm-{self._key_prefix}-{self.role}-iter{iteration}-{sequence}-{self._prompt_version}-"
            f"{'json' if json_output else 'text'}-{prompt_hash}"
        )
        if self._on_call is not None:
            self._on_call(self.role, True)
        try:
            return self._task(self._inner, str(self.role), iteration, sequence, messages, json_output, key)
        finally:
            if self._on_call is not None:
                self._on_call(self.role, False)


@lru_cache(maxsize=4)
def _in_process(limit: int) -> Callable[[], AbstractContextManager[Any]]:
    gate = process_gate(limit)
    assert gate is not None
    return gate


def llm_gate(limit: int) -> Callable[[], AbstractContextManager[Any]]:
    """The gate the HTTP client holds around each request: a slot of the global limit, or none.

    First a semaphore of the same size shared by the whole process (its calls beyond the limit
    wait here, instead of each polling the Prefect server for a slot), then the slot of the
    global concurrency limit, which spans processes and workers.
    """
    if limit <= 0:
        return nullcontext
    from prefect.concurrency.sync import concurrency

    local = _in_process(limit)

    @contextmanager
    def gate() -> Iterator[None]:
        with local(), concurrency(LLM_LIMIT_NAME, occupy=1):
            yield

    return gate


def joined_gate(
    first: Callable[[], AbstractContextManager[Any]] | None, then: Callable[[], AbstractContextManager[Any]]
) -> Callable[[], AbstractContextManager[Any]]:
    """`first` (the batch's limit of model calls in flight), then `then` (the global limit)."""
    if first is None:
        return then

    @contextmanager
    def gate() -> Iterator[None]:
        with first(), then():
            yield

    return gate


def ensure_llm_limit(limit: int) -> None:
    """Create (or resize) the global concurrency limit `rlauto-llm` when a limit is set.

    Items of one batch start together and each ensures the limit: two may both find it missing,
    and the second create then answers "already exists". That is the state asked for, not a
    fault, so it reads the limit again and only resizes it.
    """
    if limit <= 0:
        return
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate, GlobalConcurrencyLimitUpdate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            current = client.read_global_concurrency_limit_by_name(LLM_LIMIT_NAME)
        except ObjectNotFound:
            try:
                client.create_global_concurrency_limit(
                    GlobalConcurrencyLimitCreate(name=LLM_LIMIT_NAME, limit=limit, active=True)
                )
                return
            except ObjectAlreadyExists:
                current = client.read_global_concurrency_limit_by_name(LLM_LIMIT_NAME)
        if current.limit != limit:
            client.update_global_concurrency_limit(
                LLM_LIMIT_NAME, GlobalConcurrencyLimitUpdate(limit=limit, active=True)
            )


__all__ = ["CachedModelClient", "ensure_llm_limit", "joined_gate", "llm_gate", "model_call"]
