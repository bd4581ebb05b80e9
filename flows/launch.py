"""Start a batch and return at once: the dashboard's and the CLI's way in.

Through the `package-batch` deployment when a server with that deployment is reachable (its
workers run it), else in this process on a background thread (the embedded default).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading

from pydantic import BaseModel

from flows import runtime
from flows.sources import expand_sources
from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.store import layout
from tasks.storage_io import stage, storage_url_or_default

PACKAGE_BATCH_DEPLOYMENT = "package-batch/package-batch"


class LaunchedRun(BaseModel):
    job_id: str
    flow_run_id: str
    ui_url: str | None = None
    via: str  # "deployment" | "in-process"


def planned_job_id(sources: list[str], options: RunOptions) -> str:
    """The job id the batch will use: stable for the same recordings and options."""
    settings = Settings()
    files = expand_sources(sources, settings.max_batch_files)
    items = [stage(f, options.options_hash(), settings.max_upload_mb)[1].item_id for f in files]
    return layout.batch_job_id(items)


def launch_batch(
    sources: list[str],
    options: RunOptions | None = None,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
) -> LaunchedRun:
    runtime.configure()
    options = options or RunOptions()
    url = storage_url_or_default(storage_url)
    job = layout.safe_job_id(job_id) if job_id else planned_job_id(sources, options)
    parameters = {
        "sources": sources,
        "options": options.model_dump(mode="json", exclude={"api_key"}),
        "concurrency": concurrency,
        "job_id": job,
        "storage_url": url,
    }
    deployed = _deployment_exists(PACKAGE_BATCH_DEPLOYMENT)
    if deployed:
        from prefect.deployments import run_deployment

        run = run_deployment(PACKAGE_BATCH_DEPLOYMENT, parameters=parameters, timeout=0, tags=[f"job-{job}"])
        return LaunchedRun(
            job_id=job, flow_run_id=str(run.id), ui_url=runtime.ui_url_for(str(run.id)), via="deployment"
        )
    flow_run_id = _start_in_process(sources, options, concurrency, job, url)
    return LaunchedRun(job_id=job, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id), via="in-process")


def _deployment_exists(name: str) -> bool:
    import os

    if not os.environ.get("PREFECT_API_URL"):
        return False
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    try:
        with get_client(sync_client=True) as client:
            client.read_deployment_by_name(name)
    except ObjectNotFound:
        return False
    return True


def _start_in_process(sources: list[str], options: RunOptions, concurrency: int, job: str, url: str) -> str:
    """Create the batch's flow run first (so its id is known), then run it on a daemon thread."""
    from prefect.client.orchestration import get_client
    from prefect.flow_engine import run_flow

    from flows.pipeline import package_batch

    parameters = {"sources": sources, "options": options, "concurrency": concurrency, "job_id": job,
                  "storage_url": url}  # fmt: skip
    with get_client(sync_client=True) as client:
        flow_run = client.create_flow_run(package_batch, parameters=parameters, tags=[f"job-{job}"])

    def run() -> None:
        asyncio.run(run_flow(package_batch, flow_run=flow_run, parameters=parameters))  # type: ignore[arg-type]

    # the thread must see this context's Prefect settings (API URL), not the import-time defaults
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name=f"rlauto-{job}", daemon=True).start()
    return str(flow_run.id)
