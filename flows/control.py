"""An item's visible state and its stop check, through the Prefect API.

"Judging" is a Running state with that name: the UI shows it while the judge runs. A stop is
requested when this run or the batch above it is cancelling or cancelled.

The synchronous helpers run in an item's worker thread and use the thread's one API client
(`with_sync_client`); the batch, an async flow, asks through the flow run's own async client.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Any, TypeVar
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import State, StateType
from prefect.context import FlowRunContext, SyncClientContext
from prefect.runtime import flow_run as current_run
from prefect.states import Running

from rlauto_core.config import MAX_ITEMS_IN_FLIGHT, RunContext
from rlauto_core.llm import process_gate

_STOPPING = {StateType.CANCELLING, StateType.CANCELLED}
WATCH_EVERY = 2.0  # seconds between a batch's reads of its own state (its stop signal)
T = TypeVar("T")
# Items run their synchronous steps in threads of their own: the event loop's default executor
# has min(32, cores + 4) threads, six on a 2-core machine, which held a batch of 8 items in
# flight to six. Two batches in one process share it (items beyond it wait for a thread).
_ITEM_THREADS = ThreadPoolExecutor(max_workers=MAX_ITEMS_IN_FLIGHT, thread_name_prefix="rlauto-item")


# the event loop of the flow run an item thread works for: its state writes go there
_run_loop: contextvars.ContextVar[asyncio.AbstractEventLoop | None] = contextvars.ContextVar(
    "rlauto-loop", default=None
)


async def in_item_thread(work: Callable[[], T]) -> T:
    """Run an item's synchronous steps in an item thread, with this context and one API client."""
    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    context.run(_run_loop.set, loop)
    return await loop.run_in_executor(_ITEM_THREADS, context.run, with_sync_client, work)


def with_sync_client(work: Callable[[], T]) -> T:
    """Run `work` (in a worker thread) with one synchronous API client for everything it does:
    its task runs, state changes and stop checks. Without it each of those opened a client of
    its own, a TLS context and a CSRF round trip apiece."""
    with SyncClientContext.get_or_create():
        return work()


def set_item_state(name: str) -> None:
    """Show `name` ("Judging", "Running") as the current run's state.

    From an item thread the write goes through the flow run's own async client, on its event
    loop: that client has its CSRF token already, where the threads' sync client fetched one
    (one per thread racing to be first) for this write alone."""
    run_id = current_run.id
    if not run_id:
        return
    state: State = Running(name=name)
    loop = _run_loop.get()
    if loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(_set_state(UUID(str(run_id)), state), loop).result()
        return
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(UUID(str(run_id)), state, force=True)


async def _set_state(run_id: UUID, state: State) -> None:
    async with get_client() as client:
        await client.set_flow_run_state(run_id, state, force=True)


async def name_batch_run(job_id: str) -> None:
    """Name the running batch's flow run after its job, once (a PATCH only when the name changes)."""
    context = FlowRunContext.get()
    run = context.flow_run if context is not None else None
    if run is None or run.name == job_id:
        return
    async with get_client() as client:
        await client.update_flow_run(run.id, name=job_id)
    run.name = job_id  # what this run is called now: a second call with the same id asks nothing


class BatchWatch:
    """Whether the batch running in this process is being cancelled, polled in the background.

    The batch reads `stopping` before it starts an item, and its in-process items read it
    between steps: one API read every `interval` seconds for the whole batch instead of one per
    item and step (each read cost the Prefect server as much as a task run)."""

    def __init__(self, run_id: str | None, interval: float | None = None) -> None:
        self.run_id = UUID(str(run_id)) if run_id else None
        self.interval = WATCH_EVERY if interval is None else interval
        self.stopping = False

    def start_from_engine(self) -> None:
        """Take the batch's state as its engine last had it (read, then set Running, a moment
        ago): the first read of our own is the watcher's, `interval` seconds on."""
        context = FlowRunContext.get()
        state = context.flow_run.state if context is not None and context.flow_run is not None else None
        self.stopping = self.stopping or (state is not None and state.type in _STOPPING)

    async def poll(self) -> None:
        """Check now (the batch awaits this once before its first item), then every `interval`."""
        if self.run_id is None:
            return
        async with get_client() as client:
            state = (await client.read_flow_run(self.run_id)).state
        self.stopping = self.stopping or (state is not None and state.type in _STOPPING)

    def check(self, fresh: bool) -> bool:
        """For an item's thread: the last answer, or (`fresh`) one asked now with its client."""
        if fresh and not self.stopping and self.run_id is not None:
            with get_client(sync_client=True) as client:
                state = client.read_flow_run(self.run_id).state
            self.stopping = state is not None and state.type in _STOPPING
        return self.stopping

    async def watch(self) -> None:
        while not self.stopping:
            await asyncio.sleep(self.interval)
            with contextlib.suppress(Exception):  # a missed poll is retried; the batch goes on
                await self.poll()


_batch: contextvars.ContextVar[BatchWatch | None] = contextvars.ContextVar("rlauto-batch", default=None)


def watching(watch: BatchWatch) -> None:
    """Make `watch` the stop signal of the items this batch runs in this process."""
    _batch.set(watch)


def stop_checker() -> Callable[[bool], bool]:
    """A check, for an item's thread, that is True once the batch above this run is cancelled
    (with no batch above it: once this run itself is).

    In the batch's process it reads the batch's `BatchWatch` (asking the API itself only when
    told `fresh`). Run by a worker through a deployment, it asks the API about the batch found
    on the first check from the task run that stands for this run in its parent."""
    watch = _batch.get()
    if watch is not None:
        return watch.check
    context = FlowRunContext.get()
    parent_task = context.flow_run.parent_task_run_id if context and context.flow_run else None
    if parent_task is None:
        return _own_stop_check(context)
    remote = BatchWatch(None)

    def stop_requested(fresh: bool) -> bool:
        if remote.run_id is None:
            with get_client(sync_client=True) as client:
                remote.run_id = client.read_task_run(parent_task).flow_run_id
        return remote.check(fresh=True)

    return stop_requested


def _own_stop_check(context: FlowRunContext | None) -> Callable[[bool], bool]:
    """A run with no batch above it (a retry, a regenerate) stops when it is cancelled itself
    (its job being deleted), asked between steps like a batch's items."""
    own = context.flow_run.id if context and context.flow_run else None
    return BatchWatch(str(own) if own else None).check


Gate = Callable[[], AbstractContextManager[Any]]
_model_gate: contextvars.ContextVar[Gate | None] = contextvars.ContextVar("rlauto-model-gate", default=None)


def limit_model_calls(limit: int) -> None:
    """Hold the model calls of the items this batch runs in this process to `limit` in flight
    (the batch's `concurrency`), however many items are in flight."""
    _model_gate.set(process_gate(limit))


def model_gate() -> Gate | None:
    """The gate of the batch above this item run in this process; None run on its own."""
    return _model_gate.get()


_batch_context: contextvars.ContextVar[RunContext | None] = contextvars.ContextVar("rlauto-context", default=None)


def share_context(context: RunContext) -> None:
    """Hand the batch's run context to the items it runs in this process."""
    _batch_context.set(context)


def context_for(storage_url: str | None) -> RunContext:
    """An item run by a batch in this process takes the batch's context (the settings read
    from the environment once per batch: about 70 ms of CPU an item on a loaded 2-core
    machine); an item on its own, or told of other storage, resolves its own."""
    shared = _batch_context.get()
    if shared is not None and storage_url in (None, shared.storage_url):
        return shared
    return RunContext.resolve(storage_url=storage_url)
