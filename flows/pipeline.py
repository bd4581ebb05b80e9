"""The flows: one recording, a batch, the inbox scan, polish.

A batch fans out one child flow run per recording, named after the file: in one process as
async child flows, `items_in_flight` at a time, their model calls held to `concurrency` in
flight; across workers as `run_deployment` of `package-recording` (the workers of pool `rlauto`
pick them up; the deployment's concurrency limit bounds them), `concurrency` at a time. The flow
code is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from typing import Annotated
from uuid import UUID

from prefect import flow, get_run_logger
from prefect.context import SyncClientContext
from prefect.runtime import flow_run as current_run
from prefect.states import Cancelled, Failed
from pydantic import Field

from flows import analyzer_key, control
from flows.child_run import ChildRuns
from flows.fanout import best_effort, outcome_after, run_item_child
from flows.item import ItemRun, ItemStopped
from flows.reporting import batch_summary, item_artifact, start_progress, update_progress
from rlauto_core.analysis import polish_task
from rlauto_core.config import MAX_CONCURRENCY, MAX_ITEMS_IN_FLIGHT, RunContext, RunOptions, default_items_in_flight
from rlauto_core.errors import RecordingError
from rlauto_core.llm import Role, analyzer_configured, http_client
from rlauto_core.pipeline import BatchOutcome, BatchPlan, ItemOutcome, PlannedItem, plan_batch, stage_plan
from rlauto_core.prompts import PROMPT_VERSION, PolishedTask
from rlauto_core.store import source_name_of
from tasks.inbox import Leases, claim_inbox, scan_owner
from tasks.model_calls import CachedModelClient, ensure_llm_limit, llm_gate
from tasks.storage_io import bundle_all_results, get_recorder, get_storage

PROGRESS_EVERY = 3.0  # seconds between progress artifact updates
# the Prefect UI's form takes each parameter's description from the flow's docstring (Args)
ModelCalls = Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]
ItemsInFlight = Annotated[int | None, Field(ge=1, le=MAX_ITEMS_IN_FLIGHT)]


def _item_run_name() -> str:
    params = current_run.parameters
    return str(params.get("source_name") or source_name_of(str(params.get("source", "recording"))))


@flow(name="package-recording", flow_run_name=_item_run_name, persist_result=False, log_prints=False)
async def package_recording(
    source: str,
    options: RunOptions | None = None,
    job_id: str | None = None,
    source_name: str | None = None,
    storage_url: str | None = None,
    memory_path: str | None = None,
    staged: PlannedItem | None = None,
) -> ItemOutcome:
    """Package one recording (a path or an fsspec URL). Returns its `ItemOutcome`; a failed item
    ends the flow run Failed with the reason, a stopped one Cancelled. `memory_path`: an
    iteration memory in storage to continue from (the dashboard's regenerate). `staged`: the
    item as its batch planned and staged it (read from there, not hashed again)."""
    context = control.context_for(storage_url)
    run = ItemRun(
        source=source,
        source_name=source_name or source_name_of(source),
        options=await analyzer_key.resolved(options or RunOptions()),  # a Secret block's key, read here
        job_id=job_id,
        context=context,
        flow_run_id=str(current_run.id) if current_run.id else None,
        stop_requested=control.stop_checker(),
        set_state=control.set_item_state,
        memory_path=memory_path,
        staged=staged,
        model_gate=control.model_gate(),
    )
    try:
        # the steps are synchronous; a thread keeps this run's event loop free for its siblings
        outcome = await control.in_item_thread(run.run)
    except ItemStopped as exc:
        return Cancelled(message=f"stopped: {exc}")  # type: ignore[return-value]
    await item_artifact(outcome)
    if outcome.status != "completed":
        return Failed(message=f"{outcome.source_name}: {outcome.error}", data=outcome)  # type: ignore[return-value]
    return outcome


async def _planned(
    plan: BatchPlan | None, sources: list[str] | None, options: RunOptions, job_id: str | None, context: RunContext
) -> BatchPlan:
    """The plan the batch was handed, staged; or (started with bare sources, as from the Prefect
    UI's form) the one it makes now."""
    settings = context.settings
    if plan is None:
        plan = await asyncio.to_thread(plan_batch, list(sources or []), options, max_files=settings.max_batch_files,
                                       max_upload_mb=settings.max_upload_mb, job_id=job_id)  # fmt: skip
        if plan.missing:
            raise RecordingError("batch", "; ".join(plan.missing))
    # a handed plan's missing sources were the caller's to report (the CLI names each, then runs the rest)
    if not plan.items:
        raise RecordingError("batch", "; ".join(plan.missing) or "the batch names no recording")
    if not plan.staged:
        plan = await asyncio.to_thread(stage_plan, get_storage(context.storage_url), plan, settings.max_upload_mb)
    return plan


async def _show_progress(progress: UUID | None, done: int, total: int) -> None:
    if progress is not None:
        await best_effort(update_progress(progress, done, total), "a progress update")


# no flow_run_name: the batch names its run itself, once, when its job id is known (flows/control.py)
@flow(name="package-batch", persist_result=False, log_prints=False)
async def package_batch(
    sources: list[str] | None = None,
    options: RunOptions | None = None,
    concurrency: ModelCalls = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
    via_deployment: str | None = None,
    items_in_flight: ItemsInFlight = None,
    plan: BatchPlan | None = None,
) -> BatchOutcome:
    """Package every recording of `plan` (made and staged by the caller), or every one `sources`
    name; one child flow run each; completed items of an earlier run of the same job are reused.

    Args:
        sources: Recordings to package (paths, folders, globs, fsspec URLs); with a plan, what it was made from.
        options: The run options (rule profile, models, iterations...).
        concurrency: Model calls in flight for the batch, 1-8: what the model provider allows.
            Through a deployment's workers, also the child runs at once.
        job_id: The job's id (default: derived from the recordings and options).
        storage_url: Where packages, snapshots and the index go (default: RLAUTO_STORAGE_URL).
        via_deployment: Fan out to workers through this deployment (e.g. package-recording/package-recording).
        items_in_flight: Recordings worked on at once in this process, 1-16 (empty: twice
            concurrency), so parsing and bookkeeping overlap other recordings' model waits.
        plan: The batch as its caller planned and staged it (the CLI, the SDK, the dashboard).
    """
    context = RunContext.resolve(storage_url=storage_url)
    control.share_context(context)
    options = options or RunOptions()
    if via_deployment is not None:  # a raw key would be a child's parameter: refused, not dropped
        analyzer_key.refuse_raw_key(options, f"the workers of {via_deployment}")
    resolved = await analyzer_key.resolved(options)  # a missing Secret block fails the batch now, not each item
    known = plan.job_id if plan is not None else job_id
    if known:  # named at once (a plan that then fails keeps its job's name); else once planned
        await control.name_batch_run(known)
    plan = await _planned(plan, sources, options, job_id, context)
    await control.name_batch_run(plan.job_id)  # nothing when it has that name already
    items, job, url = plan.items, plan.job_id, context.storage_url
    recorder = get_recorder(url)
    progress = await best_effort(start_progress(job, len(items)), "the progress artifact")
    results: dict[str, ItemOutcome] = {}
    watch = control.BatchWatch(str(current_run.id) if current_run.id else None)
    watch.start_from_engine()  # the state the engine just read and wrote: no first read of our own
    control.watching(watch)
    control.limit_model_calls(concurrency)
    if analyzer_configured(context.settings, resolved):  # once for the batch, not a look-up per item
        await asyncio.to_thread(ensure_llm_limit, context.settings.global_llm_concurrency)
    watcher = asyncio.create_task(watch.watch())
    in_flight = concurrency if via_deployment else (items_in_flight or default_items_in_flight(concurrency))
    semaphore = asyncio.Semaphore(in_flight)
    children = ChildRuns(package_recording)  # the flow's id asked once for the batch
    shown = {"done": 0, "at": 0.0}

    async def done(outcome: ItemOutcome) -> None:
        results[outcome.item_id] = outcome
        # at most one progress update every PROGRESS_EVERY seconds (each is an API write the
        # server pays for while items wait on it); the last one always
        if len(results) == len(items) or time.monotonic() - shown["at"] >= PROGRESS_EVERY:
            shown["done"], shown["at"] = len(results), time.monotonic()
            await _show_progress(progress, len(results), len(items))

    async def one(item: PlannedItem) -> None:
        async with semaphore:
            if watch.stopping:
                return
            earlier = await asyncio.to_thread(recorder.read_item, job, item.item_id)
            if earlier is not None and earlier.status == "completed":
                await done(earlier.model_copy(update={"reused": True}))
                return
            await done(await run_item_child(children, item, options, context, via_deployment))

    try:
        # one synchronous API client for all the items' threads (httpx clients may be shared
        # between threads): a client apiece cost each item a TLS context and a CSRF round trip
        with SyncClientContext.get_or_create():
            await asyncio.gather(*(one(i) for i in items))
    finally:
        watcher.cancel()
    with contextlib.suppress(Exception):  # a cancel of the last seconds too: the server refuses Completed then
        await watch.poll()
    stopped = len(results) < len(items) or watch.stopping  # a stop left items unstarted or stopped them
    if shown["done"] != len(results):
        await _show_progress(progress, len(results), len(items))
    batch = BatchOutcome(
        job_id=job,
        status="stopped" if stopped else "completed",
        storage_url=url,
        items=[results.get(i.item_id) or outcome_after(i, plan.options_hash, None, url) for i in items],
        flow_run_id=str(current_run.id) if current_run.id else None,
    )
    bundle = await asyncio.to_thread(bundle_all_results, url, batch)
    batch = batch.model_copy(update={"all_results_path": bundle})
    await best_effort(batch_summary(batch, get_storage(url).uri(bundle) if bundle else None), "the summary artifact")
    await asyncio.to_thread(recorder.log_job, batch)
    if stopped:
        return Cancelled(message=f"job {job} stopped: {len(results)} of {len(items)} items ran", data=batch)  # type: ignore[return-value]
    return batch


@flow(name="scan-inbox", persist_result=False, log_prints=False)
async def scan_inbox(
    inbox_url: str,
    options: RunOptions | None = None,
    concurrency: ModelCalls = 3,
    storage_url: str | None = None,
    via_deployment: str | None = None,
    lease_seconds: Annotated[float, Field(gt=0)] = 900.0,
    items_in_flight: ItemsInFlight = None,
) -> BatchOutcome | None:
    """Package every recording in the inbox folder/bucket not yet packaged with these options.
    Each is taken with a lease (`lease_seconds`, renewed while the batch runs): a scan that dies
    before packaging leaves it to the next scan once the lease expires."""
    context = RunContext.resolve(storage_url=storage_url)
    settings, url = context.settings, context.storage_url
    options = options or RunOptions()
    claims = await asyncio.to_thread(claim_inbox, inbox_url, options.options_hash(), url,
                                     settings.max_batch_files, settings.max_upload_mb, lease_seconds, scan_owner())  # fmt: skip
    if not claims:
        get_run_logger().info("inbox %s: nothing new", inbox_url)
        return None
    leases = Leases(url, claims, lease_seconds)
    keeper = asyncio.create_task(leases.keep_renewed())
    batch: BatchOutcome | None = None
    try:
        batch = await package_batch(leases.sources, options, concurrency, None, url, via_deployment, items_in_flight)
    finally:
        keeper.cancel()
        await asyncio.to_thread(leases.end, batch)
    return batch


@flow(name="polish", persist_result=False, log_prints=False)
def polish(raw: str, options: RunOptions | None = None) -> PolishedTask:
    """A raw task text -> a polished Chinese and English instruction plus notes."""
    settings = RunContext.resolve().settings
    options = analyzer_key.resolved_sync(options or RunOptions())
    ensure_llm_limit(settings.global_llm_concurrency)
    prefix = "polish-" + hashlib.sha256(raw.encode()).hexdigest()[:20]
    with http_client(Role.POLISH, settings, options, gate=llm_gate(settings.global_llm_concurrency)) as client:
        cached = CachedModelClient(client, key_prefix=prefix, prompt_version=PROMPT_VERSION)
        return polish_task(raw, cached).result
