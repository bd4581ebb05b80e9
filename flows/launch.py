"""Start a batch and return at once: the dashboard's and the CLI's way in.

Through the `package-batch` deployment when a server with that deployment is reachable (its
workers run it), else in this process on a background thread (the embedded default). A run's
own analyzer key reaches workers only as the name of a Prefect Secret block (flows/analyzer_key.py).
`PrefectLauncher` is what `rlauto dashboard` hands the review app (`dashboards.launcher.Launcher`).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from flows import analyzer_key, runtime
from rlauto_core.config import RunOptions, Settings
from rlauto_core.pipeline import LaunchedRun, plan_batch
from rlauto_core.store import open_storage, store_uploads

PACKAGE_BATCH_DEPLOYMENT = "package-batch/package-batch"


def launch_batch(
    sources: list[str],
    options: RunOptions,
    settings: Settings,
    *,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
) -> LaunchedRun:
    runtime.configure()
    url = storage_url or settings.rlauto_storage_url
    plan = plan_batch(
        sources, options, max_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb, job_id=job_id
    )
    job = plan.job_id
    parameters = {
        "sources": sources,
        "options": options.model_dump(mode="json", exclude={"api_key"}),
        "concurrency": concurrency,
        "job_id": job,
        "storage_url": url,
    }
    if deployment_exists(PACKAGE_BATCH_DEPLOYMENT):
        analyzer_key.refuse_raw_key(options, f"the {PACKAGE_BATCH_DEPLOYMENT} deployment's workers")
        from prefect.client.schemas.objects import FlowRun
        from prefect.deployments import run_deployment

        run = run_deployment(PACKAGE_BATCH_DEPLOYMENT, parameters=parameters, timeout=0, tags=[f"job-{job}"])
        assert isinstance(run, FlowRun)  # sync_compatible: a FlowRun when called from sync code
        return LaunchedRun(
            job_id=job, flow_run_id=str(run.id), ui_url=runtime.ui_url_for(str(run.id)), via="deployment"
        )
    from flows.pipeline import package_batch

    flow_run_id = start_in_process(package_batch, {**parameters, "options": options}, [f"job-{job}"], job)
    return LaunchedRun(job_id=job, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id), via="in-process")


class PrefectLauncher:
    """Uploads stored under `uploads/{upload_id}/`, then a batch of them whose job is that id."""

    def __init__(self, settings: Settings, storage_url: str) -> None:
        self.settings, self.storage_url = settings, storage_url

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        stored = store_uploads(
            open_storage(self.storage_url), files, max_files=self.settings.max_batch_files,
            max_upload_mb=self.settings.max_upload_mb,
        )  # fmt: skip
        return launch_batch(stored.uris, options, self.settings, concurrency=concurrency, job_id=stored.upload_id,
                            storage_url=self.storage_url)  # fmt: skip

    def retry_item(self, job_id: str, item_id: str) -> LaunchedRun:
        from flows.item_launch import retry_item

        return retry_item(self.storage_url, job_id, item_id)

    def regenerate_item(self, job_id: str, item_id: str, comment: str) -> LaunchedRun:
        from flows.item_launch import regenerate_item

        return regenerate_item(self.storage_url, job_id, item_id, comment)

    def stop_job(self, job_id: str) -> list[str]:
        from flows.job_stop import stop_job_runs

        return stop_job_runs(job_id)


def deployment_exists(name: str) -> bool:
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


def settle_cancelling(flow_run_id: UUID) -> None:
    """A run of this process that ended while Cancelling (its job being deleted; the server
    refuses any end but Cancelled) is Cancelled: no worker is there to say so."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        state = client.read_flow_run(flow_run_id).state
        if state is not None and state.type is StateType.CANCELLING:
            client.set_flow_run_state(flow_run_id, Cancelled(message="stopped: its job is being deleted"), force=True)


def start_in_process(flow: Any, parameters: dict[str, object], tags: list[str], name: str) -> str:
    """Create the flow run first (so its id is known), then run it on a daemon thread."""
    from prefect.client.orchestration import get_client
    from prefect.flow_engine import run_flow

    with get_client(sync_client=True) as client:
        flow_run = client.create_flow_run(flow, parameters=parameters, tags=tags, name=name)

    def run() -> None:
        # the final state is the answer (a failed item ends its run Failed): nothing to raise here
        asyncio.run(run_flow(flow, flow_run=flow_run, parameters=parameters, return_type="state"))  # type: ignore[arg-type]
        settle_cancelling(flow_run.id)

    # the thread must see this context's Prefect settings (API URL), not the import-time defaults
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name=f"rlauto-{name}", daemon=True).start()
    return str(flow_run.id)
