"""Shared pieces of the example builders: fixed clocks, deterministic ZIPs, echo call lists."""

from __future__ import annotations

import base64
import json
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "recordings"  # examples/recordings, as examples/README.md says
CAPTURES = OUT.parent / "captures"  # bare captures: no task.json, so not in the main job
ZIP_DATE = (2026, 5, 6, 13, 47, 0)

# Planted secrets: anything containing CANARY must never leave the redactor.
TRACKER_BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzQyIn0.CANARY-tracker-bearer-5f1c"
TRACKER_COOKIE = "tr_session=CANARY-tracker-cookie-9a2e; theme=dark; _ga=GA1.2.1234.5678"
TRACKER_ACCESS_TOKEN = "CANARY-tracker-query-token-77d0"
SHOP_COOKIE = "sid=CANARY-shop-session-3c8b; cart_v=7; consent=analytics"
SHOP_API_KEY = "pk_live_CANARY-shop-apikey-1e4f"
BOARD_BEARER = "Bearer CANARY-board-bearer-0b6d"


# ----------------------------------------------------------------------------- helpers


def jdump(obj: Any) -> str:
    """Compact JSON, the way browsers send bodies."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def pretty(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def epoch_ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


class Clock:
    """Advancing fixed clock so every recording has plausible, reproducible timings."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def tick(self, ms: int) -> datetime:
        self.now = self.now + timedelta(milliseconds=ms)
        return self.now


def write_zip(path: Path, files: list[tuple[str, bytes]], *, folder: str | None = None) -> None:
    """A ZIP with fixed metadata; `folder` puts everything under one top-level folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        if folder is not None:
            info = zipfile.ZipInfo(folder + "/", date_time=ZIP_DATE)
            info.create_system = 3
            info.external_attr = (0o40755 << 16) | 0x10
            zf.writestr(info, b"")
        for name, data in files:
            full = f"{folder}/{name}" if folder else name
            info = zipfile.ZipInfo(full, date_time=ZIP_DATE)
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data, compresslevel=6)


# A 1x1 transparent PNG: a screenshot stand-in carried byte for byte into packages.
TINY_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)

BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"


class EchoNetwork:
    """Builds an echo `network.json` request list with ids r1..rN."""

    def __init__(self, clock: Clock, page: str, *, epoch: bool = False, list_headers: bool = False) -> None:
        self.clock = clock
        self.page = page
        self.epoch = epoch
        self.list_headers = list_headers
        self.requests: list[dict[str, Any]] = []

    def _headers(self, headers: dict[str, str]) -> Any:
        if self.list_headers:
            return [{"name": k, "value": v} for k, v in headers.items()]
        return headers

    def add(
        self,
        method: str,
        url: str,
        *,
        status: int,
        resource_type: str = "fetch",
        req_headers: dict[str, str] | None = None,
        req_body: Any = None,
        resp_headers: dict[str, str] | None = None,
        resp_body: Any = None,
        gap_ms: int = 120,
        duration_ms: int = 80,
        page: str | None = None,
        resp_base64: bool = False,
    ) -> str:
        started = self.clock.tick(gap_ms)
        rid = f"r{len(self.requests) + 1}"
        body_in = req_body if req_body is None or isinstance(req_body, str) else jdump(req_body)
        body_out = resp_body if resp_body is None or isinstance(resp_body, str) else jdump(resp_body)
        request: dict[str, Any] = {
            "id": rid,
            "startedAt": epoch_ms(started) if self.epoch else iso(started),
            "durationMs": duration_ms,
            "method": method,
            "url": url,
            "resourceType": resource_type,
            "requestHeaders": self._headers({"user-agent": BROWSER_UA, **(req_headers or {})}),
            "requestBody": body_in,
            "status": status,
            "responseHeaders": self._headers(resp_headers or {}),
            "responseBody": body_out,
            "pageUrl": page or self.page,
        }
        if resp_base64:
            request["responseBodyEncoding"] = "base64"
        self.requests.append(request)
        return rid


JSON_RESP = {"content-type": "application/json; charset=utf-8"}


def task_json(rec_id: str, recorded: datetime, site: str, instruction: str, marked: list[str]) -> bytes:
    return pretty(
        {
            "metadata": {
                "recordingId": rec_id,
                "recordedAt": iso(recorded),
                "extensionVersion": "05061347",
                "site": site,
                "browser": {"name": "Chrome", "version": "126.0.6478.126"},
                "annotator": "ann_0193",
            },
            "task": {"instruction": instruction, "networkRequests": marked, "subtasks": [], "rubrics": []},
        }
    )


# ----------------------------------------------------------------------------- MCP helpers


class EchoCalls:
    """Builds an echo `mcp_calls.json` call list with ids c1..cN."""

    def __init__(self, clock: Clock, server: str) -> None:
        self.clock = clock
        self.server = server
        self.calls: list[dict[str, Any]] = []

    def add(
        self,
        tool: str,
        arguments: dict[str, Any],
        structured: Any,
        *,
        text: str | None = None,
        is_error: bool = False,
        gap_ms: int = 400,
        duration_ms: int = 120,
    ) -> str:
        started = self.clock.tick(gap_ms)
        cid = f"c{len(self.calls) + 1}"
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": text if text is not None else jdump(structured)}],
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
                "durationMs": duration_ms,
            }
        )
        return cid


def tool_spec(name: str, description: str, props: dict[str, str], required: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {k: {"type": v} for k, v in props.items()},
            "required": required,
        },
    }


def session_json(
    session_id: str, start: datetime, end: datetime, user: dict[str, Any], servers: list[dict[str, Any]]
) -> bytes:
    return pretty(
        {
            "sessionId": session_id,
            "startedAt": iso(start),
            "endedAt": iso(end),
            "user": user,
            "client": {"name": "echo-mcp-recorder", "version": "05061347"},
            "servers": servers,
        }
    )
