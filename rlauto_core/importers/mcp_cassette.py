"""Recorder cassettes: JSON-RPC request/response pairs in an `interactions` list, with metadata.

Two layouts are read:
- mcp-recorder: `{"version", "metadata": {"server_info": {...}}, "interactions": [{"type",
  "request", "response", "latency_ms", ...}]}`; `type` is `jsonrpc_request`, `notification` or
  `lifecycle` (an HTTP DELETE/GET with no message);
- agent-vcr: `{"format_version", "metadata", "session": {"initialize_request", ...,
  "interactions": [{"sequence", "timestamp", "request", "response", "latency_ms"}]}}`.
Each pair is one request answered in place, so an id reused by a later pair is a new call.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import expect_dict, expect_list, optional_number, optional_str
from rlauto_core.importers.mcp_jsonrpc import Pairing
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ImportNote, ToolCall


def is_cassette(document: dict[str, Any]) -> bool:
    session = document.get("session")
    return "interactions" in document or (isinstance(session, dict) and "interactions" in session)


def import_cassette(document: dict[str, Any], file: str) -> tuple[list[ToolCall], list[ImportNote]]:
    holder = document if "interactions" in document else expect_dict(document["session"], file, "session")
    interactions = expect_list(holder["interactions"], file, "interactions")
    server = _server_name(document.get("metadata"), file)
    pairing = Pairing(file)
    for number, item in enumerate(interactions):
        where = f"interaction {number}"
        item = expect_dict(item, file, where)
        request = item.get("request")
        if request is None:
            continue  # a lifecycle interaction: an HTTP request that carried no JSON-RPC message
        timestamp = parse_timestamp(item.get("timestamp"), file, f"{where}.timestamp")
        call = pairing.message(request, f"{where}.request", server=server, timestamp=timestamp)
        response = item.get("response")
        if response is None:
            continue
        latency = optional_number(item.get("latency_ms"), file, f"{where}.latency_ms")
        if "method" in expect_dict(response, file, f"{where}.response"):
            raise RecordingError(file, f"{where}.response is a request, not a response")
        if call is None and "id" not in request:
            continue  # a notification answered by an HTTP status only
        pairing.message(response, f"{where}.response", server=server, timestamp=timestamp, duration_ms=latency)
    return pairing.calls, pairing.notes()


def _server_name(metadata: Any, file: str) -> str | None:
    if not isinstance(metadata, dict):
        return None
    info = metadata.get("server_info")
    if not isinstance(info, dict):
        return None
    return optional_str(info.get("name"), file, "metadata.server_info.name")
