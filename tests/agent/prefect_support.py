"""Reading what an agent flow run left in Prefect, through its API, and running flows on threads."""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    FlowFilter,
    FlowFilterName,
    LogFilter,
    LogFilterFlowRunId,
)
from prefect.client.schemas.objects import FlowRun
from prefect.client.schemas.sorting import FlowRunSort

from rlauto_core.agent.events import EventLog
from rlauto_core.store.storage import FsspecStorage


def wait_for(condition: Callable[[], Any], timeout: float = 120, out: dict[str, Any] | None = None) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if out and "error" in out:
            raise out["error"]
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.2)
    return value


def in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = target()
        except BaseException as exc:
            out["error"] = exc

    # Prefect's settings (the session server's URL) live in a context variable: carry it over
    thread = threading.Thread(target=contextvars.copy_context().run, args=(run,), daemon=True)
    thread.start()
    return thread, out


def agent_flow_runs(limit: int = 10) -> list[FlowRun]:
    with get_client(sync_client=True) as client:
        return client.read_flow_runs(
            flow_filter=FlowFilter(name=FlowFilterName(any_=["run-agent"])), sort=FlowRunSort.START_TIME_DESC,
            limit=limit,
        )  # fmt: skip


def flow_run(flow_run_id: UUID | str) -> FlowRun:
    with get_client(sync_client=True) as client:
        return client.read_flow_run(UUID(str(flow_run_id)))


def artifacts_of(flow_run_id: UUID | str) -> list[Any]:
    with get_client(sync_client=True) as client:
        return client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[UUID(str(flow_run_id))]))
        )


def logs_of(flow_run_id: UUID | str) -> list[str]:
    with get_client(sync_client=True) as client:
        logs = client.read_logs(LogFilter(flow_run_id=LogFilterFlowRunId(any_=[UUID(str(flow_run_id))])))
    return [log.message for log in logs]


def prefect_events(flow_run_id: UUID | str) -> list[dict[str, Any]]:
    """Every Prefect event about the flow run (its own state changes and ours), from the API."""
    from tests.orchestration.leak_scan import read_events

    return read_events(
        {"any_resource": {"id": [f"prefect.flow-run.{flow_run_id}"]}, "occurred": {"since": "2000-01-01T00:00:00Z"}}
    )


def run_events(storage: FsspecStorage, run_id: str) -> list[Any]:
    return [logged.event for logged in EventLog(storage, run_id).read(0)]
