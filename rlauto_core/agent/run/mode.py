"""What kind of run the loop drives: the phone agent (the default) or another use of the same
loop, such as the task designer. A mode gives the system prompt, local tools (executed by the
platform, not on the phone), a cap on tool calls and on the answer's length, whether the run
takes a conversation's history and whether a completed run is distilled into memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rlauto_core.agent.run import prompts
from rlauto_core.agent.tools import LocalTool


@dataclass(frozen=True)
class LoopMode:
    name: str = "agent"
    system: Callable[[str], str] = prompts.system_prompt  # the target serial -> the system prompt
    local_tools: tuple[LocalTool, ...] = ()
    max_tool_calls: int | None = None
    max_output_tokens: int | None = None  # the answer's cap (the endpoint's max_tokens), kept out of the context
    takes_history: bool = True
    distils: bool = True


AGENT_MODE = LoopMode()
