"""The phone agent, pure: a model operates a phone through tools under the run policy.

Part of the face (what `device_flows`, the dashboard, the CLI and the SDK use):
- `AgentLoop(model=..., phone=..., devices=..., storage=..., sink=..., settings=...)` with
  `.start(run_id, instruction, conversation_id=...)` and `.resume(run_id, note=...)` -> `RunResult`;
  hooks `takeover` (`TakeoverRequest` -> `TakeoverAnswer`), `checkpoint` (raise `StopRequested`).
- `AgentSettings` (AGENT_* environment), `ModelChoice` (a run's model, base URL, API mode).
- events (`AgentEvent` and its members), `EventSink`, `FanOut`, `EventLog` (`read(offset)`).
- `RunStore`/`RunState`, `ConversationStore`, the run policy (`RunPolicy`, `replay`) and the
  step log (`parse_step_log`, `StepLog`), storage paths (`layout`).
- `RunView` (a run folded from its event log for pages and terminals: timeline, usage,
  takeover, outcome, alive), `AgentDevice`/`LaunchedAgentRun`/`LaunchStatus` (what launching gives back) and the
  names the flow and its launchers share (`device_slot`, `AGENT_SLOT`, `agent_run_tag`...).
- memory (`agent.md`, "Memory"): `ExperienceLibrary` (recipes, recall, audit marks),
  `ActionLibrary` and `check_action`, `MemoryRecall` (`AgentLoop(recall=...)`), `Distiller` on a
  `memory_endpoint` client (`AgentLoop(distiller=...)`), `audit_experiences`.
- designer mode: `AgentLoop(mode=designer_mode(storage))` on a `designer_endpoint` client; the
  latest draft and confirmed step tasks in `DraftStore`.
"""

