"""Agent runs with memory: the real loop with recall and a distiller (on the agent's model with
thinking off), or in designer mode, against the fake model server and the notes app.

The agent's turns and the memory calls go to the same model, as in a deployment; the scripted
`Brain` tells them apart the way the endpoint sees them: a turn carries tools, a memory call
does not."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import adbutils
import pytest
from pydantic import SecretStr

from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.designer import designer_endpoint
from rlauto_core.agent.events import EventLog
from rlauto_core.agent.run import AgentLoop, AgentSettings, LoopMode
from rlauto_core.llm import HttpModelClient, RetryPolicy, ToolCallingClient
from rlauto_core.memory import Distiller, MemoryRecall, memory_client
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import KEY, SERIAL
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest


@dataclass
class Brain:
    """A scripted model: `turns` answer tool-calling requests in order, `memory` the calls
    without tools (distillation, audit); each list's last answer repeats. A turn may be a
    callable of the request (a model that reads its prompt)."""

    turns: list[Any] = field(default_factory=list)
    memory: list[Any] = field(default_factory=list)
    turn_requests: list[RecordedRequest] = field(default_factory=list)
    memory_requests: list[RecordedRequest] = field(default_factory=list)

    def __call__(self, request: RecordedRequest) -> dict[str, Any]:
        body = request.body if isinstance(request.body, dict) else {}
        asked, answers = (self.turn_requests, self.turns) if body.get("tools") else (self.memory_requests, self.memory)
        asked.append(request)
        if not answers:
            return {"status": 500, "error": "the brain has no answer scripted for this kind of call"}
        step = answers[min(len(asked) - 1, len(answers) - 1)]
        return dict(step(request) if callable(step) else step)


@dataclass
class MemoryHarness:
    loop: AgentLoop
    storage: FsspecStorage
    settings: AgentSettings

    def events(self, run_id: str) -> list[Any]:
        return [logged.event for logged in EventLog(self.storage, run_id).read(0)]


MakeMemoryLoop = Callable[..., MemoryHarness]


class _RunLogs:
    def __init__(self, storage: FsspecStorage) -> None:
        self._storage = storage
        self._logs: dict[str, EventLog] = {}

    def emit(self, event: Any) -> None:
        self._logs.setdefault(event.run_id, EventLog(self._storage, event.run_id)).emit(event)


def settings_for(fake_llm: FakeLlmServer, **overrides: Any) -> AgentSettings:
    return AgentSettings(
        _env_file=None,  # type: ignore[call-arg]
        base_url=fake_llm.base_url(),
        model="agent",
        api_key=SecretStr(KEY),
        **overrides,
    )


@pytest.fixture
def make_memory_loop(
    fake_llm: FakeLlmServer, adb_client: adbutils.AdbClient, storage: FsspecStorage
) -> Iterator[MakeMemoryLoop]:
    clients: list[HttpModelClient] = []

    def make(
        *, recall: bool = True, distil: bool = True, mode: LoopMode | None = None, **overrides: Any
    ) -> MemoryHarness:
        settings = settings_for(fake_llm, **overrides)
        endpoint = designer_endpoint(settings) if mode is not None and mode.name == "designer" else settings.endpoint()
        turns = ToolCallingClient(endpoint, timeout_seconds=30, retry=RetryPolicy(max_attempts=2, base_seconds=0.01))
        clients.append(turns)
        distiller = None
        if distil:
            memory = memory_client(settings)
            clients.append(memory)
            distiller = Distiller(storage, memory, secrets=(KEY,))
        loop = AgentLoop(
            model=turns,
            phone=U2Phone(SERIAL, adb_client),
            devices=AdbDirectory(adb_client),
            storage=storage,
            sink=_RunLogs(storage),
            settings=settings,
            recall=MemoryRecall(storage) if recall else None,
            distiller=distiller,
            **({"mode": mode} if mode is not None else {}),
        )
        return MemoryHarness(loop=loop, storage=storage, settings=settings)

    yield make
    for client in clients:
        client.close()
