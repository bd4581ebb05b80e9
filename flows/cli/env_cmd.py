"""`rlauto env serve PACKAGE --mcp|--http [--port P] [--out DIR]`: a package's replay environment
on loopback (docs/replay.md); `rlauto env coverage PACKAGE`: what it simulates and what not."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from flows.cli.app import app, fail
from rlauto_core.errors import RlautoError

env_app = typer.Typer(help="A package's replay environment: an agent acts in it, its checkers give the reward.")
app.add_typer(env_app, name="env")


def run_app(asgi: Any, host: str, port: int, *, on_stop: Callable[[], None],
            sweep: Callable[[], None] | None = None, sweep_every: float = 5.0) -> None:  # fmt: skip
    """Serve an ASGI app until interrupted; `sweep` runs every `sweep_every` seconds (idle sessions end)."""
    import anyio
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(asgi, host=host, port=port, log_level="warning", lifespan="on"))

    async def main() -> None:
        async with anyio.create_task_group() as group:

            async def sweeper() -> None:
                while sweep is not None:
                    await anyio.sleep(sweep_every)
                    await anyio.to_thread.run_sync(sweep)

            group.start_soon(sweeper)
            await server.serve()
            group.cancel_scope.cancel()

    try:
        anyio.run(main)
    finally:
        on_stop()


@env_app.command("serve")
def serve_command(
    package: Annotated[Path, typer.Argument(help="A task package ZIP or its task.json.")],
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve the recorded MCP tools (stdio, or --port).")] = False,
    http: Annotated[bool, typer.Option("--http", help="Serve the recorded HTTP API on --port.")] = False,
    port: Annotated[int | None, typer.Option("--port", help="Loopback port (MCP: Streamable HTTP at /mcp).")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Each ended session's attempt and reward.json.")] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    idle_seconds: Annotated[
        float, typer.Option("--idle-seconds", min=0.1, help="An MCP session with no call this long ends.")
    ] = 1800.0,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the sessions' fresh ids.")] = 0,
) -> None:
    """Serve PACKAGE's environment until interrupted: MCP over stdio (no --port) or Streamable HTTP,
    or the recorded HTTP API."""
    from rlauto_core.replay import Environment

    if mcp == http:
        fail("choose one of --mcp and --http")
    if http and port is None:
        fail("--http needs --port")
    try:
        environment = Environment(package, seed=seed)
    except RlautoError as exc:
        fail(exc)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    if mcp and environment.mode.value != "mcp":
        fail(f"{package.name}: an API package has no MCP tools; serve it with --http")
    if http and environment.mode.value == "mcp":
        fail(f"{package.name}: an MCP package has no HTTP API; serve it with --mcp")
    if mcp:
        _serve_mcp(environment, out, port, host, idle_seconds)
    else:
        _serve_http(environment, out, port or 0, host)


def _serve_mcp(environment: Any, out: Path | None, port: int | None, host: str, idle_seconds: float) -> None:
    import anyio

    from flows.cli.env_mcp import McpSessions, http_mcp_app, serve_stdio

    if port is None:  # stdout is the protocol's: nothing else may be written there
        reward = anyio.run(serve_stdio, environment, out)
        if reward is not None:
            sys.stderr.write(f"session ended: {reward.score}/{reward.max_score}\n")
        return
    sessions = McpSessions(environment, out, idle_seconds)
    sys.stderr.write(f"MCP (Streamable HTTP) at http://{host}:{port}/mcp; sessions to {out or 'nowhere'}\n")
    # swept at half the idle time (at most every 5 s): a session ends within 1.5 times it
    every = min(5.0, max(0.05, idle_seconds / 2))
    run_app(http_mcp_app(environment, sessions), host, port, on_stop=sessions.end_all, sweep=sessions.end_idle,
            sweep_every=every)  # fmt: skip


def _serve_http(environment: Any, out: Path | None, port: int, host: str) -> None:
    from flows.cli.env_http import http_app

    typer.echo(f"HTTP API of {environment.path.name} at http://{host}:{port}/ (POST /__env/end: the reward)")
    run_app(http_app(environment, out), host, port, on_stop=lambda: None)


@env_app.command("coverage")
def coverage_command(
    package: Annotated[Path, typer.Argument(help="A task package ZIP or its task.json.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object on stdout.")] = False,
) -> None:
    """What PACKAGE's environment answers (recorded routes or tools), keeps (simulated) and cannot know."""
    from rlauto_core.replay import Environment

    try:
        coverage = Environment(package).coverage
    except RlautoError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(coverage.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    typer.echo("recorded:")
    for route in coverage.recorded:
        errors = " (only errors recorded)" if route.answers_only_errors else ""
        typer.echo(f"  {route.route}: {route.exchanges} exchange(s), {route.writes} write(s){errors}")
    typer.echo("simulated:")
    for line in coverage.simulated:
        typer.echo(f"  {line}")
    typer.echo("unknown:")
    for line in coverage.unknown:
        typer.echo(f"  {line}")
