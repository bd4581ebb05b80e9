"""The scripted model of package environments: `--model scripted`, no key, no network.

It plays the package's golden trajectory, one tool call a turn, as an agent that knew the task:
each call's ids are the ones the environment's earlier answers showed it (read back from the
tool results in the conversation, as a model would), never the recording's. It is an oracle: a
success rate of 1.0 shows the plumbing (environment, reward, eval flow, index, dashboard) works
end to end, not that a model is good. An answer task's final text is the package's answer.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from rlauto_core.llm import AssistantItem, ChatItem, TokenUsage, ToolCall, ToolResultItem, ToolSpec, TurnReply
from rlauto_core.package.models import TaskPackage
from rlauto_core.recording import Call
from rlauto_core.replay.replayer import Replayer

SCRIPTED_MODEL = "scripted"


class ScriptedPackageModel:
    """A turn model (`turn(items, tools)`) over one package's golden trajectory."""

    def __init__(self, package: TaskPackage, golden: list[Call]) -> None:
        self.package = package
        self.golden = golden

    def turn(self, items: list[ChatItem], tools: list[ToolSpec], **_: Any) -> TurnReply:
        replayer = Replayer(self.golden)
        results = _results(items)
        for index, content in enumerate(results[: len(self.golden)]):
            try:
                replayer.learn(index, json.loads(content))
            except ValueError:
                continue  # a result that is no JSON shows no id
        done = len(results)
        if done >= len(self.golden):
            answer = self.package.task.answer
            text = answer if isinstance(answer, str) else json.dumps(answer) if answer is not None else "Done."
            return TurnReply(text=text, usage=TokenUsage(calls=1), usage_reported=True, model=SCRIPTED_MODEL,
                             finish_reason="stop")  # fmt: skip
        call = replayer.call(done)
        tool_call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=call.name,
                             arguments=json.dumps(call.arguments, ensure_ascii=False))  # fmt: skip
        return TurnReply(tool_calls=[tool_call], usage=TokenUsage(calls=1), usage_reported=True,
                         model=SCRIPTED_MODEL, finish_reason="tool_calls")  # fmt: skip


def _results(items: list[ChatItem]) -> list[str]:
    """The tool results in order, one per call the model made (its own calls' answers)."""
    asked = [c.id for item in items if isinstance(item, AssistantItem) for c in item.tool_calls]
    answered = {item.call_id: item.content for item in items if isinstance(item, ToolResultItem)}
    return [answered[i] for i in asked if i in answered]
