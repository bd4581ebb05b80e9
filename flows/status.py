"""A job's items as the seed's statuses: finished ones from storage (`item.json`), the rest from
their flow runs' Prefect states."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import BaseModel

from flows import runtime
from rlauto_core.pipeline import ItemOutcome, ItemStatus
from rlauto_core.store import layout
from tasks.storage_io import get_storage


class StatusRow(BaseModel):
    source_name: str
    status: ItemStatus
    verdict: str | None = None
    total_score: int | None = None
    iterations_used: int = 0
    detail: str = ""


def status_of_state(state_type: str, state_name: str) -> ItemStatus:
    """Prefect state -> item status (queued, running, judging, completed, failed, stopped)."""
    if state_name == "Judging":
        return "judging"
    return {
        "SCHEDULED": "queued",
        "PENDING": "queued",
        "RUNNING": "running",
        "COMPLETED": "completed",
        "FAILED": "failed",
        "CRASHED": "failed",
        "CANCELLING": "stopped",
        "CANCELLED": "stopped",
        "PAUSED": "queued",
    }.get(state_type, "queued")  # type: ignore[return-value]


class JobStatus(BaseModel):
    rows: list[StatusRow]
    # why items still running could not be read, when Prefect's API did not answer: finished items
    # are in storage and still shown
    prefect_unreachable: str | None = None


def job_status(job: str, storage_url: str) -> JobStatus:
    storage = get_storage(storage_url)
    rows: dict[str, StatusRow] = {}
    for path in storage.glob(f"{layout.job_exports_dir(job)}/*/item.json"):
        item = ItemOutcome.model_validate_json(storage.read_bytes(path))
        rows[item.source_name] = StatusRow(
            source_name=item.source_name,
            status=item.status,
            verdict=item.verdict,
            total_score=item.total_score,
            iterations_used=item.iterations_used,
            detail=item.uri(item.output_zip_path) or (item.error or ""),
        )
    unreachable = None
    runs: list[tuple[str, str, str]] = []
    if runtime.configure() is not None:
        try:
            runs = _flow_runs(job)
        except httpx.HTTPError as exc:  # refused, timed out, or 5xx after the client's own retries
            from prefect.settings import PREFECT_API_URL

            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            unreachable = f"the Prefect API at {PREFECT_API_URL.value()} did not answer ({reason})"
    for name, state_type, state_name in runs:
        # a finished item's item.json wins; a re-run in flight shows as such
        if name not in rows or state_type in ("RUNNING", "PENDING", "SCHEDULED"):
            rows[name] = StatusRow(source_name=name, status=status_of_state(state_type, state_name),
                                   detail=f"Prefect: {state_name}")  # fmt: skip
    return JobStatus(rows=sorted(rows.values(), key=lambda r: r.source_name), prefect_unreachable=unreachable)


def _flow_runs(job: str) -> list[tuple[str, str, str]]:
    """The job's item runs: by their `job_id` parameter (in-process and worker-run children alike)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowFilter, FlowFilterName
    from prefect.client.schemas.sorting import FlowRunSort

    runs: list[Any] = []
    with get_client(sync_client=True) as client:
        for offset in range(0, 2000, 200):  # the API pages by at most 200
            page = client.read_flow_runs(
                flow_filter=FlowFilter(name=FlowFilterName(any_=["package-recording"])),
                sort=FlowRunSort.EXPECTED_START_TIME_DESC,
                limit=200,
                offset=offset,
            )
            runs += page
            if len(page) < 200:
                break
    mine = [r for r in reversed(runs) if r.parameters.get("job_id") == job]
    return [
        (r.name, r.state.type.value if r.state else "PENDING", r.state.name if r.state else "Pending") for r in mine
    ]
