"""One attempt of a model in a package's environment: the model sees the task and the tools,
calls tools one turn after another, and the session's reward is the attempt's score."""

from __future__ import annotations

import json
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from rlauto_core.errors import RlautoError
from rlauto_core.llm import (
    AssistantItem,
    ChatItem,
    ModelError,
    SystemItem,
    TokenUsage,
    ToolResultItem,
    ToolSpec,
    TurnReply,
    UserItem,
)
from rlauto_core.replay.env import EnvReward, ReplayEnv
from rlauto_core.replay.steps import EnvCall

MAX_RESULT_CHARS = 20_000  # a tool result beyond this is cut for the model (the attempt keeps it whole)
SYSTEM_PROMPT = (
    "You operate an application through its tools to complete the user's task. Use the ids the tools "
    "return, never invented ones. Call one tool at a time and read its result before the next. When the "
    "task is done, answer with a short final message (and the value asked for, if the task asks one)."
)


class TurnModel(Protocol):
    def turn(self, items: list[ChatItem], tools: list[ToolSpec]) -> TurnReply: ...


class EpisodeCall(BaseModel):
    """One call of the attempt as the dashboard shows it beside the rubrics."""

    name: str
    arguments: Any
    outcome: str
    status: int | None = None
    is_error: bool = False


class Episode(BaseModel):
    reward: EnvReward
    turns: int
    stopped: Literal["done", "turn_limit", "model_error"]
    error: str | None = None
    final_text: str = ""
    usage: TokenUsage = Field(default_factory=TokenUsage)
    calls: list[EpisodeCall] = Field(default_factory=list)


def run_episode(env: ReplayEnv, model: TurnModel, *, max_turns: int = 30) -> Episode:
    """Reset, let the model act until it answers without a tool call (or `max_turns`), close."""
    observation = env.reset()
    tools = [ToolSpec(name=t.name, description=t.description, parameters=t.input_schema) for t in env.environment.tools]
    items: list[ChatItem] = [SystemItem(content=SYSTEM_PROMPT), UserItem(content=f"TASK: {observation.instruction}")]
    usage = TokenUsage()
    stopped: Literal["done", "turn_limit", "model_error"] = "turn_limit"
    error, final, turns = None, "", 0
    for turns in range(1, max_turns + 1):  # noqa: B007  (the count is the episode's)
        try:
            reply = model.turn(items, tools)
        except (ModelError, RlautoError) as exc:
            stopped, error = "model_error", str(exc)
            break
        usage = usage + reply.usage
        items.append(AssistantItem(content=reply.text, tool_calls=reply.tool_calls))
        if not reply.tool_calls:
            stopped, final = "done", reply.text
            break
        for call in reply.tool_calls:
            answer = env.step(EnvCall(name=call.name, arguments=call.arguments))
            text = json.dumps(answer, ensure_ascii=False)
            items.append(ToolResultItem(call_id=call.id, name=call.name, content=text[:MAX_RESULT_CHARS]))
    session = env.session
    calls = [_episode_call(c) for c in session.calls] if session is not None else []
    answer_task = env.environment.package.task.answer is not None
    reward = env.close(answer=final if answer_task and final else None)
    return Episode(reward=reward, turns=turns, stopped=stopped, error=error, final_text=final[:2000], usage=usage,
                   calls=calls)  # fmt: skip


def _episode_call(logged: Any) -> EpisodeCall:
    call = logged.call
    if call.kind == "http":
        return EpisodeCall(name=call.name, arguments={"query": call.query_string, "body": (call.request_body or "")[:2000]},
                           outcome=logged.outcome, status=call.status, is_error=(call.status or 0) >= 400)  # fmt: skip
    return EpisodeCall(name=call.tool, arguments=call.arguments, outcome=logged.outcome, is_error=call.is_error)
