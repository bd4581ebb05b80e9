"""How a batch runs one item: its child run, tried again when the Prefect API was briefly away,
and what became of it.

A 503 or 429 from the API, or a request that timed out or lost its connection, is transient for
an item: Prefect's client retries each request (PREFECT_CLIENT_MAX_RETRIES); when those are spent
the item's child run is started again after each pause of `API_RETRY_DELAYS` (the item's
budget: four runs in about 22 s), then the item fails alone with the reason. Any other error fails the
item alone too: a batch never dies with one item's traceback. A re-run item repeats nothing it
finished: its files are content-addressed and its model answers cached.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Any, TypeVar

import httpx
from prefect.client.schemas.objects import State

from flows.child_run import ChildRuns
from rlauto_core.config import RunContext, RunOptions
from rlauto_core.pipeline import ItemOutcome, PlannedItem
from rlauto_core.store import layout
from tasks.storage_io import get_recorder, get_storage

T = TypeVar("T")
API_RETRY_DELAYS = (2.0, 5.0, 15.0)  # seconds before an item's 2nd, 3rd and 4th run
TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def is_transient_api_error(exc: BaseException | None) -> bool:
    """An API answer or a connection fault that a later try may not meet (also when wrapped)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, httpx.HTTPStatusError):
            return exc.response.status_code in TRANSIENT_STATUS
        if isinstance(exc, httpx.TransportError):  # timeouts, refused and dropped connections
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


# the `package-recording` flow's child runs, handed down by the batch (this module imports no flow module)
ItemFlow = ChildRuns


async def best_effort(work: Awaitable[T], what: str) -> T | None:
    """A batch's own bookkeeping (its progress, its summary page): a transient API fault there
    is logged, never the end of the batch; None then."""
    try:
        return await work
    except Exception as exc:
        if not is_transient_api_error(exc):
            raise
        logging.getLogger("rlauto.batch").warning("%s skipped: %s: %s", what, type(exc).__name__, exc)
        return None


async def run_child(
    item_flow: ItemFlow, item: PlannedItem, options: RunOptions, context: RunContext, via_deployment: str | None
) -> State:
    """One child run of the item: in this process, or a `package-recording` deployment run."""
    parameters: dict[str, Any] = {
        "source": item.source,
        "job_id": item.job_id,
        "source_name": item.source_name,
        "storage_url": context.storage_url,
        "staged": item,
    }
    if via_deployment is None:
        # no tags on the child: every task run of a tagged run asks the API for tag concurrency
        # slots, a round trip per task (`rlauto status` finds a job's runs by their job_id)
        return await item_flow.run(item.source_name, {"options": options, **parameters})
    from prefect.deployments.flow_runs import arun_deployment

    parameters |= {
        "source": get_storage(context.storage_url).uri(item.upload_path),  # what a worker can read
        "options": options.model_dump(mode="json", exclude={"api_key"}),  # refused above when set
        "staged": item.model_dump(mode="json"),
    }
    child = await arun_deployment(via_deployment, parameters=parameters, timeout=None, poll_interval=1, as_subflow=True)
    assert child.state is not None
    return child.state


def outcome_after(item: PlannedItem, options_hash: str, state: State | None, storage_url: str) -> ItemOutcome:
    """What became of an item: its `item.json`, or (crashed, stopped, never started) its state."""
    found = get_recorder(storage_url).read_item(item.job_id, item.item_id)
    if found is not None and (state is None or not state.is_cancelled()):
        return found
    if state is not None and state.is_cancelled():
        status, error = "stopped", state.message or "stopped"
    elif state is None:
        status, error = "stopped", "not started: the batch was cancelled"
    else:
        status, error = "failed", f"{state.name}: {state.message or 'no result'}"
    return failed_outcome(item, options_hash, storage_url, error, status)


def failed_outcome(
    item: PlannedItem, options_hash: str, storage_url: str, error: str, status: str = "failed"
) -> ItemOutcome:
    return ItemOutcome.model_validate(
        {
            "job_id": item.job_id,
            "item_id": item.item_id,
            "source": item.source,
            "source_name": item.source_name,
            "source_sha256": item.source_sha256,
            "options_hash": options_hash,
            "status": status,
            "storage_url": storage_url,
            "export_dir": layout.export_dir(item.job_id, item.item_id),
            "error": error,
        }
    )


async def _failure_of(state: State) -> BaseException | None:
    """The exception a failed child run ended with, when this process holds it."""
    try:
        value = await state.aresult(raise_on_failure=False)
    except Exception as exc:  # the result itself could not be had: its reason is the answer
        return exc
    return value if isinstance(value, BaseException) else None


async def run_item_child(
    item_flow: ItemFlow,
    item: PlannedItem,
    options: RunOptions,
    context: RunContext,
    via_deployment: str | None,
    delays: tuple[float, ...] | None = None,
) -> ItemOutcome:
    """The item's outcome after one child run, or more when transient API faults stopped it."""
    options_hash = options.options_hash()
    delays = API_RETRY_DELAYS if delays is None else delays
    attempts, attempt = len(delays) + 1, 1
    started = datetime.now(UTC)
    while True:
        fault: BaseException | None
        try:
            state = await run_child(item_flow, item, options, context, via_deployment)
        except Exception as exc:
            fault = exc
            done = await asyncio.to_thread(get_recorder(context.storage_url).read_item, item.job_id, item.item_id)
            if done is not None and done.finished_at is not None and done.started_at >= started:
                return done  # the fault came after this run recorded the item
        else:
            outcome = await asyncio.to_thread(outcome_after, item, options_hash, state, context.storage_url)
            recorded = outcome.finished_at is not None and outcome.started_at >= started
            if recorded or not state.is_failed():
                return outcome  # recorded by this run (passed, failed, refused), or stopped
            fault = await _failure_of(state)
            if not is_transient_api_error(fault):
                return outcome
        if not is_transient_api_error(fault) or attempt >= attempts:
            why = f"{type(fault).__name__}: {fault}" if fault is not None else "no result"
            tries = f" (after {attempt} runs)" if attempt > 1 else ""
            return failed_outcome(item, options_hash, context.storage_url, f"{why}{tries}")
        await asyncio.sleep(delays[attempt - 1])
        attempt += 1
