"""Shared pieces of the replay tests: the golden trajectory played through an environment, a
recorded attempt replayed, an ASGI app served on loopback in a thread (uvicorn, a real socket)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn

from rlauto_core.importers import import_path
from rlauto_core.recording import Call
from rlauto_core.replay import EnvCall, ReplayEnv
from rlauto_core.replay.replayer import Replayer, golden_calls

# the package made from each example, and the corpus folder of its hand-written attempts
CORPUS = {
    "discord_reply.zip": "discord_reply",
    "issue_tracker.zip": "issue_tracker",
    "notes_jsonrpc.zip": "notes_jsonrpc",
    "project_board.har": "project_board",
    "project_board_firefox.zip": "project_board_firefox",
    "shop_checkout.zip": "shop_checkout",
    "slack_incident_channel.zip": "slack_incident_channel",
}
MCP_EXAMPLES = ["discord_reply.zip", "notes_jsonrpc.zip", "slack_incident_channel.zip"]
API_EXAMPLES = ["issue_tracker.zip", "project_board.har", "project_board_firefox.zip", "shop_checkout.zip"]
WRONG_KINDS = ("missing_write", "wrong_entity", "wrong_order")


def golden_of(env: ReplayEnv) -> list[Call]:
    world = env.environment.world
    return golden_calls(world.recording, [s.call_id for s in env.environment.package.golden_trajectory])


def play(calls: list[Call], step: Callable[[EnvCall], Any]) -> list[Any]:
    """Each recorded call made through `step` with the session's ids; the answers."""
    replayer = Replayer(calls)
    answers = []
    for index in range(len(calls)):
        answer = step(replayer.call(index))
        replayer.learn(index, answer)
        answers.append(answer)
    return answers


def attempt_calls(path: Path) -> list[Call]:
    return import_path(path).calls


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def served(app: Any) -> Iterator[str]:
    """The app on a loopback port in a thread; its base URL. Stopped (lifespan shutdown) on exit."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="replay-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the replay server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
