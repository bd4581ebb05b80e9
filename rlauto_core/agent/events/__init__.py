"""Events and records: what a run tells the world and where it is kept.

Typed events (`AgentEvent` and its members) and their sinks (`EventSink`, `FanOut`), the run's
event log in storage (`EventLog`, read from an offset), `RunView` (a run folded from its log for
pages and terminals), the storage layout of runs (`layout`) and one-JSON-object-per-file record
folders (`RecordDir`, used by memory and the designer).
"""

from rlauto_core.agent.events import layout
from rlauto_core.agent.events.event_log import EventLog, EventLogError, LoggedEvent
from rlauto_core.agent.events.events import (
    RESUMABLE,
    AgentEvent,
    AssistantText,
    Collected,
    EventSink,
    FanOut,
    Heartbeat,
    MemoryDistilled,
    MemoryRecalled,
    ModelCalled,
    Outcome,
    PolicyApplied,
    Reasoning,
    RecallHit,
    RunEnded,
    RunStarted,
    ScreenTaken,
    TakeoverEnded,
    TakeoverRequested,
    TaskReported,
    ToolCalled,
)
from rlauto_core.agent.events.records import RecordDir
from rlauto_core.agent.events.watch import ALIVE_S, RunView

__all__ = [
    "ALIVE_S",
    "RESUMABLE",
    "AgentEvent",
    "AssistantText",
    "Collected",
    "EventLog",
    "EventLogError",
    "EventSink",
    "FanOut",
    "Heartbeat",
    "LoggedEvent",
    "MemoryDistilled",
    "MemoryRecalled",
    "ModelCalled",
    "Outcome",
    "PolicyApplied",
    "Reasoning",
    "RecallHit",
    "RecordDir",
    "RunEnded",
    "RunStarted",
    "RunView",
    "ScreenTaken",
    "TakeoverEnded",
    "TakeoverRequested",
    "TaskReported",
    "ToolCalled",
    "layout",
]
