"""What the tuned and held-out corpora share: a fixed clock, call logs, deterministic ZIP/HAR writers.

Each app of a corpus is a small simulator: it plays a script of user actions against an
in-memory server state and logs the calls a recorder would capture. The recording is one run;
the `good` attempt is the same script run again later (other server ids, versions, clocks,
request ids, noise, no failed retry); the wrong attempts change the script (another entity,
a step left out, two steps swapped), so their database diff is what that script really leaves.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from io import BytesIO
from pathlib import Path
from typing import Any

ZIP_DATE = (2026, 5, 11, 8, 30, 0)
JSON = {"content-type": "application/json; charset=utf-8"}
KINDS = ("good", "empty", "missing_write", "wrong_entity", "wrong_order", "wrong_answer")


def jdump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Clock:
    now: datetime

    def tick(self, ms: int) -> datetime:
        self.now = self.now + timedelta(milliseconds=ms)
        return self.now


def clock(year: int, month: int, day: int, hour: int, minute: int) -> Clock:
    return Clock(datetime(year, month, day, hour, minute, tzinfo=UTC))


@dataclass
class HttpLog:
    """Echo `network.json` requests, ids `<prefix>1..N`."""

    clock: Clock
    page: str
    prefix: str = "r"
    requests: list[dict[str, Any]] = field(default_factory=list)

    def call(
        self,
        method: str,
        url: str,
        *,
        status: int,
        body: Any = None,
        response: Any = None,
        headers: dict[str, str] | None = None,
        response_headers: dict[str, str] | None = None,
        resource_type: str = "fetch",
        gap_ms: int = 180,
    ) -> str:
        started = self.clock.tick(gap_ms)
        cid = f"{self.prefix}{len(self.requests) + 1}"
        request_headers = {"accept": "application/json", **(headers or {})}
        if body is not None and not isinstance(body, str):
            request_headers.setdefault("content-type", "application/json")
        self.requests.append(
            {
                "id": cid,
                "startedAt": iso(started),
                "durationMs": 95,
                "method": method,
                "url": url,
                "resourceType": resource_type,
                "requestHeaders": request_headers,
                "requestBody": body if body is None or isinstance(body, str) else jdump(body),
                "status": status,
                "responseHeaders": dict(response_headers if response_headers is not None else JSON),
                "responseBody": response if response is None or isinstance(response, str) else jdump(response),
                "pageUrl": self.page,
            }
        )
        return cid


@dataclass
class ToolLog:
    """Echo `mcp_calls.json` calls, ids `<prefix>1..N`."""

    clock: Clock
    server: str
    prefix: str = "c"
    calls: list[dict[str, Any]] = field(default_factory=list)

    def call(
        self, tool: str, arguments: dict[str, Any], structured: Any = None, *, is_error: bool = False, gap_ms: int = 600
    ) -> str:
        started = self.clock.tick(gap_ms)
        cid = f"{self.prefix}{len(self.calls) + 1}"
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": jdump(structured) if structured is not None else "ok"}],
            "isError": is_error,
        }
        if structured is not None:
            result["structuredContent"] = structured
        self.calls.append(
            {
                "id": cid,
                "server": self.server,
                "tool": tool,
                "arguments": arguments,
                "result": result,
                "startedAt": iso(started),
                "durationMs": 140,
            }
        )
        return cid


def har_document(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The echo requests as a HAR 1.2 log (Chrome-like: `_resourceType`, timings -1)."""
    entries = []
    for item in requests:
        headers = [{"name": k, "value": v} for k, v in item["requestHeaders"].items()]
        request: dict[str, Any] = {
            "method": item["method"],
            "url": item["url"],
            "httpVersion": "h2",
            "headers": headers,
            "queryString": [],
            "cookies": [],
            "headersSize": -1,
            "bodySize": len(item["requestBody"] or ""),
        }
        if item["requestBody"] is not None:
            mime = item["requestHeaders"].get("content-type", "text/plain")
            request["postData"] = {"mimeType": mime, "text": item["requestBody"]}
        entries.append(
            {
                "startedDateTime": item["startedAt"],
                "time": item["durationMs"],
                "_resourceType": item["resourceType"],
                "request": request,
                "response": {
                    "status": item["status"],
                    "statusText": "",
                    "httpVersion": "h2",
                    "headers": [{"name": k, "value": v} for k, v in item["responseHeaders"].items()],
                    "cookies": [],
                    "content": {
                        "size": len(item["responseBody"] or ""),
                        "mimeType": item["responseHeaders"].get("content-type", ""),
                        "text": item["responseBody"] or "",
                    },
                    "redirectURL": "",
                    "headersSize": -1,
                    "bodySize": -1,
                },
                "cache": {},
                "timings": {"blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 60, "receive": 1, "ssl": -1},
            }
        )
    return {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": entries}}


def task_doc(instruction: str, site: str, rec_id: str, *, answer: str | None = None) -> dict[str, Any]:
    task: dict[str, Any] = {"instruction": instruction, "networkRequests": [], "subtasks": [], "rubrics": []}
    if answer is not None:
        task["answer"] = answer  # what the attempt reports (docs/checkers.md, kind `answer`)
    return {
        "metadata": {"recordingId": rec_id, "recordedAt": "2026-05-11T08:30:00.000Z", "site": site},
        "task": task,
    }


def zip_files(files: dict[str, Any]) -> bytes:
    """A deterministic ZIP: JSON values pretty-printed, fixed dates and permissions."""
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            data = content if isinstance(content, bytes) else (json.dumps(content, indent=1, ensure_ascii=False) + "\n")
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def api_files(task: dict[str, Any], log: HttpLog, dbdiff: dict[str, Any] | None) -> dict[str, Any]:
    files: dict[str, Any] = {"task.json": task, "network.json": {"version": 1, "requests": log.requests}}
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff
    return files


def mcp_files(task: dict[str, Any], log: ToolLog, dbdiff: dict[str, Any] | None) -> dict[str, Any]:
    files: dict[str, Any] = {"task.json": task, "mcp_calls.json": {"version": 1, "calls": log.calls}}
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff
    return files


def write_corpus(root: Path, name: str, recording: bytes, attempts: dict[str, bytes]) -> dict[Path, bytes]:
    """Paths and bytes of one app: `recordings/<name>.zip` and `attempts/<name>/<kind>.zip`."""
    out = {root / "recordings" / f"{name}.zip": recording}
    for kind, data in attempts.items():
        out[root / "attempts" / name / f"{kind}.zip"] = data
    return out


App = Callable[[], tuple[bytes, dict[str, bytes]]]


def corpus_files(root: Path, apps: dict[str, App]) -> dict[Path, bytes]:
    """Paths and bytes of every app of a corpus (each app's `build()`: recording and attempts)."""
    out: dict[Path, bytes] = {}
    for name, build in apps.items():
        recording, attempts = build()
        out.update(write_corpus(root, name, recording, attempts))
    return out


def write_files(files: dict[Path, bytes], what: str) -> None:
    """Write a corpus to disk (the make_* scripts' `main`)."""
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    print(f"{what} written")


def diff(**tables: dict[str, list[Any]]) -> dict[str, Any]:
    return {
        "tables": {
            name: {"inserted": t.get("inserted", []), "updated": t.get("updated", []), "deleted": t.get("deleted", [])}
            for name, t in tables.items()
        }
    }
