"""Real parts for agent runs: the fake model server (session), the demo phone (the product's
emulated phone) with its apps per test (so the real uiautomator2/adbutils clients run the tools), storage on disk."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import adbutils
import psutil
import pytest
from pydantic import SecretStr

from device_flows.demo import DemoAdbServer, DemoPhone, Home, NotesApp, SettingsApp, ShoppingApp
from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.events import EventLog
from rlauto_core.agent.run import AgentLoop, AgentSettings, Checkpoint
from rlauto_core.agent.tools import TakeoverHook
from rlauto_core.llm import RetryPolicy, ToolCallingClient
from rlauto_core.store.storage import FsspecStorage, open_storage
from tests.fakes.llm_server import FakeLlmServer
from tests.fixtures.adb import adb_spawns

SERIAL = "fake-1"
KEY = "sk-agent-test-key-0000"


@pytest.fixture(scope="session")
def _fake_llm_session() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


@pytest.fixture
def fake_llm(_fake_llm_session: FakeLlmServer) -> FakeLlmServer:
    _fake_llm_session.load_script({})
    _fake_llm_session.reset()
    return _fake_llm_session


@pytest.fixture
def notes_app() -> NotesApp:
    return NotesApp()


@pytest.fixture
def home(notes_app: NotesApp) -> Home:
    """The demo phone's apps, with this test's notes app."""
    return Home(apps=[notes_app, SettingsApp(), ShoppingApp()])


def _adb_daemons() -> set[int]:
    return {p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == "adb"}


@pytest.fixture
def demo_adb(home: Home, monkeypatch: pytest.MonkeyPatch, adb_close_unpaused: None) -> Iterator[DemoAdbServer]:
    before = _adb_daemons()
    with DemoAdbServer([DemoPhone(SERIAL, home=home)]) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        yield server
    assert _adb_daemons() <= before, "a real adb server was started"
    here = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    assert adb_spawns(here) == [], "adbutils could not reach the demo server and asked for an adb daemon"


@pytest.fixture
def adb_client(demo_adb: DemoAdbServer) -> adbutils.AdbClient:
    return adbutils.AdbClient(host="127.0.0.1", port=demo_adb.port)


@pytest.fixture
def storage(tmp_path: Path) -> FsspecStorage:
    return open_storage((tmp_path / "storage").as_uri())


@dataclass
class Harness:
    loop: AgentLoop
    client: ToolCallingClient
    storage: FsspecStorage

    def log(self, run_id: str) -> EventLog:
        return EventLog(self.storage, run_id)


MakeLoop = Callable[..., Harness]


@pytest.fixture
def make_loop(fake_llm: FakeLlmServer, adb_client: adbutils.AdbClient, storage: FsspecStorage) -> Iterator[MakeLoop]:
    made: list[ToolCallingClient] = []

    def make(
        *,
        api_mode: str = "chat",
        takeover: TakeoverHook | None = None,
        checkpoint: Checkpoint | None = None,
        heartbeat_s: float = 10.0,
        settings: AgentSettings | None = None,
        **overrides: object,
    ) -> Harness:
        if settings is None:
            settings = AgentSettings(
                _env_file=None,  # type: ignore[call-arg]
                base_url=fake_llm.base_url(),
                model="agent",
                api_key=SecretStr(KEY),
                api_mode=api_mode,  # type: ignore[arg-type]
                **overrides,  # type: ignore[arg-type]
            )
        client = ToolCallingClient(
            settings.endpoint(), timeout_seconds=30, retry=RetryPolicy(max_attempts=3, base_seconds=0.01)
        )
        made.append(client)
        # the events go to the run's log; tests read them back from storage, as pages do
        loop = AgentLoop(
            model=client,
            phone=U2Phone(SERIAL, adb_client),
            devices=AdbDirectory(adb_client),
            storage=storage,
            sink=_RunLogs(storage),
            settings=settings,
            takeover=takeover,
            checkpoint=checkpoint,
            heartbeat_s=heartbeat_s,
        )
        return Harness(loop=loop, client=client, storage=storage)

    yield make
    for client in made:
        client.close()


class _RunLogs:
    """An EventSink writing each event to its own run's log."""

    def __init__(self, storage: FsspecStorage) -> None:
        self._storage = storage
        self._logs: dict[str, EventLog] = {}

    def emit(self, event: object) -> None:
        run_id = event.run_id  # type: ignore[attr-defined]
        self._logs.setdefault(run_id, EventLog(self._storage, run_id)).emit(event)  # type: ignore[arg-type]
