"""Answers of a model acting in the notes example's environment (notes_jsonrpc), as fake-server
steps: each reads the conversation it is sent (the environment's tool results, as the real client
writes them) and decides its next tool calls from it, as a model does, so a retried or reordered
request is answered for where its conversation is."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.llm_server import RecordedRequest

NOTE = {
    "title": "Q3 planning: goals",
    "body": "1. Ship offline mode\n2. Cut p95 sync latency to 300 ms\n3. Hire two engineers",
    "folder": "work",
}
RECORDED_NOTE = "n_318"  # the recording's note: another session's, never this one's


def tool_results(request: RecordedRequest) -> list[dict[str, Any]]:
    """The tool results of the conversation, parsed, in order (`role: tool` messages)."""
    found: list[dict[str, Any]] = []
    for message in request.messages():
        if message.get("role") == "tool":
            try:
                found.append(json.loads(str(message.get("content"))))
            except ValueError:
                found.append({})
    return found


def _note_id(result: dict[str, Any]) -> str:
    shown = result.get("structuredContent") or json.loads(result["content"][0]["text"])
    return str(shown["id"])


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def notes_agent(request: RecordedRequest) -> dict[str, Any]:
    """Does the task: creates the note, then tags and shares the note its result named (two calls
    in one turn), then says it is done."""
    results = tool_results(request)
    if not results:
        return {"tool_calls": [_call("notes_create", **NOTE)]}
    if len(results) == 1:
        note = _note_id(results[0])
        return {"tool_calls": [_call("notes_add_tag", noteId=note, tag="q3-planning"),
                               _call("notes_share", noteId=note, email="ines@acme.example", permission="edit")]}  # fmt: skip
    return {"text": "Created the note, tagged it q3-planning and shared it with Ines (edit)."}


def careless_agent(request: RecordedRequest) -> dict[str, Any]:
    """Gets it wrong: tags the recording's note instead of the one it made, shares its own with
    view rights, calls a tool the app does not have, and claims success."""
    results = tool_results(request)
    if not results:
        return {"tool_calls": [_call("notes_create", **NOTE)]}
    if len(results) == 1:
        note = _note_id(results[0])
        return {"tool_calls": [_call("notes_add_tag", noteId=RECORDED_NOTE, tag="q3-planning"),
                               _call("notes_share", noteId=note, email="ines@acme.example", permission="view"),
                               _call("notes_publish", noteId=note)]}  # fmt: skip
    return {"text": "All done."}
