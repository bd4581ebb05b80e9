"""One attempt of a model in a package's environment, as a task: the environment, the model (the
scripted one, or an OpenAI-compatible endpoint behind the global `rlauto-llm` limit, as packaging's
model calls are), the episode, and its files and row written to storage."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from prefect import task
from pydantic import BaseModel, SecretStr

from rlauto_core.agent.run import AgentSettings, ModelChoice
from rlauto_core.config import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.llm import RetryPolicy, ToolCallingClient
from rlauto_core.replay import (
    SCRIPTED_MODEL,
    ReplayEnv,
    ScriptedPackageModel,
    TurnModel,
    golden_calls,
    open_env,
    run_episode,
)
from rlauto_core.store import EnvEvalRow, attempt_folder, json_bytes
from tasks.model_calls import llm_gate
from tasks.storage_io import get_storage


class EvalModel(BaseModel):
    """The model under evaluation: never its key, only the Secret block that holds it."""

    model: str = SCRIPTED_MODEL
    base_url: str | None = None
    api_mode: Literal["chat", "responses"] | None = None
    key_secret: str | None = None


def _key(secret: str) -> SecretStr:
    from prefect.blocks.system import Secret

    try:
        value = Secret.load(secret).get()  # type: ignore[union-attr]
    except ValueError:
        raise ConfigError(f"no Secret block {secret!r} on the Prefect server: save the key there first") from None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"Secret block {secret!r} holds no key")
    return SecretStr(value.strip())


@contextmanager
def turn_model(choice: EvalModel, env: ReplayEnv, llm_limit: int) -> Iterator[TurnModel]:
    """The scripted model (no key), or the agent client on the chosen endpoint (AGENT_* settings,
    the run's model, base URL and key by Secret block), its calls held by the global LLM limit."""
    if choice.model == SCRIPTED_MODEL:
        package = env.environment.package
        golden = golden_calls(env.environment.world.recording, [s.call_id for s in package.golden_trajectory])
        yield ScriptedPackageModel(package, golden)
        return
    settings = AgentSettings.from_environment()
    endpoint = settings.endpoint(ModelChoice(model=choice.model, base_url=choice.base_url, api_mode=choice.api_mode))
    if choice.key_secret:
        endpoint = endpoint.model_copy(update={"api_key": _key(choice.key_secret),
                                               "key_source": f"Secret block {choice.key_secret!r}"})  # fmt: skip
    if endpoint.api_key is None:
        raise ConfigError("the eval model needs a key: AGENT_API_KEY, or --key-secret NAME (a Prefect Secret block)")
    client = ToolCallingClient(endpoint, timeout_seconds=settings.timeout_seconds, proxy=settings.upstream_proxy,
                               retry=RetryPolicy(max_attempts=settings.max_attempts), gate=llm_gate(llm_limit))  # fmt: skip
    with client:
        yield client


@task(name="eval-attempt", task_run_name="{package} #{attempt}")
def run_attempt(
    package: str, attempt: int, eval_id: str, model: EvalModel, max_turns: int, storage_url: str
) -> EnvEvalRow:
    storage = get_storage(storage_url)
    name = Path(package).name
    folder = attempt_folder(eval_id, name, attempt)
    with tempfile.TemporaryDirectory(prefix="rlauto-eval-") as scratch:
        env = open_env(package, out_dir=scratch, seed=attempt)
        with turn_model(model, env, Settings().global_llm_concurrency) as agent:
            episode = run_episode(env, agent, max_turns=max_turns)
        assert episode.reward.attempt is not None
        storage.write_bytes(f"{folder}/attempt.zip", Path(episode.reward.attempt).read_bytes())
    document: dict[str, Any] = {"package": name, "model": model.model, "attempt": attempt,
                                **json.loads(episode.model_dump_json())}  # fmt: skip
    document["reward"]["attempt"] = f"{folder}/attempt.zip"
    storage.write_bytes(f"{folder}/episode.json", json_bytes(document))
    reward = episode.reward
    return EnvEvalRow(
        eval_id=eval_id, model=model.model, package=name, attempt=attempt, score=reward.score,
        max_score=reward.max_score, passed=reward.passed, turns=episode.turns, calls=reward.calls,
        unknown_calls=reward.unknown_calls, model_calls=episode.usage.calls, tokens_prompt=episode.usage.prompt_tokens,
        tokens_completion=episode.usage.completion_tokens, stopped=episode.stopped, error=episode.error,
        rubrics_passed=[f"{r.id} {r.title}"[:200] for r in reward.rubrics if r.passed],
        rubrics_failed=[f"{r.id} {r.title}"[:200] for r in reward.rubrics if not r.passed],
        episode_path=f"{folder}/episode.json", attempt_path=f"{folder}/attempt.zip",
    )  # fmt: skip
