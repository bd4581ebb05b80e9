"""The model an agent or designer run talks to, as the phone host builds it: the deployment
settings (AGENT_* on the worker), the run's key by reference (a Prefect Secret block, loaded
here on the worker and never passed as a parameter), and the client: the streamed tool-calling
client on the run's endpoint, or the demo's scripted model (`--model scripted`, no key)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, cast

from pydantic import SecretStr

from device_flows.demo import SCRIPTED_MODEL, ScriptedModel
from rlauto_core.agent.run import AgentSettings, RunModel, TurnModel
from rlauto_core.errors import ConfigError
from rlauto_core.llm import EndpointConfig, RetryPolicy, ToolCallingClient

Gate = Callable[[], AbstractContextManager[Any]]


def with_key(settings: AgentSettings, model: RunModel) -> AgentSettings:
    """The settings with the run's key: the Secret block it names, else the worker's AGENT_API_KEY."""
    if model.key_secret is None:
        return settings
    from prefect.blocks.system import Secret

    try:
        block = cast(Secret[str], Secret.load(model.key_secret))  # a block, not a coroutine: called from sync code
        value = block.get()
    except ValueError:
        raise ConfigError(
            f"no Secret block {model.key_secret!r} on the Prefect server: save the key there first "
            f"(rlauto agent key {model.key_secret})"
        ) from None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"Secret block {model.key_secret!r} holds no key (expected a non-empty string)")
    return settings.model_copy(update={"api_key": SecretStr(value.strip())})


def is_scripted(model: RunModel) -> bool:
    return model.model == SCRIPTED_MODEL


@contextmanager
def turn_model(settings: AgentSettings, endpoint: EndpointConfig, *, gate: Gate | None = None) -> Iterator[TurnModel]:
    """The client of one run; building it refuses a missing key before anything is taken."""
    if endpoint.model == SCRIPTED_MODEL:
        yield ScriptedModel()
        return
    client = ToolCallingClient(
        endpoint, timeout_seconds=settings.timeout_seconds, proxy=settings.upstream_proxy,
        retry=RetryPolicy(max_attempts=settings.max_attempts), gate=gate,
    )  # fmt: skip
    with client:
        yield client
