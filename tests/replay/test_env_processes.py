"""`rlauto env serve` as the process a user starts: the recorded HTTP API on a port (httpx plays
the golden trajectory, `POST /__env/end` answers the reward, `--out` holds the session's attempt
and reward.json, which `rlauto score` scores the same, and a session still open at SIGTERM is
written too), and an MCP session over Streamable HTTP whose client vanished without ending it,
ended by `--idle-seconds`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from rlauto_core.replay import Environment, ReplayEnv
from tests.in_process_cli import invoke
from tests.replay.helpers import golden_of, http_step, play
from tests.servers import free_port, stop_process, wait_http


@contextmanager
def env_serve(package: Path, out: Path, cwd: Path, *options: str) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    port = free_port()
    command = [sys.executable, "-m", "flows.cli", "env", "serve", str(package), *options, "--port", str(port),
               "--out", str(out)]  # fmt: skip
    log = (cwd / "serve.log").open("wb")
    proc = subprocess.Popen(command, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        stop_process(proc)
        log.close()


def _wait_for_files(folder: Path, pattern: str, count: int, timeout: float = 30.0) -> list[Path]:
    deadline = time.monotonic() + timeout
    while len(found := sorted(folder.glob(pattern))) < count:
        assert time.monotonic() < deadline, f"{pattern} in {folder}: {found}"
        time.sleep(0.1)
    return found


def test_env_serve_http_as_a_process_answers_the_golden_ends_with_the_reward_and_leaves_the_attempt(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    package = example_packages["issue_tracker.zip"]
    golden = golden_of(ReplayEnv(Environment(package)))
    out = tmp_path / "sessions"
    with env_serve(package, out, tmp_path, "--http") as (url, proc), httpx.Client(base_url=url) as client:
        wait_http(f"{url}/__env/coverage", proc=proc)
        play(golden, http_step(client))
        reward = client.post("/__env/end").json()
        assert reward["passed"] and reward["score"] == reward["max_score"] > 0
        assert client.get("/v2/projects/web/issues").status_code == 200  # a new session, open at shutdown
        stop_process(proc)  # SIGTERM: the server ends the open session before it exits
    ended, at_shutdown = sorted(out.iterdir(), key=lambda p: json.loads((p / "reward.json").read_text())["session"])
    assert json.loads((ended / "reward.json").read_text()) == reward
    with zipfile.ZipFile(ended / "attempt.zip") as archive:
        requests = json.loads(archive.read("network.json"))["requests"]
    assert len(requests) == len(golden)
    done = invoke("score", str(package), str(ended / "attempt.zip"), "--json")
    assert done.returncode == 0, done.stderr
    scored = json.loads(done.stdout)
    assert (scored["score"], scored["max_score"], scored["passed"]) == (reward["score"], reward["max_score"], True)
    last = json.loads((at_shutdown / "reward.json").read_text())
    assert (last["calls"], last["score"], last["passed"]) == (1, 0, False) and (at_shutdown / "attempt.zip").is_file()


def test_an_mcp_session_whose_client_vanished_is_ended_by_idle_seconds(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "sessions"

    async def vanish(url: str) -> str:
        # the official client, leaving without the DELETE that would end its session
        async with Client(streamable_http_client(f"{url}/mcp", terminate_on_close=False)) as client:
            result = await client.call_tool("notes_create", {"title": "Q3 planning: goals", "folder": "work"})
            assert not result.is_error
            return str(result.content[0].text)  # type: ignore[union-attr]

    with env_serve(example_packages["notes_jsonrpc.zip"], out, tmp_path, "--mcp", "--idle-seconds", "0.5") as (
        url,
        proc,
    ):
        wait_http(f"{url}/mcp", proc=proc)
        answered = asyncio.run(vanish(url))
        started = time.monotonic()
        [reward_file] = _wait_for_files(out, "*/reward.json", 1)
        assert time.monotonic() - started < 20
        assert proc.poll() is None  # the server goes on serving
    reward = json.loads(reward_file.read_text())
    assert (reward["calls"], reward["passed"]) == (1, False)
    with zipfile.ZipFile(reward_file.parent / "attempt.zip") as archive:
        [call] = json.loads(archive.read("mcp_calls.json"))["calls"]
    assert call["tool"] == "notes_create" and call["result"]["content"][0]["text"] == answered
