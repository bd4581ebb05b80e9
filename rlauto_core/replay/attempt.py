"""A session written as an attempt in the recording's own format: an echo recording ZIP holding
`task.json`, the calls (`network.json` for an API package, `mcp_calls.json` and `session.json`
for an MCP one) and the `dbdiff.json` the session would leave. `rlauto score PACKAGE ATTEMPT`
reads it like any recording, so the reward is the same on both paths."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from rlauto_core.recording import DbDiff, HttpCall, Mode, Recording, ToolCall

ZIP_DATE = (2026, 1, 1, 0, 0, 0)


def _echo_http(call: HttpCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "startedAt": call.started_at.isoformat() if call.started_at else None,
        "durationMs": call.duration_ms,
        "method": call.method,
        "url": call.url,
        "resourceType": call.resource_type or "fetch",
        "requestHeaders": dict(call.request_headers),
        "requestBody": call.request_body,
        "status": call.status,
        "responseHeaders": dict(call.response_headers),
        "responseBody": call.response_body,
    }


def _echo_tool(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "server": call.server,
        "tool": call.tool,
        "arguments": call.arguments,
        "result": call.result,
        "isError": call.is_error,
        "startedAt": call.started_at.isoformat() if call.started_at else None,
        "durationMs": call.duration_ms,
    }


def attempt_files(
    recording: Recording,
    calls: list[HttpCall | ToolCall],
    dbdiff: DbDiff | None,
    *,
    instruction: str,
    answer: Any = None,
    session_name: str,
) -> dict[str, Any]:
    """The attempt's files by name, as JSON values."""
    task: dict[str, Any] = {"instruction": instruction}
    if answer is not None:
        task["answer"] = answer
    files: dict[str, Any] = {"task.json": {"metadata": {"recordingId": session_name}, "task": task}}
    if recording.mode is Mode.MCP:
        files["mcp_calls.json"] = {"version": 1, "calls": [_echo_tool(c) for c in calls if isinstance(c, ToolCall)]}
        if recording.session is not None:
            files["session.json"] = {"sessionId": session_name,
                                     "servers": [s.model_dump(mode="json", by_alias=True, exclude_none=True)
                                                 for s in recording.session.servers]}  # fmt: skip
    else:
        files["network.json"] = {"version": 1, "requests": [_echo_http(c) for c in calls if isinstance(c, HttpCall)]}
    if dbdiff is not None:
        files["dbdiff.json"] = dbdiff.model_dump(mode="json")
    return files


def attempt_zip(files: dict[str, Any]) -> bytes:
    """The files as a recording ZIP (deterministic entries: fixed date and mode)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, json.dumps(content, ensure_ascii=False, indent=1) + "\n")
    return buffer.getvalue()
