"""Where a planted secret could end up, read back through the Prefect API and from storage.

`prefect_holdings(since)` gathers, per channel, every text the Prefect server holds about the
flow runs created since then: the flow runs (parameters, state messages, labels), their task
runs (inputs, names, states), their logs, their artifacts, and every event in that window
(`/events/filter`). `storage_holdings` reads every file the backend lists (temp files
included), opening ZIPs (nested too) and parquet files, whose compression would hide a string
from a plain byte search.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any
from uuid import UUID

import httpx
import pyarrow.parquet as pq
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    FlowRunFilter,
    FlowRunFilterExpectedStartTime,
    LogFilter,
    LogFilterFlowRunId,
    TaskRunFilter,
    TaskRunFilterFlowRunId,
)

from rlauto_core.store.storage import FsspecStorage
from tests.orchestration.backend import backend_files

CHANNELS = ("flow runs", "task runs", "logs", "artifacts", "events")
PAGE = 200


def _paged(read: Callable[[int, int], list[Any]]) -> Iterator[Any]:
    offset = 0
    while True:
        page = read(PAGE, offset)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE


def prefect_holdings(since: datetime) -> dict[str, list[str]]:
    held: dict[str, list[str]] = {channel: [] for channel in CHANNELS}
    with get_client(sync_client=True) as client:
        window = FlowRunFilter(expected_start_time=FlowRunFilterExpectedStartTime(after_=since))
        runs = list(_paged(lambda limit, offset: client.read_flow_runs(flow_run_filter=window, limit=limit,
                                                                       offset=offset)))  # fmt: skip
        ids: list[UUID] = [r.id for r in runs]
        held["flow runs"] = [r.model_dump_json() for r in runs]
        if ids:
            tasks = TaskRunFilter(flow_run_id=TaskRunFilterFlowRunId(any_=ids))
            logs = LogFilter(flow_run_id=LogFilterFlowRunId(any_=ids))
            artifacts = ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=ids))
            reads: dict[str, Callable[[int, int], list[Any]]] = {
                "task runs": lambda n, at: client.read_task_runs(task_run_filter=tasks, limit=n, offset=at),
                "logs": lambda n, at: client.read_logs(log_filter=logs, limit=n, offset=at),
                "artifacts": lambda n, at: client.read_artifacts(artifact_filter=artifacts, limit=n, offset=at),
            }
            for channel, read in reads.items():
                held[channel] = [found.model_dump_json() for found in _paged(read)]
    held["events"] = [json.dumps(e) for e in events_since(since)]
    return held


def events_since(since: datetime) -> list[dict[str, Any]]:
    """Every event the server recorded since `since` (any resource)."""
    return read_events({"occurred": {"since": since.isoformat()}})


def read_events(event_filter: dict[str, Any]) -> list[dict[str, Any]]:
    """Every event matching `event_filter` (the API's /events/filter body), following its pages."""
    api = os.environ["PREFECT_API_URL"]
    answer = httpx.post(f"{api}/events/filter", json={"filter": event_filter, "limit": 50}, timeout=30)
    events: list[dict[str, Any]] = []
    while True:
        answer.raise_for_status()
        page = answer.json()
        events += page["events"]
        if not page.get("next_page"):
            return events
        answer = httpx.get(page["next_page"], timeout=30)


def found_in(held: dict[str, list[str]], needles: Iterable[str]) -> dict[str, list[str]]:
    """channel -> the needles found in it (only channels with a find)."""
    hits: dict[str, list[str]] = {}
    for channel, texts in held.items():
        present = [n for n in needles if any(n in text for text in texts)]
        if present:
            hits[channel] = present
    return hits


def _texts_of(name: str, data: bytes) -> Iterator[tuple[str, str]]:
    if data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for info in archive.infolist():
                yield from _texts_of(f"{name}!{info.filename}", archive.read(info))
        return
    if name.endswith(".parquet"):
        yield name, json.dumps(pq.read_table(io.BytesIO(data)).to_pylist(), default=str, ensure_ascii=False)
        return
    yield name, data.decode("utf-8", "replace")


def storage_holdings(storage: FsspecStorage) -> list[tuple[str, str]]:
    """(path, text) of every file under the storage root, ZIP members and parquet rows opened."""
    out: list[tuple[str, str]] = []
    for path in backend_files(storage, ""):
        with storage.fs.open(storage.full_path(path), "rb") as handle:
            out.extend(_texts_of(path, handle.read()))
    return out
