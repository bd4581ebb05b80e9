"""Every model call is cached in Prefect's result store, behind the global LLM concurrency limit.

The cache key is built from the recording's hash, the options' hash, the role, the endpoint
(model, base URL, API mode, sampling: `EndpointConfig.answer_key`), the call's place in the item
(for the analyzer and judge: the iteration number), the prompt version and the prompt itself, so
a re-run or a resumed run reads a completed call back from result storage instead of paying for
it again, and a changed model is never served another model's answer.

A call is no task run. As the cached `model-call` task it cost the Prefect server three events
and a task-run row apiece (about 30 ms of the server's one core each, measured at 0.3 s a model
answer: issue 21), for a record nobody read. The cache is the same: Prefect's `ResultStore`, the
same keys, the same JSON records in the same place (`prefect-results/` beside the packages), so
results cached before this change are still found. The item's log says which calls were answered
from the cache.

Transient errors are retried once, in the HTTP client (with backoff and Retry-After): the call
is not retried on top.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from functools import lru_cache
from pathlib import Path
from typing import Any

from rlauto_core.llm import EndpointConfig, Message, ModelClient, ModelReply, Role, process_gate

LLM_LIMIT_NAME = "rlauto-llm"
log = logging.getLogger("rlauto.llm")


def answer_store(result_storage: Any = None) -> Any:
    """Prefect's result store over `result_storage` (a folder, a file-system block, or None for
    Prefect's default storage), JSON records, as the cached task wrote them. A block is used
    unsaved: no API request."""
    from prefect.filesystems import LocalFileSystem
    from prefect.results import ResultStore
    from prefect.serializers import JSONSerializer

    storage = LocalFileSystem(basepath=str(result_storage)) if isinstance(result_storage, Path) else result_storage
    # in-memory copies of answers are no use: a key is asked once per item
    return ResultStore(result_storage=storage, serializer=JSONSerializer(), cache_result_in_memory=False)


def cached_answer(store: Any, key: str) -> ModelReply | None:
    """The answer recorded under `key`, or None. A record that cannot be read, or holds no
    answer, is a miss as Prefect's own cache takes it: the call is paid again and rewritten."""
    if not store.exists(key):
        return None
    try:
        answer = store.read(key).result
    except Exception:  # removed or rewritten since `exists` read it: a miss
        return None
    return answer if isinstance(answer, ModelReply) else None


def record_answer(store: Any, key: str, answer: ModelReply) -> None:
    """Keep `answer` under `key`. The call is paid either way: a failed write costs a re-run one
    call again, not the item, so it is logged, not raised."""
    try:
        store.write(answer, key=key)
    except Exception as exc:
        log.warning("model-call cache %s not written (%s: %s)", key, type(exc).__name__, exc)


class CachedModelClient:
    """A `ModelClient` whose every `complete` is answered from the cache, or asked and cached.

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
        # without result storage (polish): Prefect's default result storage, as the task had
        self._store = answer_store(result_storage)
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
        cached = cached_answer(self._store, key)
        if cached is not None:
            log.info("%s call %d of iteration %d answered from the cache", self.role, sequence, iteration)
            return cached
        if self._on_call is not None:
            self._on_call(self.role, True)
        try:
            answer = self._inner.complete(messages, json_output=json_output)
        finally:
            if self._on_call is not None:
                self._on_call(self.role, False)
        record_answer(self._store, key, answer)
        return answer


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


__all__ = ["CachedModelClient", "answer_store", "ensure_llm_limit", "joined_gate", "llm_gate"]
