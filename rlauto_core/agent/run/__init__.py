"""A run: the loop of model answers and tool calls until the run policy ends it.

`AgentLoop(model=..., phone=..., devices=..., storage=..., sink=..., settings=...)` with
`.start(run_id, instruction, conversation_id=...)` and `.resume(run_id, note=..., model=...)`
-> `RunResult`; hooks `takeover` and `checkpoint` (raise `StopRequested`); `mode` (a `LoopMode`:
the phone agent by default). A run's state (`RunState` in `RunStore`, with the model it runs on),
its conversation (`ConversationStore`), every run newest first whoever started it (`RunList`),
the deployment settings (`AgentSettings`, `ModelChoice`)
and the memory hooks the loop calls (`RecallSource`, `RunDistiller`: `rlauto_core.memory`
implements them).
"""

from rlauto_core.agent.run.conversation import Conversation, ConversationMessage, ConversationStore
from rlauto_core.agent.run.heartbeat import Checkpoint, StopRequested
from rlauto_core.agent.run.loop import AgentLoop, RunResult, TurnModel
from rlauto_core.agent.run.memory_hooks import DistilOutcome, DistilRequest, Recall, RecallSource, RunDistiller
from rlauto_core.agent.run.mode import AGENT_MODE, LoopMode
from rlauto_core.agent.run.run_list import ListedRun, RunList
from rlauto_core.agent.run.settings import SECRET_NAME, AgentSettings, ModelChoice, RunModel
from rlauto_core.agent.run.state import AgentStateError, RunState, RunStore

__all__ = [
    "AGENT_MODE",
    "SECRET_NAME",
    "AgentLoop",
    "AgentSettings",
    "AgentStateError",
    "Checkpoint",
    "Conversation",
    "ConversationMessage",
    "ConversationStore",
    "DistilOutcome",
    "DistilRequest",
    "ListedRun",
    "LoopMode",
    "ModelChoice",
    "Recall",
    "RecallSource",
    "RunDistiller",
    "RunList",
    "RunModel",
    "RunResult",
    "RunState",
    "RunStore",
    "StopRequested",
    "TurnModel",
]
