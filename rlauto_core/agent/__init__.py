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
"""

from rlauto_core.agent import layout
from rlauto_core.agent.conversation import Conversation, ConversationMessage, ConversationStore
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
    ModelCalled,
    Outcome,
    PolicyApplied,
    Reasoning,
    RunEnded,
    RunStarted,
    ScreenTaken,
    TakeoverEnded,
    TakeoverRequested,
    TaskReported,
    ToolCalled,
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
from rlauto_core.agent.report import CompletionCheck, TaskReport, check_completion
from rlauto_core.agent.settings import AgentSettings, ModelChoice
from rlauto_core.agent.state import AgentStateError, RunState, RunStore
from rlauto_core.agent.step_log import MAX_LOG_BYTES, StepLog, StepLogError, parse_step_log
from rlauto_core.agent.takeover import TakeoverAnswer, TakeoverHook, TakeoverReason, TakeoverRequest
from rlauto_core.agent.tool_args import TOOL_NAMES, tool_specs
from rlauto_core.agent.toolbox import DeviceDirectory, DeviceInfo
from rlauto_core.agent.ui_tree import UiTreeError, compress_hierarchy
from rlauto_core.agent.watch import ALIVE_S, RunView

__all__ = [
    "AGENT_HOLDER_VARIABLE",
    "AGENT_SLOT",
    "ALIVE_S",
    "CONTROL_TOOLS",
    "EVENT_ADAPTER",
    "MAX_LOG_BYTES",
    "OBSERVATION_TOOLS",
    "RESUMABLE",
    "RUN_AGENT_DEPLOYMENT",
    "TOOL_NAMES",
    "AgentDevice",
    "AgentEvent",
    "AgentLoop",
    "AgentSettings",
    "AgentStateError",
    "AssistantText",
    "Checkpoint",
    "Collected",
    "CompletionCheck",
    "Conversation",
    "ConversationMessage",
    "ConversationStore",
    "DeviceDirectory",
    "DeviceInfo",
    "EventLog",
    "EventLogError",
    "EventSink",
    "FanOut",
    "Fuse",
    "Heartbeat",
    "ImageError",
    "LaunchStatus",
    "LaunchedAgentRun",
    "LoggedEvent",
    "ModelCalled",
    "ModelChoice",
    "NoticeKind",
    "Outcome",
    "PolicyApplied",
    "PolicyNotice",
    "PolicyState",
    "PolicyVerdict",
    "Reasoning",
    "Resumed",
    "RunEnded",
    "RunPolicy",
    "RunResult",
    "RunStarted",
    "RunState",
    "RunStore",
    "RunView",
    "ScreenTaken",
    "StepLog",
    "StepLogError",
    "StepRecord",
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
    "check_completion",
    "compress_hierarchy",
    "device_holder_variable",
    "device_slot",
    "layout",
    "parse_step_log",
    "replay",
    "scale_screenshot",
    "tool_specs",
]
