"""Start one item again and return at once: the dashboard's retry and regenerate.

What to run is planned in the core (`rlauto_core.pipeline.plan_retry` / `plan_regenerate`)
from storage; the options are the item's own run's, read back from Prefect (its flow-run
parameters: never a key). The run is a `package-recording` flow run, through that deployment
when the server has it (the workers run it), else in this process on a background thread.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flows import runtime
from flows.run_start import deployment_exists, start_in_process
from rlauto_core.config import PACKAGE_RECORDING_DEPLOYMENT, RunOptions
from rlauto_core.pipeline import ItemRerun, LaunchedRun, RerunError, plan_regenerate, plan_retry, stored_outcome
from rlauto_core.store import open_storage


def options_of_run(flow_run_id: str | None, item_id: str) -> RunOptions:
    """The options an item's flow run was started with (its `options` parameter)."""
    if not flow_run_id:
        raise RerunError(f"item {item_id}: no flow run is recorded for it, so its options are unknown")
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound
    from pydantic import ValidationError

    try:
        with get_client(sync_client=True) as client:
            run = client.read_flow_run(UUID(flow_run_id))
    except (ObjectNotFound, ValueError):
        raise RerunError(f"item {item_id}: its flow run {flow_run_id} is not on this Prefect server") from None
    raw: Any = run.parameters.get("options") or {}
    if not isinstance(raw, dict):
        raise RerunError(f"item {item_id}: flow run {flow_run_id} has no readable options")
    # a key never travels back: the deployment's own applies (and a masked one is no key)
    kept = {k: v for k, v in raw.items() if k not in ("api_key", "apiKey", "api_key_set")}
    try:
        return RunOptions.model_validate(kept)
    except ValidationError as exc:
        raise RerunError(f"item {item_id}: flow run {flow_run_id}'s options: {exc.errors()[0]['msg']}") from None


def start_item(rerun: ItemRerun, storage_url: str) -> LaunchedRun:
    parameters: dict[str, Any] = {
        "source": rerun.source,
        "options": rerun.options.model_dump(mode="json", exclude={"api_key"}),
        "job_id": rerun.job_id,
        "source_name": rerun.source_name,
        "storage_url": storage_url,
        "memory_path": rerun.memory_path,
    }
    tags = [f"job-{rerun.job_id}"]
    if deployment_exists(PACKAGE_RECORDING_DEPLOYMENT):
        from prefect.client.schemas.objects import FlowRun
        from prefect.deployments import run_deployment

        run = run_deployment(PACKAGE_RECORDING_DEPLOYMENT, parameters=parameters, timeout=0, tags=tags)
        assert isinstance(run, FlowRun)
        flow_run_id, via = str(run.id), "deployment"
    else:
        from flows.pipeline import package_recording

        flow_run_id = start_in_process(package_recording, {**parameters, "options": rerun.options}, tags,
                                       rerun.source_name)  # fmt: skip
        via = "in-process"
    return LaunchedRun(job_id=rerun.job_id, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id),
                       via=via, item_id=rerun.item_id)  # fmt: skip


def retry_item(storage_url: str, job_id: str, item_id: str) -> LaunchedRun:
    runtime.configure()
    storage = open_storage(storage_url)
    outcome = stored_outcome(storage, job_id, item_id)
    options = options_of_run(outcome.flow_run_id, item_id)
    return start_item(plan_retry(storage, outcome, options), storage_url)


def regenerate_item(storage_url: str, job_id: str, item_id: str, comment: str) -> LaunchedRun:
    runtime.configure()
    storage = open_storage(storage_url)
    outcome = stored_outcome(storage, job_id, item_id)
    options = options_of_run(outcome.flow_run_id, item_id)
    return start_item(plan_regenerate(storage, outcome, options, comment), storage_url)
