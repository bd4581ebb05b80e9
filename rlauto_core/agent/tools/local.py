"""Local tools: tools the platform executes itself, never on the phone (the designer's
`submit_task` is one). A run's mode lists them; the toolbox runs them like the phone's tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rlauto_core.llm.tool_types import ToolSpec

if TYPE_CHECKING:
    from rlauto_core.agent.tools.toolbox import ToolOutcome


@dataclass(frozen=True)
class LocalCall:
    """What a local tool knows of the run calling it."""

    run_id: str
    instruction: str
    secrets: tuple[str, ...] = ()


class LocalTool(Protocol):
    """A tool the platform executes itself; an outcome with an accepted `completion` ends the run."""

    @property
    def name(self) -> str: ...

    def spec(self) -> ToolSpec: ...

    def run(self, args: dict[str, Any], call: LocalCall) -> ToolOutcome: ...
