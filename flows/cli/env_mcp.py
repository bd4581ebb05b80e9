"""The MCP replay server: a package's recorded tools (names, descriptions and input schemas
verbatim from the recording's `tools/list`) served by its environment with the official `mcp` SDK,
over stdio or Streamable HTTP.

One MCP session is one environment session, its state its own. It ends when its client
disconnects: stdio's end of input, Streamable HTTP's DELETE of the session (what the SDK's client
sends on close), or no request for `idle_seconds`; its attempt and reward.json go to `--out`.
The server answers `server/discover` with the handshake versions only, as stateful servers do, so
a client keeps one session (the stateless 2026-07-28 exchange has none to keep state in).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from rlauto_core.replay import Environment, EnvReward, EnvSession

log = logging.getLogger("rlauto.env")
SESSION_HEADER = "mcp-session-id"
STDIO = "stdio"
Scope = MutableMapping[str, Any]
Asgi = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class McpSessions:
    """Environment sessions by MCP session id (one `stdio` session for a stdio server)."""

    def __init__(self, environment: Environment, out_dir: Path | None, idle_seconds: float = 1800.0) -> None:
        self.environment = environment
        self.out_dir = out_dir
        self.idle_seconds = idle_seconds
        self._open: dict[str, tuple[EnvSession, float]] = {}
        self._lock = threading.Lock()
        self.ended: list[EnvReward] = []

    def session(self, key: str) -> EnvSession:
        with self._lock:
            found = self._open.get(key)
            session = found[0] if found is not None else self.environment.new_session()
            self._open[key] = (session, time.monotonic())
            return session

    def end(self, key: str) -> EnvReward | None:
        with self._lock:
            found = self._open.pop(key, None)
        if found is None:
            return None
        reward = self.environment.end(found[0], out_dir=self.out_dir)
        self.ended.append(reward)
        log.info("MCP session %s ended: %s/%s", key[:12], reward.score, reward.max_score)
        return reward

    def end_idle(self) -> None:
        now = time.monotonic()
        with self._lock:
            idle = [k for k, (_, seen) in self._open.items() if now - seen > self.idle_seconds]
        for key in idle:
            self.end(key)

    def end_all(self) -> None:
        for key in list(self._open):
            self.end(key)


def mcp_server(environment: Environment, sessions: McpSessions) -> Server[Any]:
    tools = [types.Tool(name=t.name, description=t.description or None, input_schema=t.input_schema)
             for t in environment.tools]  # fmt: skip

    def key_of(ctx: ServerRequestContext[Any, Any]) -> str:
        request = ctx.request
        headers = getattr(request, "headers", None)
        return str(headers.get(SESSION_HEADER)) if headers is not None and headers.get(SESSION_HEADER) else STDIO

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        sessions.session(key_of(ctx))
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session = sessions.session(key_of(ctx))
        result = session.tool(params.name, params.arguments if params.arguments is not None else {})
        return types.CallToolResult.model_validate(result)

    async def discover(ctx: ServerRequestContext[Any, Any], params: types.RequestParams) -> types.DiscoverResult:
        return types.DiscoverResult(supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
                                    capabilities=server.get_capabilities(), instructions=environment.instruction)  # fmt: skip

    server: Server[Any] = Server(
        "rlauto-env", version="1", instructions=environment.instruction, on_list_tools=list_tools,
        on_call_tool=call_tool,
    )  # fmt: skip
    server.add_request_handler("server/discover", types.RequestParams, discover)
    return server


def end_on_delete(app: Asgi, sessions: McpSessions) -> Asgi:
    """The session's environment session ends once the client's DELETE of it was answered."""

    async def wrapped(
        scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        await app(scope, receive, send)
        if scope.get("type") == "http" and scope.get("method") == "DELETE":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if SESSION_HEADER in headers:
                await anyio.to_thread.run_sync(sessions.end, headers[SESSION_HEADER])

    return wrapped


def handshake_only(app: Asgi) -> Asgi:
    """`server/discover` answered "method not found" before the SDK's session manager sees it: that
    manager serves the stateless 2026-07-28 exchange to any request carrying its version header, and
    a stateful environment needs the handshake's session. A client then falls back to `initialize`."""

    async def wrapped(
        scope: Scope, receive: Callable[[], Awaitable[Any]], send: Callable[[Any], Awaitable[None]]
    ) -> None:
        if scope.get("type") != "http" or scope.get("method") != "POST":
            await app(scope, receive, send)
            return
        chunks: list[Any] = []
        body = b""
        while True:
            message = await receive()
            chunks.append(message)
            body += message.get("body", b"")
            if not message.get("more_body") or len(body) > 64 * 1024:
                break
        if b'"server/discover"' in body[:4096]:
            try:
                request_id = json.loads(body).get("id")
            except (ValueError, AttributeError):
                request_id = None
            error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
            data = json.dumps(error).encode()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})  # fmt: skip
            await send({"type": "http.response.body", "body": data})
            return
        pending = list(chunks)

        async def replay() -> Any:
            return pending.pop(0) if pending else await receive()

        await app(scope, replay, send)

    return wrapped


def http_mcp_app(environment: Environment, sessions: McpSessions) -> Asgi:
    server = mcp_server(environment, sessions)
    app = server.streamable_http_app(session_idle_timeout=sessions.idle_seconds)
    return end_on_delete(handshake_only(app), sessions)


async def serve_stdio(environment: Environment, out_dir: Path | None) -> EnvReward | None:
    """One session over stdin/stdout; it ends (attempt and reward written) when the input ends."""
    sessions = McpSessions(environment, out_dir)
    server = mcp_server(environment, sessions)
    try:
        # the handshake-only loop: `Server.run` would let a client's `server/discover` lock the
        # connection into the stateless era, which keeps no session
        async with stdio_server() as (read_stream, write_stream), server.lifespan(server) as state:
            await serve_loop(server, read_stream, write_stream, lifespan_state=state,
                             init_options=server.create_initialization_options())  # fmt: skip
    finally:
        reward = sessions.end(STDIO)
    return reward
