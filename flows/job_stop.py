"""Stop a job's unfinished flow runs and wait until they have ended: what the dashboard does
before it deletes the job, so no run writes into the job's folders after they are gone.

A job's runs are its batch (`package-batch`) and its items (`package-recording`: a batch's
children, a retry, a regenerate), found among the unfinished runs by their `job_id` parameter
or their `job-<id>` tag. A run that has not started (scheduled, pending, paused) is cancelled at
once; a running batch or lone item is asked to cancel (Cancelling): a worker stops its process,
a run in a dashboard's or CLI's process stops at its next step boundary (flows/control.py), and a
batch's running items stop with their batch. The wait re-asks a run that went back to Running
(an item marks itself "Judging" with a forced state write). A run whose process is gone (a
restarted dashboard) never ends: the deletion is then refused, naming it.
"""

from __future__ import annotations

import time
from typing import Any
from uuid import UUID

from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.client.schemas.filters import (
    FlowFilter,
    FlowFilterName,
    FlowRunFilter,
    FlowRunFilterState,
    FlowRunFilterStateType,
)
from prefect.client.schemas.objects import FlowRun, StateType
from prefect.states import Cancelled, Cancelling

from rlauto_core.store import JobDeletionError, checked_job_id

JOB_FLOWS = ["package-batch", "package-recording"]
UNFINISHED = [StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING, StateType.PAUSED, StateType.CANCELLING]
NOT_STARTED = {StateType.SCHEDULED, StateType.PENDING, StateType.PAUSED}
STOP_TIMEOUT = 120.0  # seconds; an in-process item stops after its current model call
POLL_SECONDS = 0.5


def _label(run: FlowRun) -> str:
    flow = "batch" if run.parameters.get("sources") is not None else "item"
    return f"{run.name} ({flow})"


def unfinished_runs(client: SyncPrefectClient, job_id: str) -> list[FlowRun]:
    """The job's runs that have not ended, batch first."""
    found: list[FlowRun] = []
    for offset in range(0, 10_000, 200):  # the API pages by at most 200
        page = client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=JOB_FLOWS)),
            flow_run_filter=FlowRunFilter(state=FlowRunFilterState(type=FlowRunFilterStateType(any_=UNFINISHED))),
            limit=200,
            offset=offset,
        )
        found += [run for run in page if run.parameters.get("job_id") == job_id or f"job-{job_id}" in run.tags]
        if len(page) < 200:
            break
    return sorted(found, key=lambda run: run.parameters.get("sources") is None)


def _ask_to_stop(client: SyncPrefectClient, run: FlowRun) -> None:
    kind = run.state.type if run.state is not None else StateType.PENDING
    if kind is StateType.CANCELLING or (run.parent_task_run_id is not None and kind not in NOT_STARTED):
        # a batch's running item stops with its batch (it watches it) and then ends Cancelled;
        # a Cancelling of its own would be left standing if it finished its step instead
        return
    state: Any = (
        Cancelled(message="its job is being deleted")
        if kind in NOT_STARTED
        else Cancelling(message="its job is being deleted")
    )
    client.set_flow_run_state(UUID(str(run.id)), state, force=True)


def stop_job_runs(job_id: str, timeout: float = STOP_TIMEOUT, poll: float = POLL_SECONDS) -> list[str]:
    """Cancel the job's unfinished runs and wait until every one has ended; returns the runs it
    stopped ("name (batch|item)"). Raises `JobDeletionError` naming the runs still going after
    `timeout` seconds (the job is then not to be deleted yet)."""
    job = checked_job_id(job_id, JobDeletionError)
    stopped: dict[UUID, str] = {}
    deadline = time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            going = unfinished_runs(client, job)
            if not going:
                return list(stopped.values())
            if time.monotonic() > deadline:
                names = ", ".join(_label(run) for run in going)
                raise JobDeletionError(
                    f"job {job}: {len(going)} runs still stopping after {timeout:.0f} s ({names}); nothing was "
                    "deleted: delete the job again once they have stopped (a run whose process is gone never "
                    "does: mark it Cancelled in the Prefect UI)"
                )
            for run in going:
                stopped.setdefault(run.id, _label(run))
                _ask_to_stop(client, run)
            time.sleep(poll)
