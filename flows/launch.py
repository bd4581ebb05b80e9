"""Start a batch and return at once: the dashboard's and the CLI's way in.

The batch is planned and staged here, once (`plan_batch`, `stage_plan`), and the flow is handed
that plan. It runs through the `package-batch` deployment when a server with that deployment is
reachable (its workers run it), else in this process on a background thread (the embedded
default). A run's own analyzer key reaches workers only as the name of a Prefect Secret block
(flows/analyzer_key.py). `PrefectLauncher` is what `rlauto dashboard` hands the review app
(`dashboards.launcher.Launcher`).
"""

from __future__ import annotations

from collections.abc import Sequence

from flows import analyzer_key, item_launch, runtime
from flows.run_start import deployment_exists as deployment_exists
from flows.run_start import start_in_process as start_in_process
from rlauto_core.config import PACKAGE_BATCH_DEPLOYMENT as PACKAGE_BATCH_DEPLOYMENT
from rlauto_core.config import RunContext, RunOptions, Settings
from rlauto_core.pipeline import LaunchedRun, plan_batch, stage_plan
from rlauto_core.store import open_storage, store_uploads


def launch_batch(
    sources: list[str],
    options: RunOptions,
    settings: Settings,
    *,
    concurrency: int = 3,
    job_id: str | None = None,
    storage_url: str | None = None,
    items_in_flight: int | None = None,
) -> LaunchedRun:
    runtime.configure()
    context = RunContext.resolve(settings, storage_url)
    plan = plan_batch(
        sources, options, max_files=settings.max_batch_files, max_upload_mb=settings.max_upload_mb, job_id=job_id
    )
    if plan.items and not plan.missing:  # a plan the flow refuses is not staged first
        plan = stage_plan(open_storage(context.storage_url), plan, settings.max_upload_mb)
    job = plan.job_id
    parameters = {
        "sources": sources,  # what the caller named, shown in the UI (and how a batch run is told from an item's)
        "options": options.model_dump(mode="json", exclude={"api_key"}),
        "concurrency": concurrency,
        "job_id": job,
        "storage_url": context.storage_url,
        "items_in_flight": items_in_flight,
        "plan": plan.model_dump(mode="json"),
    }
    if deployment_exists(context.batch_deployment):
        analyzer_key.refuse_raw_key(options, f"the {context.batch_deployment} deployment's workers")
        from prefect.client.schemas.objects import FlowRun
        from prefect.deployments import run_deployment

        run = run_deployment(context.batch_deployment, parameters=parameters, timeout=0, tags=[f"job-{job}"])
        assert isinstance(run, FlowRun)  # sync_compatible: a FlowRun when called from sync code
        return LaunchedRun(
            job_id=job, flow_run_id=str(run.id), ui_url=runtime.ui_url_for(str(run.id)), via="deployment"
        )
    from flows.pipeline import package_batch

    flow_run_id = start_in_process(package_batch, {**parameters, "options": options, "plan": plan}, [f"job-{job}"], job)
    return LaunchedRun(job_id=job, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id), via="in-process")


class PrefectLauncher:
    """Uploads stored under `uploads/{upload_id}/`, then a batch of them whose job is that id."""

    def __init__(self, settings: Settings, storage_url: str) -> None:
        self.context = RunContext.resolve(settings, storage_url)

    def launch(self, files: Sequence[tuple[str, bytes]], options: RunOptions, concurrency: int) -> LaunchedRun:
        settings = self.context.settings
        stored = store_uploads(
            open_storage(self.context.storage_url), files, max_files=settings.max_batch_files,
            max_upload_mb=settings.max_upload_mb,
        )  # fmt: skip
        return launch_batch(stored.uris, options, settings, concurrency=concurrency, job_id=stored.upload_id,
                            storage_url=self.context.storage_url)  # fmt: skip

    def retry_item(self, job_id: str, item_id: str) -> LaunchedRun:
        return item_launch.retry_item(self.context.storage_url, job_id, item_id)

    def regenerate_item(self, job_id: str, item_id: str, comment: str) -> LaunchedRun:
        return item_launch.regenerate_item(self.context.storage_url, job_id, item_id, comment)

    def stop_job(self, job_id: str) -> list[str]:
        from flows.job_stop import stop_job_runs

        return stop_job_runs(job_id)
