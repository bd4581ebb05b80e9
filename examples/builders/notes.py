"""Notes MCP server as a JSON Lines JSON-RPC 2.0 log: create a note, tag it, share it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from builders.kit import (
    OUT,
    Clock,
    epoch_ms,
    jdump,
    pretty,
    session_json,
    task_json,
    tool_spec,
    write_zip,
)

# ----------------------------------------------------------------------------- 6. JSON-RPC log MCP


def notes_jsonrpc() -> None:
    start = datetime(2026, 5, 9, 7, 5, 0, 0, tzinfo=UTC)
    clock = Clock(start)
    lines: list[dict[str, Any]] = []

    def send(msg: dict[str, Any], gap: int = 30) -> None:
        lines.append({"direction": "send", "timestamp": epoch_ms(clock.tick(gap)), "message": msg})

    def recv(msg: dict[str, Any], gap: int = 60) -> None:
        lines.append({"direction": "recv", "timestamp": epoch_ms(clock.tick(gap)), "message": msg})

    def call(rid: int | str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }

    def ok(rid: int | str, structured: Any) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": rid,
            "result": {
                "content": [{"type": "text", "text": jdump(structured)}],
                "structuredContent": structured,
                "isError": False,
            },
        }

    tools = [
        tool_spec("notes_list", "List notes in a folder.", {"folder": "string", "limit": "integer"}, []),
        tool_spec(
            "notes_create",
            "Create a note.",
            {"title": "string", "body": "string", "folder": "string"},
            ["title"],
        ),
        tool_spec("notes_add_tag", "Tag a note.", {"noteId": "string", "tag": "string"}, ["noteId", "tag"]),
        tool_spec(
            "notes_share",
            "Share a note.",
            {"noteId": "string", "email": "string", "permission": "string"},
            ["noteId", "email"],
        ),
        tool_spec("notes_sync_status", "Sync state of the local cache.", {}, []),
    ]
    send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "echo-mcp-recorder", "version": "05061347"},
            },
        },
        gap=0,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": True}, "logging": {}},
                "serverInfo": {"name": "notes", "version": "0.9.2"},
            },
        }
    )
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    recv({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}})
    send(call(2, "notes_list", {"folder": "inbox", "limit": 20}), gap=2500)
    recv(ok(2, {"notes": [{"id": "n_301", "title": "Groceries"}, {"id": "n_298", "title": "Q2 retro"}]}))
    note = {
        "id": "n_318",
        "title": "Q3 planning: goals",
        "folder": "work",
        "body": "1. Ship offline mode\n2. Cut p95 sync latency to 300 ms\n3. Hire two engineers",
    }
    send(
        call("call-3", "notes_create", {"title": note["title"], "body": note["body"], "folder": "work"}),
        gap=6000,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "logger": "notes", "data": "note n_318 written to disk"},
        },
        gap=40,
    )
    recv(ok("call-3", note), gap=20)
    send(call(4, "notes_add_tag", {"noteId": "n_318", "tag": "Q3 planning"}), gap=3000)
    recv(
        {
            "jsonrpc": "2.0",
            "id": 4,
            "error": {
                "code": -32602,
                "message": "invalid tag: spaces are not allowed",
                "data": {"field": "tag"},
            },
        }
    )
    send(call(5, "notes_add_tag", {"noteId": "n_318", "tag": "q3-planning"}), gap=2200)
    recv(ok(5, {"noteId": "n_318", "tags": ["q3-planning"]}))
    send({"jsonrpc": "2.0", "id": 6, "method": "ping"}, gap=500)
    recv({"jsonrpc": "2.0", "id": 6, "result": {}}, gap=5)
    send(
        call("call-7", "notes_share", {"noteId": "n_318", "email": "ines@acme.example", "permission": "edit"}),
        gap=4100,
    )
    recv(
        {
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": "call-7", "progress": 1, "total": 2},
        },
        gap=100,
    )
    recv(
        ok(
            "call-7",
            {
                "noteId": "n_318",
                "sharedWith": [{"email": "ines@acme.example", "permission": "edit"}],
                "shareId": "sh_5120",
            },
        ),
        gap=200,
    )
    recv({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}, gap=900)
    # Sent while the recorder was stopping: its response never arrived (an unanswered call).
    send(call(8, "notes_sync_status", {}), gap=300)
    end = clock.tick(50)

    jsonl = "".join(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n" for line in lines)
    instruction = (
        "Create a 'Q3 planning: goals' note in the work folder listing the three Q3 goals, tag it "
        "q3-planning and share it with ines@acme.example with edit rights."
    )
    dbdiff = {
        "tables": {
            "notes": {
                "inserted": [{"id": "n_318", "folder": "work", "title": note["title"]}],
                "updated": [],
                "deleted": [],
            },
            "note_tags": {
                "inserted": [{"note_id": "n_318", "tag": "q3-planning"}],
                "updated": [],
                "deleted": [],
            },
            "note_shares": {
                "inserted": [{"id": "sh_5120", "note_id": "n_318", "email": "ines@acme.example", "permission": "edit"}],
                "updated": [],
                "deleted": [],
            },
        }
    }
    write_zip(
        OUT / "notes_jsonrpc.zip",
        [
            (
                "task.json",
                task_json("rec_nt_318", start, "mcp://notes", instruction, ["call-3", "5", "call-7"]),
            ),
            ("mcp_calls.json", jsonl.encode("utf-8")),
            (
                "session.json",
                session_json(
                    "s_nt_9",
                    start,
                    end,
                    {"id": "u_42", "name": "kim"},
                    [{"name": "notes", "version": "0.9.2", "tools": tools}],
                ),
            ),
            ("dbdiff.json", pretty(dbdiff)),
        ],
    )
