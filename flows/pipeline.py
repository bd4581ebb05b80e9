"""The flows: one recording, a batch, the inbox scan, polish.

A batch fans out one child flow run per recording, named after the file: in one process as
async child flows under a semaphore of `concurrency`; across workers as `run_deployment` of
`package-recording` (the workers of pool `rlauto` pick them up). The flow code is the same.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from datetime import UTC, datetime
from typing import Annotated, Any

from prefect import flow, get_run_logger, tags, task
from prefect.cache_policies import NONE as NO_CACHE
from prefect.context import SyncClientContext
from prefect.runtime import flow_run as current_run
from prefect.states import Cancelled, Failed, State
from pydantic import Field

from flows import control
from flows.item import ItemRun, ItemStopped
from flows.reporting import batch_summary, item_artifacts, start_progress, update_progress
from flows.sources import expand_sources
from rlauto_core.analysis.polish import polish_task
from rlauto_core.config.options import MAX_CONCURRENCY, RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.errors import ConfigError, RecordingError
from rlauto_core.llm.factory import http_client
from rlauto_core.llm.types import Role
from rlauto_core.prompts import PROMPT_VERSION
from rlauto_core.store import layout
from tasks.model_calls import CachedModelClient, ensure_llm_limit, llm_gate
from tasks.models import BatchResult, ItemResult, PolishResult, UploadRef
from tasks.storage_io import (
    bundle_all_results,
    get_storage,
    put_upload,
    read_item_outcome,
    source_name_of,
    stage,
    storage_url_or_default,
)

PACKAGE_RECORDING_DEPLOYMENT = "package-recording/package-recording"


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
) -> ItemResult:
    """Package one recording (a path or an fsspec URL). Returns its `ItemResult`; a failed item
    ends the flow run Failed with the reason, a stopped one Cancelled."""
    settings = Settings()
    run = ItemRun(
        source=source,
        source_name=source_name or source_name_of(source),
        options=options or RunOptions(),
        job_id=job_id,
        storage_url=storage_url_or_default(storage_url),
        settings=settings,
        flow_run_id=str(current_run.id) if current_run.id else None,
        stop_requested=control.stop_checker(),
        set_state=control.set_item_state,
    )
    try:
        # the steps are synchronous; a thread keeps this run's event loop free for its siblings
        result = await control.in_item_thread(run.run)
    except ItemStopped as exc:
        return Cancelled(message=f"stopped: {exc}")  # type: ignore[return-value]
    await item_artifacts(result, run.flags)
    if result.status != "completed":
        return Failed(message=f"{result.source_name}: {result.error}", data=result)  # type: ignore[return-value]
    return result


@task(name="stage-uploads", cache_policy=NO_CACHE, persist_result=False)
def stage_uploads(
    sources: list[str], options_hash: str, job_id: str | None, storage_url: str, max_upload_mb: int
) -> list[UploadRef]:
    """Copy every recording into `uploads/{job}/{item}.zip`, so any worker can read it."""
    storage = get_storage(storage_url)
    staged = [stage(s, options_hash, max_upload_mb) for s in sources]
    job = layout.safe_job_id(job_id) if job_id else layout.batch_job_id([u.item_id for _, u in staged])
    return [put_upload(storage, data, ref, job) for data, ref in staged]


async def _run_child(upload: UploadRef, options: RunOptions, storage_url: str, via_deployment: str | None) -> State:
    if via_deployment is None:
        with tags(f"job-{upload.job_id}"):  # `rlauto status JOB` finds the job's runs by this tag
            return await package_recording(  # type: ignore[no-any-return]
                upload.source, options, upload.job_id, upload.source_name, storage_url, return_state=True
            )
    from prefect.deployments import run_deployment

    parameters: dict[str, Any] = {
        "source": get_storage(storage_url).uri(upload.upload_path),
        "options": options.model_dump(mode="json", exclude={"api_key"}),
        "job_id": upload.job_id,
        "source_name": upload.source_name,
        "storage_url": storage_url,
    }
    child = await run_deployment(via_deployment, parameters=parameters, timeout=None, poll_interval=1, as_subflow=True)
    return child.state  # type: ignore[return-value]


def _outcome_after(upload: UploadRef, state: State | None, storage_url: str) -> ItemResult:
    """What became of an item: its `item.json`, or (crashed, stopped, never started) its state."""
    found = read_item_outcome(storage_url, upload.job_id, upload.item_id)
    if found is not None and (state is None or not state.is_cancelled()):
        return found
    if state is not None and state.is_cancelled():
        status, error = "stopped", state.message or "stopped"
    elif state is None:
        status, error = "stopped", "not started: the batch was cancelled"
    else:
        status, error = "failed", f"{state.name}: {state.message or 'no result'}"
    return ItemResult(
        job_id=upload.job_id,
        item_id=upload.item_id,
        source=upload.source,
        source_name=upload.source_name,
        source_sha256=upload.source_sha256,
        options_hash=upload.options_hash,
        status=status,  # type: ignore[arg-type]
        storage_url=storage_url,
        export_dir=layout.export_dir(upload.job_id, upload.item_id),
        error=error,
    )


@flow(name="package-batch", persist_result=False, log_prints=False)
async def package_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
    via_deployment: str | None = None,
) -> BatchResult:
    """Package every recording `sources` name (paths, folders, globs, fsspec URLs), `concurrency`
    at a time (1..8), one child flow run each; completed items of an earlier run of the same job
    are reused, not repeated. Set `via_deployment` to fan out to workers through that deployment."""
    settings = Settings()
    options = options or RunOptions()
    url = storage_url_or_default(storage_url)
    files = await asyncio.to_thread(expand_sources, list(sources), settings.max_batch_files)
    uploads = await asyncio.to_thread(stage_uploads, files, options.options_hash(), job_id, url, settings.max_upload_mb)
    if not uploads:
        raise ConfigError("the batch names no recording")
    job = uploads[0].job_id
    progress = await start_progress(job, len(uploads))
    results: dict[str, ItemResult] = {}
    watch = control.BatchWatch(str(current_run.id) if current_run.id else None)
    control.watching(watch)
    await watch.poll()
    watcher = asyncio.create_task(watch.watch())
    semaphore = asyncio.Semaphore(concurrency)
    shown = {"done": 0, "at": 0.0}

    async def done(result: ItemResult) -> None:
        results[result.item_id] = result
        # at most one progress update a second (each is an API write); the last one always
        if len(results) == len(uploads) or time.monotonic() - shown["at"] >= 1.0:
            shown["done"], shown["at"] = len(results), time.monotonic()
            await update_progress(progress, len(results), len(uploads))

    async def one(upload: UploadRef) -> None:
        async with semaphore:
            if watch.stopping:
                return
            earlier = await asyncio.to_thread(read_item_outcome, url, job, upload.item_id)
            if earlier is not None and earlier.status == "completed":
                await done(earlier.model_copy(update={"reused": True}))
                return
            state = await _run_child(upload, options, url, via_deployment)
            await done(await asyncio.to_thread(_outcome_after, upload, state, url))

    try:
        # one synchronous API client for all the items' threads (httpx clients may be shared
        # between threads): a client apiece cost each item a TLS context and a CSRF round trip
        with SyncClientContext.get_or_create():
            await asyncio.gather(*(one(u) for u in uploads))
    finally:
        watcher.cancel()
    cancelled = len(results) < len(uploads)  # a stop left some items unstarted
    if shown["done"] != len(results):
        await update_progress(progress, len(results), len(uploads))
    items = [results.get(u.item_id) or _outcome_after(u, None, url) for u in uploads]
    bundle = await asyncio.to_thread(bundle_all_results, url, job, items)
    storage = get_storage(url)
    await batch_summary(job, items, storage.uri(bundle) if bundle else None)
    result = BatchResult(
        job_id=job,
        status="cancelled" if cancelled else "completed",
        storage_url=url,
        items=items,
        all_results_path=bundle,
        flow_run_id=str(current_run.id) if current_run.id else None,
    )
    storage.write_bytes(f"{layout.job_exports_dir(job)}/job.json", result.model_dump_json(indent=2).encode())
    if cancelled:
        return Cancelled(message=f"job {job} cancelled: {len(results)} of {len(uploads)} items ran", data=result)  # type: ignore[return-value]
    return result


@task(name="claim-inbox", cache_policy=NO_CACHE, persist_result=False)
def claim_inbox(inbox_url: str, options_hash: str, storage_url: str, max_files: int, max_upload_mb: int) -> list[str]:
    """The inbox recordings this scan takes: each is claimed with a create-if-absent marker, so
    of two overlapping scans exactly one packages it."""
    storage = get_storage(storage_url)
    try:
        candidates = expand_sources([inbox_url.rstrip("/") + "/"], max_files=10**9)
    except RecordingError:  # an empty inbox
        return []
    claimed: list[str] = []
    for source in candidates:
        if len(claimed) >= max_files:
            break  # the rest waits for the next scan
        _, ref = stage(source, options_hash, max_upload_mb)
        marker = json.dumps(
            {"source": source, "flow_run_id": str(current_run.id), "claimed_at": datetime.now(UTC).isoformat()}
        ).encode()
        if storage.create_exclusive(layout.claim_path(options_hash, ref.source_sha256), marker):
            claimed.append(source)
    return claimed


@flow(name="scan-inbox", persist_result=False, log_prints=False)
async def scan_inbox(
    inbox_url: str,
    options: RunOptions | None = None,
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)] = 3,
    storage_url: str | None = None,
    via_deployment: str | None = None,
) -> BatchResult | None:
    """Package every recording in the inbox folder/bucket not yet packaged with these options."""
    settings = Settings()
    options = options or RunOptions()
    url = storage_url_or_default(storage_url)
    claimed = await asyncio.to_thread(
        claim_inbox, inbox_url, options.options_hash(), url, settings.max_batch_files, settings.max_upload_mb
    )
    if not claimed:
        get_run_logger().info("inbox %s: nothing new", inbox_url)
        return None
    return await package_batch(claimed, options, concurrency, None, url, via_deployment)  # type: ignore[no-any-return]


@flow(name="polish", persist_result=False, log_prints=False)
def polish(raw: str, options: RunOptions | None = None) -> PolishResult:
    """A raw task text -> a polished Chinese and English instruction plus notes."""
    settings = Settings()
    ensure_llm_limit(settings.global_llm_concurrency)
    prefix = "polish-" + hashlib.sha256(raw.encode()).hexdigest()[:20]
    with http_client(Role.POLISH, settings, options, gate=llm_gate(settings.global_llm_concurrency)) as client:
        cached = CachedModelClient(client, key_prefix=prefix, prompt_version=PROMPT_VERSION)
        outcome = polish_task(raw, cached)
    return PolishResult(zh=outcome.result.zh, en=outcome.result.en, notes=outcome.result.notes)
