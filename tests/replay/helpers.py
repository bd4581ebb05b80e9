"""Shared pieces of the replay tests: the golden trajectory played through an environment, a
recorded attempt replayed, an ASGI app served on loopback in a thread (uvicorn, a real socket)."""

from __future__ import annotations

import json
import socket
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from rlauto_core.importers import import_path
from rlauto_core.recording import Call, HttpCall
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
# apps of the rewards corpus (tests/package/rewards) whose requests carry several calls
REWARDS = Path(__file__).resolve().parents[1] / "package" / "rewards"
BATCH_CORPUS = {app: REWARDS / "recordings" / f"{app}.zip" for app in ("linear_gql", "es_bulk")}


def golden_of(env: ReplayEnv) -> list[Call]:
    world = env.environment.world
    return golden_calls(world.recording, [s.call_id for s in env.environment.package.golden_trajectory])


def play(calls: Sequence[Call], step: Callable[[EnvCall], Any]) -> list[Any]:
    """Each recorded call made through `step` with the session's ids; the answers."""
    replayer = Replayer(list(calls))
    answers = []
    for index in range(len(calls)):
        answer = step(replayer.call(index))
        replayer.learn(index, answer)
        answers.append(answer)
    return answers


def http_step(client: httpx.Client, session: str | None = None) -> Callable[[EnvCall], dict[str, Any]]:
    """`step` over HTTP: an `http_request` call sent to a served environment with httpx."""

    def step(call: EnvCall) -> dict[str, Any]:
        args = call.arguments
        headers = {"x-env-session": session} if session else {}
        body = args.get("body")
        if isinstance(body, dict | list):
            response = client.request(args["method"], args["path"], json=body, headers=headers)
        else:
            response = client.request(args["method"], args["path"], content=body, headers=headers)
        try:
            parsed: Any = response.json()
        except ValueError:
            parsed = response.text
        return {"status": response.status_code, "headers": dict(response.headers), "body": parsed}

    return step


def attempt_calls(path: Path) -> list[Call]:
    return import_path(path).calls


def sent_calls(path: Path) -> list[HttpCall]:
    """An echo ZIP's requests as the client sent them: a batch or a bulk whole, as import never
    leaves it (it splits them), with the answers the app gave."""
    with zipfile.ZipFile(path) as archive:
        requests = json.loads(archive.read("network.json"))["requests"]
    return [
        HttpCall(id=r["id"], method=r["method"], url=r["url"], request_body=r.get("requestBody"),
                 request_headers=list((r.get("requestHeaders") or {}).items()), status=r.get("status"),
                 response_body=r.get("responseBody"), response_headers=list((r.get("responseHeaders") or {}).items()))
        for r in requests
    ]  # fmt: skip


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
