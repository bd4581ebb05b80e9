"""What a run tells the world, as typed events: the event log, artifacts and pages read these.

Every event has `type`, `run_id`, `at` (UTC) and `step` (tool calls done so far). None carries
a key: model errors are scrubbed by the model client, and settings never enter an event.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field, TypeAdapter

from rlauto_core.agent.policy import Fuse, NoticeKind, Rejected
from rlauto_core.llm.types import TokenUsage

Outcome = Literal["completed", "blocked", "paused", "budget_exhausted", "chat_ended", "stopped", "failed"]
# outcomes a run can be resumed from, history intact
RESUMABLE: frozenset[str] = frozenset({"paused", "budget_exhausted", "stopped", "failed"})


def _now() -> datetime:
    return datetime.now(UTC)


class _Event(BaseModel):
    run_id: str
    at: datetime = Field(default_factory=_now)
    step: int = 0


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    instruction: str
    serial: str
    model: str
    base_url: str | None = None
    conversation_id: str | None = None
    resumed: bool = False
    note: str | None = None
    # a resume that changed the model: what the run ran on before (`RunModel.describe()`)
    model_was: str | None = None


class ModelCalled(_Event):
    """One model call: its own usage and the run's running total."""

    type: Literal["model_called"] = "model_called"
    call: int
    usage: TokenUsage
    run_usage: TokenUsage
    usage_reported: bool
    duration_s: float
    tool_calls: int
    finish_reason: str | None = None


class Reasoning(_Event):
    """The model's reasoning of one call, for display only (never fed back); 6000 chars at most."""

    type: Literal["reasoning"] = "reasoning"
    text: str


class AssistantText(_Event):
    type: Literal["assistant_text"] = "assistant_text"
    text: str


class ToolCalled(_Event):
    """One tool call: a step card. `coordinates` marks a tap by coordinates (the last resort);
    `rejected` a call that never reached the phone (unknown tool, arguments not JSON or invalid)."""

    type: Literal["tool_called"] = "tool_called"
    call_id: str
    tool: str
    args: dict[str, Any]
    ok: bool
    result: str
    error: str | None = None
    state_changing: bool
    rejected: Rejected | None = None
    coordinates: bool = False
    duration_s: float = 0.0
    screen: str | None = None
    thumbnail: str | None = None


class ScreenTaken(_Event):
    """A screenshot the loop took itself (the start, after a turn's state change or a takeover):
    what the phone shows now, for step cards and the live view."""

    type: Literal["screen"] = "screen"
    caption: str
    screen: str
    thumbnail: str


class PolicyApplied(_Event):
    """A hint, a re-route or a fuse of the run policy; `detail` is the action or error."""

    type: Literal["policy"] = "policy"
    kind: NoticeKind
    fuse: Fuse
    streak: int
    detail: str
    message: str


class Heartbeat(_Event):
    """The run is alive: sent every 10 s while the loop waits on the model, a tool or a person."""

    type: Literal["heartbeat"] = "heartbeat"
    waiting_on: Literal["model", "tool", "person"]
    waited_s: float


class TakeoverRequested(_Event):
    type: Literal["takeover_requested"] = "takeover_requested"
    reason: str
    message: str


class TakeoverEnded(_Event):
    type: Literal["takeover_ended"] = "takeover_ended"
    note: str | None = None


class TaskReported(_Event):
    """A `report_task` call; a completion shows whether it was accepted and why not."""

    type: Literal["task_report"] = "task_report"
    kind: str
    summary: str
    accepted: bool
    problems: list[str] = Field(default_factory=list)
    checked: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    deliverables: list[str] = Field(default_factory=list)


class RecallHit(BaseModel):
    """One recalled recipe or action: its id, what it is called, how alike it is (0-1)."""

    id: str
    title: str
    score: float


class MemoryRecalled(_Event):
    """A card at the start: recipes or actions of similar tasks were put into the system prompt."""

    type: Literal["memory_recalled"] = "memory_recalled"
    library: Literal["experience", "actions"]
    hits: list[RecallHit]
    message: str


class MemoryDistilled(_Event):
    """A card at the end of a completed run: what it taught the libraries, and what was refused."""

    type: Literal["memory_distilled"] = "memory_distilled"
    recipe_id: str | None = None
    recipe_title: str | None = None
    actions: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)


class RunEnded(_Event):
    """How the run ended; `answer` is the final answer (a completion's summary, or the last text)."""

    type: Literal["run_ended"] = "run_ended"
    outcome: Outcome
    answer: str = ""
    fuse: Fuse | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model_calls: int = 0
    deliverables: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def resumable(self) -> bool:
        return self.outcome in RESUMABLE


AgentEvent = Annotated[
    RunStarted
    | ModelCalled
    | Reasoning
    | AssistantText
    | ToolCalled
    | ScreenTaken
    | PolicyApplied
    | Heartbeat
    | TakeoverRequested
    | TakeoverEnded
    | TaskReported
    | MemoryRecalled
    | MemoryDistilled
    | RunEnded,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[AgentEvent] = TypeAdapter(AgentEvent)


class EventSink(Protocol):
    """Where a run's events go: the event log, Prefect artifacts, a live page. `emit` may be
    called from the run's thread only; it must not block for long."""

    def emit(self, event: AgentEvent) -> None: ...


class FanOut:
    """Every event to each sink, in order."""

    def __init__(self, *sinks: EventSink) -> None:
        self.sinks = sinks

    def emit(self, event: AgentEvent) -> None:
        for sink in self.sinks:
            sink.emit(event)


class Collected:
    """Keeps events in memory (SDK callers, tests of the loop's output)."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
