"""The flows: one recording, a batch, the inbox scan, polish.

A batch fans out one child flow run per recording, named after the file: in one process as
async child flows under a semaphore of `concurrency`; across workers as `run_deployment` of
`package-recording` (the workers of pool `rlauto` pick them up). The flow code is the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from typing import Annotated, Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NONE as NO_CACHE
from prefect.client.schemas.objects import State
from prefect.context import SyncClientContext
from prefect.runtime import flow_run as current_run
from prefect.states import Cancelled, Failed
from pydantic import Field

from flows import analyzer_key, control
from flows.item import ItemRun, ItemStopped
from flows.reporting import batch_summary, item_artifact, start_progress, update_progress
from rlauto_core.analysis import polish_task
from rlauto_core.config import MAX_CONCURRENCY, RunOptions, Settings
from rlauto_core.errors import RecordingError
from rlauto_core.llm import Role, http_client
from rlauto_core.pipeline import BatchOutcome, BatchPlan, ItemOutcome, PlannedItem, plan_batch
from rlauto_core.prompts import PROMPT_VERSION, PolishedTask
from rlauto_core.store import layout, source_name_of
from tasks.inbox import Leases, claim_inbox, scan_owner
from tasks.model_calls import CachedModelClient, ensure_llm_limit, llm_gate
from tasks.storage_io import bundle_all_results, get_storage, json_bytes, read_item_outcome, stage_upload

PACKAGE_RECORDING_DEPLOYMENT = "package-recording/package-recording"
PROGRESS_EVERY = 3.0  # seconds between progress artifact updates


def _item_run_name() -> str:
    params = current_run.parameters
    return str(params.get("source_name") or source_name_of(str(params.get("source", "recording"))))


def _batch_run_name() -> str:
    # a named job names its run at once; otherwise the run is renamed once the plan has its id
    return str(current_run.parameters.get("job_id") or "job-planning")


@flow(name="package-recording", flow_run_name=_item_run_name, persist_result=False, log_prints=False)
async def package_recording(
    source: str,
    options: RunOptions | None = None,
    job_id: str | None = None,
    source_name: str | None = None,
    storage_url: str | None = None,
    memory_path: str | None = None,
) -> ItemOutcome:
    """Package one recording (a path or an fsspec URL). Returns its `ItemOutcome`; a failed item
    ends the flow run Failed with the reason, a stopped one Cancelled. `memory_path`: an
    iteration memory in storage to continue from (the dashboard's regenerate)."""
    settings = Settings()
    run = ItemRun(
        source=source,
        source_name=source_name or source_name_of(source),
        options=await analyzer_key.resolved(options or RunOptions()),  # a Secret block's key, read here
        job_id=job_id,
        storage_url=storage_url or settings.rlauto_storage_url,
        settings=settings,
        flow_run_id=str(current_run.id) if current_run.id else None,
        stop_requested=control.stop_checker(),
        set_state=control.set_item_state,
        memory_path=memory_path,
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


@task(name="stage-uploads", cache_policy=NO_CACHE, persist_result=False)
def stage_uploads(plan: BatchPlan, storage_url: str, max_upload_mb: int) -> list[PlannedItem]:
    """Copy every recording into `uploads/{job}/{item}.zip`, so any worker can read it."""
    storage = get_storage(storage_url)
    for item in plan.items:
        stage_upload(storage, item.source, item, max_upload_mb)
    return plan.items


async def _run_child(item: PlannedItem, options: RunOptions, storage_url: str, via_deployment: str | None) -> State:
    if via_deployment is None:
        # no tags on the child: every task run of a tagged run asks the API for tag concurrency
        # slots, a round trip per task (`rlauto status` finds a job's runs by their job_id)
        return await package_recording(
            item.source, options, item.job_id, item.source_name, storage_url, return_state=True
        )
    from prefect.deployments.flow_runs import arun_deployment

    parameters: dict[str, Any] = {
        "source": get_storage(storage_url).uri(item.upload_path),
        "options": options.model_dump(mode="json", exclude={"api_key"}),  # refused above when set
        "job_id": item.job_id,
        "source_name": item.source_name,
        "storage_url": storage_url,
    }
    child = await arun_deployment(via_deployment, parameters=parameters, timeout=None, poll_interval=1, as_subflow=True)
    assert child.state is not None
    return child.state


def _outcome_after(item: PlannedItem, options_hash: str, state: State | None, storage_url: str) -> ItemOutcome:
    """What became of an item: its `item.json`, or (crashed, stopped, never started) its state."""
    found = read_item_outcome(storage_url, item.job_id, item.item_id)
    if found is not None and (state is None or not state.is_cancelled()):
        return found
    if state is not None and state.is_cancelled():
        status, error = "stopped", state.message or "stopped"
    elif state is None:
        status, error = "stopped", "not started: the batch was cancelled"
    else:
        status, error = "failed", f"{state.name}: {state.message or 'no result'}"
    return ItemOutcome(
        job_id=item.job_id,
        item_id=item.item_id,
        source=item.source,
        source_name=item.source_name,
        source_sha256=item.source_sha256,
        options_hash=options_hash,
        status=status,
        storage_url=storage_url,
        export_dir=layout.export_dir(item.job_id, item.item_id),
        error=error,
    )


@flow(name="package-batch", flow_run_name=_batch_run_name, persist_result=False, log_prints=False)
async def package_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
    via_deployment: str | None = None,
) -> BatchOutcome:
    """Package every recording `sources` name (paths, folders, globs, fsspec URLs), `concurrency`
    at a time (1..8), one child flow run each; completed items of an earlier run of the same job
    are reused, not repeated. Set `via_deployment` to fan out to workers through that deployment."""
    settings = Settings()
    options = options or RunOptions()
    if via_deployment is not None:  # a raw key would be a child's parameter: refused, not dropped
        analyzer_key.refuse_raw_key(options, f"the workers of {via_deployment}")
    await analyzer_key.resolved(options)  # a missing Secret block fails the batch now, not each item
    url = storage_url or settings.rlauto_storage_url
    plan = await asyncio.to_thread(
        plan_batch, list(sources), options, max_files=settings.max_batch_files,
        max_upload_mb=settings.max_upload_mb, job_id=job_id,
    )  # fmt: skip
    if plan.missing or not plan.items:
        raise RecordingError("batch", "; ".join(plan.missing) or "the batch names no recording")
    await control.name_batch_run(plan.job_id)
    items = await asyncio.to_thread(stage_uploads, plan, url, settings.max_upload_mb)
    job = plan.job_id
    progress = await start_progress(job, len(items))
    results: dict[str, ItemOutcome] = {}
    watch = control.BatchWatch(str(current_run.id) if current_run.id else None)
    control.watching(watch)
    await watch.poll()
    watcher = asyncio.create_task(watch.watch())
    semaphore = asyncio.Semaphore(concurrency)
    shown = {"done": 0, "at": 0.0}

    async def done(outcome: ItemOutcome) -> None:
        results[outcome.item_id] = outcome
        # at most one progress update every PROGRESS_EVERY seconds (each is an API write the
        # server pays for while items wait on it); the last one always
        if len(results) == len(items) or time.monotonic() - shown["at"] >= PROGRESS_EVERY:
            shown["done"], shown["at"] = len(results), time.monotonic()
            await update_progress(progress, len(results), len(items))

    async def one(item: PlannedItem) -> None:
        async with semaphore:
            if watch.stopping:
                return
            earlier = await asyncio.to_thread(read_item_outcome, url, job, item.item_id)
            if earlier is not None and earlier.status == "completed":
                await done(earlier.model_copy(update={"reused": True}))
                return
            state = await _run_child(item, options, url, via_deployment)
            await done(await asyncio.to_thread(_outcome_after, item, plan.options_hash, state, url))

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
        await update_progress(progress, len(results), len(items))
    batch = BatchOutcome(
        job_id=job,
        status="stopped" if stopped else "completed",
        storage_url=url,
        items=[results.get(i.item_id) or _outcome_after(i, plan.options_hash, None, url) for i in items],
        flow_run_id=str(current_run.id) if current_run.id else None,
    )
    bundle = await asyncio.to_thread(bundle_all_results, url, batch)
    batch = batch.model_copy(update={"all_results_path": bundle})
    storage = get_storage(url)
    await batch_summary(batch, storage.uri(bundle) if bundle else None)
    storage.write_bytes(layout.job_outcome_path(job), json_bytes(batch))
    if stopped:
        return Cancelled(message=f"job {job} stopped: {len(results)} of {len(items)} items ran", data=batch)  # type: ignore[return-value]
    return batch


@flow(name="scan-inbox", persist_result=False, log_prints=False)
async def scan_inbox(
    inbox_url: str,
    options: RunOptions | None = None,
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = 3,
    storage_url: str | None = None,
    via_deployment: str | None = None,
    lease_seconds: Annotated[float, Field(gt=0)] = 900.0,
) -> BatchOutcome | None:
    """Package every recording in the inbox folder/bucket not yet packaged with these options.
    Each is taken with a lease (`lease_seconds`, renewed while the batch runs): a scan that dies
    before packaging leaves it to the next scan once the lease expires."""
    settings = Settings()
    options = options or RunOptions()
    url = storage_url or settings.rlauto_storage_url
    claims = await asyncio.to_thread(claim_inbox, inbox_url, options.options_hash(), url,
                                     settings.max_batch_files, settings.max_upload_mb, lease_seconds, scan_owner())  # fmt: skip
    if not claims:
        get_run_logger().info("inbox %s: nothing new", inbox_url)
        return None
    leases = Leases(url, claims, lease_seconds)
    keeper = asyncio.create_task(leases.keep_renewed())
    batch: BatchOutcome | None = None
    try:
        batch = await package_batch(leases.sources, options, concurrency, None, url, via_deployment)
    finally:
        keeper.cancel()
        await asyncio.to_thread(leases.end, batch)
    return batch


@flow(name="polish", persist_result=False, log_prints=False)
def polish(raw: str, options: RunOptions | None = None) -> PolishedTask:
    """A raw task text -> a polished Chinese and English instruction plus notes."""
    settings = Settings()
    options = analyzer_key.resolved_sync(options or RunOptions())
    ensure_llm_limit(settings.global_llm_concurrency)
    prefix = "polish-" + hashlib.sha256(raw.encode()).hexdigest()[:20]
    with http_client(Role.POLISH, settings, options, gate=llm_gate(settings.global_llm_concurrency)) as client:
        cached = CachedModelClient(client, key_prefix=prefix, prompt_version=PROMPT_VERSION)
        return polish_task(raw, cached).result
