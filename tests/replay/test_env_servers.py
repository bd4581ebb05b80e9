"""The environment served on loopback: the recorded HTTP API to httpx, the recorded MCP tools to
the official SDK's client over Streamable HTTP and stdio. Golden trajectories score full marks,
sessions are isolated, a client that leaves mid-session leaves its partial attempt."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client, StdioServerParameters

from flows.cli.env_http import http_app
from flows.cli.env_mcp import McpSessions, http_mcp_app
from rlauto_core.replay import EnvCall, Environment
from tests.conftest import REPO_ROOT
from tests.replay.helpers import API_EXAMPLES, MCP_EXAMPLES, golden_of, http_step, play, served


@pytest.mark.parametrize("name", API_EXAMPLES)
def test_httpx_against_the_http_server_plays_the_golden_to_full_marks(
    example_packages: dict[str, Path], name: str, tmp_path: Path
) -> None:
    environment = Environment(example_packages[name])
    golden = golden_of(_python_env(environment))
    with served(http_app(environment, tmp_path)) as url, httpx.Client(base_url=url) as client:
        started = client.post("/__env/reset").json()
        assert started["instruction"] == environment.instruction
        play(golden, http_step(client))
        reward = client.post("/__env/end").json()
        assert reward["passed"] and reward["score"] == reward["max_score"] > 0
        empty = client.post("/__env/end").json()  # a new default session, nothing done
        assert empty["score"] == 0 and not empty["passed"]
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(folders) >= 2 and all((f / "attempt.zip").is_file() and (f / "reward.json").is_file() for f in folders)


def _python_env(environment: Environment) -> Any:
    from rlauto_core.replay import ReplayEnv

    return ReplayEnv(environment)


def test_http_sessions_are_isolated_and_hostile_requests_are_refused(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    environment = Environment(example_packages["project_board_firefox.zip"])
    golden = golden_of(_python_env(environment))
    with served(http_app(environment, tmp_path)) as url, httpx.Client(base_url=url) as client:
        other = str(client.post("/__env/sessions").json()["session"])
        mine = http_step(client)
        theirs = http_step(client, other)
        created_mine = mine(EnvCall(name="http_request", arguments={"method": "POST", "path": "/api/boards/b_12/cards",
                                                                       "body": "columnId=col_todo&title=A"}))  # fmt: skip
        card = created_mine["body"]["id"]
        assert card != "card_884" and created_mine["status"] == 201
        # the other session never made that card: moving it there is moving a missing card
        moved = theirs(EnvCall(name="http_request", arguments={"method": "POST", "path": f"/api/cards/{card}/move",
                                                                "body": "columnId=col_done&position=0"}))  # fmt: skip
        assert moved["status"] == 404
        play(golden, theirs)
        assert client.post("/__env/end", headers={"x-env-session": other}).json()["passed"]
        assert client.post("/__env/end", headers={"x-env-session": other}).status_code == 404  # ended
        assert client.get("/api/boards/b_12", headers={"x-env-session": "nope"}).status_code == 404
        huge = client.post("/api/boards/b_12/cards", content=b"x" * (11 * 1024 * 1024))
        assert huge.status_code == 413
        unknown = client.delete("/api/boards/b_12/everything")
        assert unknown.status_code == 404 and unknown.json()["error"]
        mine_reward = client.post("/__env/end").json()
        assert not mine_reward["passed"] and mine_reward["unknown_calls"] == 1


async def _mcp_golden(client: Client, golden: list[Any]) -> list[Any]:
    answers = []
    from rlauto_core.replay.replayer import Replayer

    replayer = Replayer(golden)
    for index in range(len(golden)):
        call = replayer.call(index)
        result = await client.call_tool(call.name, call.arguments)
        answer = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        replayer.learn(index, answer)
        answers.append(answer)
    return answers


@pytest.mark.parametrize("name", MCP_EXAMPLES)
def test_an_mcp_client_over_streamable_http_plays_the_golden_to_full_marks(
    example_packages: dict[str, Path], name: str, tmp_path: Path
) -> None:
    environment = Environment(example_packages[name])
    golden = golden_of(_python_env(environment))
    sessions = McpSessions(environment, tmp_path)
    recorded_tools = {t.name: t for s in environment.world.recording.session.servers for t in s.tools}  # type: ignore[union-attr]

    async def scenario(url: str) -> None:
        async with Client(f"{url}/mcp") as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} >= set(recorded_tools)
            for tool in listed.tools:
                if tool.name in recorded_tools:
                    assert tool.input_schema == recorded_tools[tool.name].input_schema  # verbatim
            await _mcp_golden(client, golden)
        # the client's close ended the session: its attempt and reward are there
        async with Client(f"{url}/mcp") as client:  # a second client: a session of its own
            await client.call_tool(golden[0].tool, golden[0].arguments)

    with served(http_mcp_app(environment, sessions)) as url:
        asyncio.run(scenario(url))
    assert [r.passed for r in sessions.ended] == [True, False]
    assert sessions.ended[0].score == sessions.ended[0].max_score and sessions.ended[1].calls == 1
    rewards = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*/reward.json"))]
    assert sorted(r["score"] for r in rewards) == sorted(r.score for r in sessions.ended)


def test_an_mcp_client_calling_an_unknown_tool_or_bad_arguments_gets_tool_errors_and_plays_on(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    """Over the SDK's client: a tool nobody recorded and arguments the recorded schema refuses are
    tool errors (is_error, a text saying which), never a protocol failure or a dead session; the
    session goes on to play the golden, and its reward counts the unknown call."""
    environment = Environment(example_packages["notes_jsonrpc.zip"])
    golden = golden_of(_python_env(environment))
    sessions = McpSessions(environment, tmp_path)
    errors: list[str] = []

    async def scenario(url: str) -> None:
        async with Client(f"{url}/mcp") as client:
            for name, arguments in (
                ("notes_delete_everything", {}),
                ("notes_create", {"title": 42}),  # a number where the schema says string
                ("notes_create", {"title": "x" * 200_000, "folder": ["work"]}),  # huge, and a list
            ):
                result = await client.call_tool(name, arguments)
                assert result.is_error, (name, result)
                errors.append(result.content[0].text)  # type: ignore[union-attr]
            await _mcp_golden(client, golden)

    with served(http_mcp_app(environment, sessions)) as url:
        asyncio.run(scenario(url))
    assert "Unknown tool" in errors[0] and "notes_delete_everything" in errors[0]
    assert all(len(text) < 2_000 for text in errors)  # the huge value is not echoed back whole
    [reward] = sessions.ended
    assert reward.passed and reward.score == reward.max_score  # the errors changed nothing
    assert reward.unknown_calls == 1 and reward.calls == len(golden) + 3


def test_concurrent_mcp_sessions_are_isolated_and_a_client_leaving_mid_session_ends_it(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    environment = Environment(example_packages["notes_jsonrpc.zip"])
    golden = golden_of(_python_env(environment))
    sessions = McpSessions(environment, tmp_path)

    async def leaver(url: str) -> str:
        async with Client(f"{url}/mcp") as client:  # creates a note, then leaves without finishing
            result = await client.call_tool("notes_create", {"title": "Q3 planning: goals", "folder": "work"})
            return str(result.structured_content["id"]) if result.structured_content else json.loads(
                result.content[0].text)["id"]  # type: ignore[union-attr]  # fmt: skip

    async def stayer(url: str, foreign: str) -> None:
        async with Client(f"{url}/mcp") as client:
            other = await client.call_tool("notes_add_tag", {"noteId": foreign, "tag": "q3-planning"})
            assert other.is_error  # the other session's note does not exist here
            await _mcp_golden(client, golden)

    async def scenario(url: str) -> None:
        note = await leaver(url)
        assert note != "n_318"
        await asyncio.gather(stayer(url, note), leaver(url))

    with served(http_mcp_app(environment, sessions)) as url:
        asyncio.run(scenario(url))
    scores = sorted((r.calls, r.passed) for r in sessions.ended)
    assert scores == [(1, False), (1, False), (len(golden) + 1, True)]
    assert len(list(tmp_path.glob("*/attempt.zip"))) == 3


@pytest.mark.slow
def test_an_mcp_client_over_stdio_plays_every_mcp_example_to_full_marks(
    example_packages: dict[str, Path], tmp_path: Path
) -> None:
    """`rlauto env serve PACKAGE --mcp` as an MCP client starts it: a process of its own over stdio."""

    async def scenario(name: str, out: Path) -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "flows.cli", "env", "serve", str(example_packages[name]), "--mcp", "--out", str(out)],
            cwd=str(REPO_ROOT), env={**os.environ},
        )  # fmt: skip
        environment = Environment(example_packages[name])
        async with Client(params) as client:
            await _mcp_golden(client, golden_of(_python_env(environment)))

    for name in MCP_EXAMPLES:
        out = tmp_path / name
        asyncio.run(scenario(name, out))
        [reward_file] = list(out.glob("*/reward.json"))
        reward = json.loads(reward_file.read_text())
        assert reward["passed"] and reward["score"] == reward["max_score"], (name, reward)