from rlauto_core.agent import layout
from rlauto_core.agent.action_check import ACTION_KINDS, MAX_ACTION_STEPS, ActionCheck, ActionSpec, check_action
from rlauto_core.agent.actions import Action, ActionLibrary, ActionRecalled, ActionRefused
from rlauto_core.agent.audit import AuditFailed, AuditSummary, audit_experiences
from rlauto_core.agent.conversation import Conversation, ConversationMessage, ConversationStore
from rlauto_core.agent.designer import (
    DESIGNER_MAX_TOKENS,
    DESIGNER_MAX_TOOL_CALLS,
    SUBMIT_TASK,
    designer_endpoint,
    designer_mode,
)
from rlauto_core.agent.distill import (
    Distiller,
    DistilOutcome,
    DistilRequest,
    RunDistiller,
    memory_client,
    memory_endpoint,
)
from rlauto_core.agent.drafts import Draft, DraftStore, StepTask
from rlauto_core.agent.event_log import EventLog, EventLogError, LoggedEvent
from rlauto_core.agent.events import (
    EVENT_ADAPTER,
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
from rlauto_core.agent.experience import (
    MAX_RECALLED,
    RECALL_THRESHOLD,
    AuditMark,
    Experience,
    ExperienceLibrary,
    ExperienceView,
    Recalled,
)
from rlauto_core.agent.heartbeat import Checkpoint, StopRequested
from rlauto_core.agent.images import ImageError, scale_screenshot
from rlauto_core.agent.launch import (
    AGENT_HOLDER_VARIABLE,
    AGENT_SLOT,
    RUN_AGENT_DEPLOYMENT,
    AgentDevice,
    LaunchedAgentRun,
    LaunchStatus,
    agent_run_tag,
    device_holder_variable,
    device_slot,
)
from rlauto_core.agent.loop import AgentLoop, RunResult, TurnModel
from rlauto_core.agent.mode import AGENT_MODE, LocalCall, LocalTool, LoopMode
from rlauto_core.agent.policy import (
    CONTROL_TOOLS,
    OBSERVATION_TOOLS,
    Fuse,
    NoticeKind,
    PolicyNotice,
    PolicyState,
    PolicyVerdict,
    Resumed,
    RunPolicy,
    StepRecord,
    replay,
)
from rlauto_core.agent.recall import MemoryRecall, Recall, RecallSource
from rlauto_core.agent.report import CompletionCheck, TaskReport, check_completion
from rlauto_core.agent.salvage import Salvaged, salvage
from rlauto_core.agent.settings import AgentSettings, ModelChoice
from rlauto_core.agent.similarity import containment, dice
from rlauto_core.agent.state import AgentStateError, RunState, RunStore
from rlauto_core.agent.step_log import MAX_LOG_BYTES, StepLog, StepLogError, parse_step_log
from rlauto_core.agent.takeover import TakeoverAnswer, TakeoverHook, TakeoverReason, TakeoverRequest
from rlauto_core.agent.tool_args import TOOL_NAMES, tool_specs
from rlauto_core.agent.toolbox import DeviceDirectory, DeviceInfo
from rlauto_core.agent.ui_tree import UiTreeError, compress_hierarchy
from rlauto_core.agent.watch import ALIVE_S, RunView

__all__ = [
    "ACTION_KINDS",
    "AGENT_HOLDER_VARIABLE",
    "AGENT_MODE",
    "AGENT_SLOT",
    "ALIVE_S",
    "CONTROL_TOOLS",
    "DESIGNER_MAX_TOKENS",
    "DESIGNER_MAX_TOOL_CALLS",
    "EVENT_ADAPTER",
    "MAX_ACTION_STEPS",
    "MAX_LOG_BYTES",
    "MAX_RECALLED",
    "OBSERVATION_TOOLS",
    "RECALL_THRESHOLD",
    "RESUMABLE",
    "RUN_AGENT_DEPLOYMENT",
    "SUBMIT_TASK",
    "TOOL_NAMES",
    "Action",
    "ActionCheck",
    "ActionLibrary",
    "ActionRecalled",
    "ActionRefused",
    "ActionSpec",
    "AgentDevice",
    "AgentEvent",
    "AgentLoop",
    "AgentSettings",
    "AgentStateError",
    "AssistantText",
    "AuditFailed",
    "AuditMark",
    "AuditSummary",
    "Checkpoint",
    "Collected",
    "CompletionCheck",
    "Conversation",
    "ConversationMessage",
    "ConversationStore",
    "DeviceDirectory",
    "DeviceInfo",
    "DistilOutcome",
    "DistilRequest",
    "Distiller",
    "Draft",
    "DraftStore",
    "EventLog",
    "EventLogError",
    "EventSink",
    "Experience",
    "ExperienceLibrary",
    "ExperienceView",
    "FanOut",
    "Fuse",
    "Heartbeat",
    "ImageError",
    "LaunchStatus",
    "LaunchedAgentRun",
    "LocalCall",
    "LocalTool",
    "LoggedEvent",
    "LoopMode",
    "MemoryDistilled",
    "MemoryRecall",
    "MemoryRecalled",
    "ModelCalled",
    "ModelChoice",
    "NoticeKind",
    "Outcome",
    "PolicyApplied",
    "PolicyNotice",
    "PolicyState",
    "PolicyVerdict",
    "Reasoning",
    "Recall",
    "RecallHit",
    "RecallSource",
    "Recalled",
    "Resumed",
    "RunDistiller",
    "RunEnded",
    "RunPolicy",
    "RunResult",
    "RunStarted",
    "RunState",
    "RunStore",
    "RunView",
    "Salvaged",
    "ScreenTaken",
    "StepLog",
    "StepLogError",
    "StepRecord",
    "StepTask",
    "StopRequested",
    "TakeoverAnswer",
    "TakeoverEnded",
    "TakeoverHook",
    "TakeoverReason",
    "TakeoverRequest",
    "TakeoverRequested",
    "TaskReport",
    "TaskReported",
    "ToolCalled",
    "TurnModel",
    "UiTreeError",
    "agent_run_tag",
    "audit_experiences",
    "check_action",
    "check_completion",
    "compress_hierarchy",
    "containment",
    "designer_endpoint",
    "designer_mode",
    "device_holder_variable",
    "device_slot",
    "dice",
    "layout",
    "memory_client",
    "memory_endpoint",
    "parse_step_log",
    "replay",
    "salvage",
    "scale_screenshot",
    "tool_specs",
]
