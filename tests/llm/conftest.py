"""One fake model server per session for the model-layer tests, reset before each test."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from pydantic import SecretStr

from rlauto_core.llm import EndpointConfig, HttpModelClient, RetryPolicy, Role
from tests.fakes.llm_server import FakeLlmServer


@pytest.fixture(scope="session")
def _fake_llm_session() -> Iterator[FakeLlmServer]:
    with FakeLlmServer() as server:
        yield server


@pytest.fixture
def fake_llm(_fake_llm_session: FakeLlmServer) -> FakeLlmServer:
    _fake_llm_session.load_script({})
    _fake_llm_session.reset()
    return _fake_llm_session


class SleepRecorder:
    """Stands in for time.sleep so backoff is asserted without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


MakeClient = Callable[..., HttpModelClient]


@pytest.fixture
def make_client(fake_llm: FakeLlmServer) -> Iterator[MakeClient]:
    made: list[HttpModelClient] = []

    def make(
        role: Role = Role.ANALYZER,
        *,
        api_mode: str = "chat",
        key: str = "sk-test-analyzer-key",
        model: str | None = None,
        timeout: float = 5.0,
        attempts: int = 3,
        sleep: SleepRecorder | None = None,
        base_url: str | None = None,
        proxy: str | None = None,
        **endpoint: object,
    ) -> HttpModelClient:
        config = EndpointConfig(
            role=role,
            base_url=base_url or fake_llm.base_url(),
            model=model or str(role),
            api_key=SecretStr(key),
            api_mode=api_mode,  # type: ignore[arg-type]
            key_source=f"{str(role).upper()}_API_KEY",
            **endpoint,  # type: ignore[arg-type]
        )
        client = HttpModelClient(
            config,
            timeout_seconds=timeout,
            proxy=proxy,
            retry=RetryPolicy(max_attempts=attempts, base_seconds=0.01),
            sleep=sleep or SleepRecorder(),
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
