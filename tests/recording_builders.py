"""Build small recordings in memory for tests: ZIP bytes from plain dicts."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any


def zip_bytes(files: dict[str, bytes | str | Any], folder: str = "") -> bytes:
    """A ZIP holding `files` (dicts/lists are JSON-encoded), optionally under one top folder."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            if isinstance(content, (dict, list)):
                content = json.dumps(content)
            data = content.encode() if isinstance(content, str) else content
            archive.writestr(zipfile.ZipInfo(folder + name, date_time=(2026, 5, 6, 13, 47, 12)), data)
    return buffer.getvalue()


def task_json(instruction: str = "do the thing", marked: list[str] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"recordingId": "rec_test", "recordedAt": "2026-05-06T13:47:12Z", "extensionVersion": "05061347"},
        "task": {"instruction": instruction, "networkRequests": marked or [], "subtasks": [], "rubrics": []},
    }


def http(
    call_id: str,
    method: str,
    url: str,
    status: int = 200,
    body: Any = None,
    response: Any = None,
    resource_type: str = "fetch",
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "id": call_id,
        "startedAt": "2026-05-06T13:47:20.114Z",
        "durationMs": 80,
        "method": method,
        "url": url,
        "resourceType": resource_type,
        "requestHeaders": {"content-type": "application/json", **(headers or {})},
        "requestBody": json.dumps(body) if body is not None else None,
        "status": status,
        "responseHeaders": {"content-type": "application/json"},
        "responseBody": json.dumps(response) if response is not None else None,
    }


def tool(
    call_id: str, name: str, arguments: dict[str, Any] | None = None, result: Any = None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": call_id,
        "server": name.split("_", 1)[0],
        "tool": name,
        "arguments": arguments or {},
        "result": result if result is not None else {"content": [{"type": "text", "text": "{}"}], "isError": False},
        "startedAt": "2026-05-06T13:47:20.114Z",
        "durationMs": 100,
        **extra,
    }


def api_recording(requests: list[dict[str, Any]], instruction: str = "do the thing", **files: Any) -> bytes:
    return zip_bytes(
        {"task.json": task_json(instruction), "network.json": {"version": 1, "requests": requests}, **files}
    )


def mcp_recording(calls: list[dict[str, Any]], instruction: str = "do the thing", **files: Any) -> bytes:
    return zip_bytes({"task.json": task_json(instruction), "mcp_calls.json": {"version": 1, "calls": calls}, **files})
