"""Distillation: after a run that completed with successful actions, one model call turns the
instruction and its tool sequence into a recipe (experience library) and up to 3 named actions
(action library).

The call has thinking switched off (`memory_endpoint`): a reasoning model spends the budget on
reasoning and leaves the answer empty or cut. The answer is salvaged object by object when it
was cut (`salvage.py`), the recipe goes through the quality gate (`quality.py`), each action
through `check_action`. Every refusal and failure is a problem in the outcome AND a log line:
a distillation never fails silently, and never fails the run.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from rlauto_core.agent.policy import CONTROL_TOOLS, OBSERVATION_TOOLS, StepRecord
from rlauto_core.agent.run import AgentSettings, DistilOutcome, DistilRequest, ModelChoice
from rlauto_core.errors import ConfigError, RlautoError
from rlauto_core.llm.endpoints import EndpointConfig
from rlauto_core.llm.http_client import HttpModelClient
from rlauto_core.llm.retry import RetryPolicy
from rlauto_core.llm.types import Message, ModelClient
from rlauto_core.memory import prompts as mp
from rlauto_core.memory.actions import ActionLibrary, ActionRefused
from rlauto_core.memory.experience import ExperienceLibrary
from rlauto_core.memory.quality import recipe_problem
from rlauto_core.memory.salvage import salvage
from rlauto_core.memory.tool_steps import candidate_steps
from rlauto_core.redact import redact_strings, redact_text
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent.memory")
MEMORY_MAX_TOKENS = 2048
MAX_ACTIONS_OUT = 3
MAX_CALLS_LISTED = 60
_ARGS_CHARS = 200


def memory_endpoint(settings: AgentSettings, choice: ModelChoice | None = None) -> EndpointConfig:
    """The agent's endpoint for memory calls (distillation, audit): thinking off, a short answer."""
    return settings.endpoint(choice).model_copy(update={"enable_thinking": False, "max_tokens": MEMORY_MAX_TOKENS})


def _listed_calls(steps: list[StepRecord]) -> tuple[list[str], int]:
    listed: list[str] = []
    left_out = 0
    for step in steps:
        if not step.ok or step.tool in OBSERVATION_TOOLS - {"wait"} or step.tool == "report_task":
            continue
        if step.tool == "tap" and ("x" in step.args or "y" in step.args):
            left_out += 1
            continue
        if len(listed) >= MAX_CALLS_LISTED:
            left_out += 1
            continue
        args = json.dumps(step.args, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        listed.append(f"{step.tool} {args[:_ARGS_CHARS]}")
    return listed, left_out


class Distiller:
    """Needs a client whose endpoint has thinking switched off (`memory_endpoint`)."""

    def __init__(self, storage: Storage, client: ModelClient, *, secrets: tuple[str, ...] = ()) -> None:
        if client.endpoint.enable_thinking is not False:
            raise ConfigError("the distillation client must have thinking switched off: build it on memory_endpoint()")
        self.experiences = ExperienceLibrary(storage)
        self.actions = ActionLibrary(storage)
        self.client = client
        self.secrets = secrets

    def distil(self, request: DistilRequest) -> DistilOutcome:
        run = request.run_id
        acted = [s for s in request.steps if s.ok and s.tool not in OBSERVATION_TOOLS and s.tool not in CONTROL_TOOLS]
        if not acted:
            log.info("run %s: nothing distilled: no successful action to learn from", run)
            return DistilOutcome(problems=["no successful action to learn from"])
        calls, left_out = _listed_calls(request.steps)
        candidates = candidate_steps(request.steps)
        instruction = redact_text(request.instruction, self.secrets)
        prompt = mp.distil_user(instruction, calls, left_out, candidates)
        messages = [
            Message(role="system", content=mp.DISTIL_SYSTEM),
            Message(role="user", content=redact_strings(prompt, self.secrets)),
        ]
        try:
            reply = self.client.complete(messages, json_output=True)
        except RlautoError as exc:
            problem = f"the model call failed: {redact_text(str(exc), self.secrets)[:300]}"
            log.warning("run %s: distillation failed: %s", run, problem)
            return DistilOutcome(problems=[problem], called_model=True)
        outcome = DistilOutcome(usage=reply.usage, called_model=True)
        answer = salvage(reply.text or "")
        if answer.dropped:
            outcome.problems.append(
                f"the answer was cut off: {answer.dropped} unfinished part(s) dropped, the rest kept"
            )
        value = redact_strings(answer.value, self.secrets)
        self._recipe(request, instruction, value.get("recipe"), outcome)
        self._actions(run, value.get("actions"), outcome)
        if outcome.problems:
            log.warning("run %s: distillation: %s", run, "; ".join(outcome.problems)[:1000])
        log.info("run %s: distilled recipe %s, actions %s", run, outcome.recipe_id or "none", outcome.actions or "none")
        return outcome

    def _recipe(self, request: DistilRequest, instruction: str, raw: Any, outcome: DistilOutcome) -> None:
        title: Any = None
        text: Any = raw
        if isinstance(raw, dict):
            title, text = raw.get("title"), raw.get("text")
        if not isinstance(text, str):
            outcome.problems.append("recipe refused: the answer holds no recipe text")
            return
        problem = recipe_problem(text, mp.EXAMPLE_RECIPE, mp.FIELD_HINTS)
        if problem:
            outcome.problems.append(f"recipe refused: {problem}")
            return
        name = title.strip() if isinstance(title, str) and title.strip() else instruction
        if mp.TITLE_HINT in name.lower():
            name = instruction
        stored = self.experiences.add(instruction, " ".join(name.split())[:200], text.strip(), run_id=request.run_id)
        outcome.recipe_id, outcome.recipe_title = stored.id, stored.title

    def _actions(self, run: str, raw: Any, outcome: DistilOutcome) -> None:
        if raw is None:
            return
        if not isinstance(raw, list):
            outcome.problems.append("actions refused: not a list")
            return
        if len(raw) > MAX_ACTIONS_OUT:
            outcome.problems.append(f"{len(raw)} actions: at most {MAX_ACTIONS_OUT} per run; the rest left out")
        for data in raw[:MAX_ACTIONS_OUT]:
            try:
                saved = self.actions.save(data, run_id=run)
            except ActionRefused as exc:
                outcome.problems.append(str(exc)[:600])
                continue
            outcome.actions.append(saved.name)


def audit_client(settings: AgentSettings, choice: ModelChoice | None = None) -> HttpModelClient:
    """The audit's model: the memory client, refused (ConfigError) when there is no key."""
    if settings.api_key is None:
        raise ConfigError(
            "no model for the audit: set AGENT_API_KEY (and AGENT_BASE_URL / AGENT_MODEL) where the audit runs "
            "(the environment or .env; a worker's environment for the flow)"
        )
    return memory_client(settings, choice)


def memory_client(
    settings: AgentSettings,
    choice: ModelChoice | None = None,
    *,
    gate: Callable[[], AbstractContextManager[Any]] | None = None,
) -> HttpModelClient:
    """The client of memory calls: the agent's endpoint with thinking off (`memory_endpoint`)."""
    return HttpModelClient(
        memory_endpoint(settings, choice),
        timeout_seconds=settings.timeout_seconds,
        proxy=settings.upstream_proxy,
        retry=RetryPolicy(max_attempts=settings.max_attempts),
        gate=gate,
    )
