"""MCP captures in the layouts real tools write, built by code (the public examples of these
formats could not be copied; see tests/data/SOURCES.md). Shapes follow those examples exactly."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from tests.importers.zipcraft import jbytes

T0 = "2025-10-23T23:00:07.948976"


def _at(seconds: float) -> str:
    """The interceptor's naive ISO timestamps, `seconds` after 23:00:00."""
    return (datetime(2025, 10, 23, 23, 0, 0) + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def sdk_records(*calls: tuple[str, dict[str, Any], Any], error_at: int | None = None) -> list[dict[str, Any]]:
    """An interceptor's request/response records: initialize and list_tools, then each call_tool
    with its typed CallToolResult (`_type` tags as the Python SDK's models dump them)."""
    records: list[dict[str, Any]] = [
        {"type": "request", "timestamp": T0, "count": 1, "method": "initialize", "args": [], "kwargs": {}},
        {"type": "response", "timestamp": "2025-10-23T23:00:08.102049", "count": 1, "method": "initialize",
         "result": {"_type": "InitializeResult", "meta": None, "protocolVersion": "2025-06-18"}, "error": None},
        {"type": "request", "timestamp": "2025-10-23T23:00:08.102258", "count": 2, "method": "list_tools",
         "args": [], "kwargs": {}},
        {"type": "response", "timestamp": "2025-10-23T23:00:08.107031", "count": 2, "method": "list_tools",
         "result": {"_type": "ListToolsResult", "meta": None, "nextCursor": None, "tools": []}, "error": None},
    ]  # fmt: skip
    for n, (tool, arguments, text) in enumerate(calls, start=3):
        records.append(
            {"type": "request", "timestamp": _at(10 + n), "count": n,
             "method": "call_tool", "args": [tool, arguments], "kwargs": {}}
        )  # fmt: skip
        result = {
            "_type": "CallToolResult", "meta": None, "structuredContent": None, "isError": False,
            "content": [{"_type": "TextContent", "type": "text", "text": text, "annotations": None, "meta": None}],
        }  # fmt: skip
        failed = error_at == n
        records.append(
            {"type": "response", "timestamp": _at(10 + n + 0.25), "count": n,
             "method": "call_tool", "result": None if failed else result, "error": "McpError: boom" if failed else None}
        )  # fmt: skip
    return records


def jsonl(values: list[Any]) -> bytes:
    return b"".join(jbytes(v) + b"\n" for v in values)


def sdk_session(*calls: tuple[str, dict[str, Any], Any], server: str = "Microsoft Learn MCP Server") -> dict[str, Any]:
    """One session holding its calls, as the interceptor's session logger writes it."""
    pairs: list[dict[str, Any]] = [
        {"request": {"method": "initialize", "args": [], "kwargs": {}, "timestamp": "2025-10-30T19:45:06.854602"},
         "response": {"success": True, "result": {"_type": "InitializeResult"}, "error": None,
                      "timestamp": "2025-10-30T19:45:07.055894"}, "duration_ms": 201.308012008667},
    ]  # fmt: skip
    for n, (tool, arguments, text) in enumerate(calls):
        pairs.append(
            {"request": {"method": "call_tool", "args": [tool, arguments], "kwargs": {},
                         "timestamp": f"2025-10-30T19:45:0{7 + n}.429741"},
             "response": {"success": True, "error": None, "timestamp": f"2025-10-30T19:45:0{7 + n}.632749",
                          "result": {"_type": "CallToolResult", "meta": None, "structuredContent": None,
                                     "isError": False, "content": [{"_type": "TextContent", "type": "text",
                                                                    "text": text}]}},
             "duration_ms": 203.54890823364258}
        )  # fmt: skip
    return {
        "session_id": "17c2c444-645e-4582-97e3-cd3e0d89f425",
        "server_info": {"url": "https://learn.microsoft.com/api/mcp", "transport": "http", "description": server},
        "calls": pairs,
    }


def claude_line(stamp: str, server: str, side: str, message: dict[str, Any] | str, tail: bool = True) -> str:
    """One Claude Desktop `mcp-server-NAME.log` message line (compact JSON, as the client logs it)."""
    body = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"), ensure_ascii=False)
    return f"{stamp} [{server}] [info] Message from {side}: {body}" + (" { metadata: undefined }" if tail else "")


def claude_log(server: str = "filesystem") -> str:
    """A session as Claude Desktop logs it: start-up lines, the server's stderr, a multi-line
    metadata dump, the handshake, two tool calls, a reconnect that numbers ids from 0 again."""
    s = server
    lines = [
        f"2026-03-01T09:39:03.047Z [{s}] [info] Initializing server... {{ metadata: undefined }}",
        f"2026-03-01T09:39:03.073Z [{s}] [info] Using MCP server command: npx with args and path: {{",
        "  metadata: {",
        "    args: [ '-y', '@modelcontextprotocol/server-filesystem', [length]: 2 ],",
        "  }",
        "} %o",
        claude_line("2026-03-01T09:39:03.203Z", s, "client",
                    {"method": "initialize", "params": {"protocolVersion": "2025-11-25"}, "jsonrpc": "2.0", "id": 0}),
        "Secure MCP Filesystem Server running on stdio",
        claude_line("2026-03-01T09:39:14.435Z", s, "server",
                    {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}),
        claude_line("2026-03-01T09:39:14.435Z", s, "client", {"method": "notifications/initialized", "jsonrpc": "2.0"}),
        claude_line("2026-03-01T09:39:14.436Z", s, "client",
                    {"method": "tools/list", "params": {}, "jsonrpc": "2.0", "id": 1}),
        claude_line("2026-03-01T09:39:14.438Z", s, "server", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}}),
        claude_line("2026-03-01T09:44:53.641Z", s, "client",
                    {"method": "tools/call", "params": {"name": "list_allowed_directories", "arguments": {}},
                     "jsonrpc": "2.0", "id": 2}),
        claude_line("2026-03-01T09:44:53.643Z", s, "server",
                    {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text",
                                                                         "text": "Allowed directories:\nC:\\Users\\me"}]}}),
        claude_line("2026-03-01T09:47:44.588Z", s, "client",
                    {"method": "tools/call", "params": {"name": "write_file",
                                                        "arguments": {"path": "C:\\Users\\me\\notes.txt",
                                                                      "content": "héllo\nworld"}},
                     "jsonrpc": "2.0", "id": 3}),
        claude_line("2026-03-01T09:47:44.595Z", s, "server",
                    {"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "Successfully wrote"}]}}),
        f"2026-03-01T19:00:00.735Z [{s}] [error] Server disconnected. {{ metadata: {{ context: 'connection' }} }}",
        f"2026-03-01T19:00:04.005Z [{s}] [info] Server started and connected successfully {{ metadata: undefined }}",
        claude_line("2026-03-01T19:00:04.039Z", s, "client",
                    {"method": "initialize", "params": {}, "jsonrpc": "2.0", "id": 0}),
        claude_line("2026-03-01T19:00:07.126Z", s, "server", {"jsonrpc": "2.0", "id": 0, "result": {}}),
        claude_line("2026-03-01T19:01:00.000Z", s, "client",
                    {"method": "tools/call", "params": {"name": "read_text_file",
                                                        "arguments": {"path": "C:\\Users\\me\\notes.txt", "head": 50}},
                     "jsonrpc": "2.0", "id": 2}),
        claude_line("2026-03-01T19:01:00.004Z", s, "server",
                    {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "Access denied"}],
                                                            "isError": True}}),
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def inspector_export() -> list[dict[str, Any]]:
    """The Inspector's Protocol history export: `MessageEntry` objects (core/mcp/types.ts), a
    request holding its response in place, notifications and a server-to-client request."""
    return [
        {"id": "e1", "timestamp": "2026-08-19T15:02:03.100Z", "direction": "request", "origin": "client",
         "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
         "response": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}}, "duration": 12},
        {"id": "e2", "timestamp": "2026-08-19T15:02:03.200Z", "direction": "notification", "origin": "client",
         "message": {"jsonrpc": "2.0", "method": "notifications/initialized"}},
        {"id": "e3", "timestamp": "2026-08-19T15:02:05.000Z", "direction": "request", "origin": "client",
         "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "create_issue", "arguments": {"repo": "acme/app", "title": "Crash on save"}}},
         "response": {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "#42"}],
                                                            "structuredContent": {"number": 42}}},
         "duration": 87},
        {"id": "e4", "timestamp": "2026-08-19T15:02:06.000Z", "direction": "request", "origin": "server",
         "message": {"jsonrpc": "2.0", "id": 1, "method": "roots/list"},
         "response": {"jsonrpc": "2.0", "id": 1, "result": {"roots": []}}, "duration": 1},
        {"id": "e5", "timestamp": "2026-08-19T15:02:07.000Z", "direction": "request", "origin": "client",
         "message": {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "list_issues", "arguments": {"repo": "acme/app"}}},
         "response": {"jsonrpc": "2.0", "id": 2, "result": {"content": []}}, "duration": 30,
         "clientError": "result does not match the tool's outputSchema"},
    ]  # fmt: skip
