"""The run policy, and the step log it replays: the only place the agent's stop rules live.

`RunPolicy` counts every tool call (`StepRecord`) and model answer of a run and says when to
hint, re-route or pause (the fuses: same state-changing action 6, same error 8, 14 failures in a
row); `replay` runs the same policy over a run's step log (`parse_step_log`), which is what
`rlauto agent policy LOG` prints. Pure: no storage but the `StepLog` writer, no model, no phone.
"""

from rlauto_core.agent.policy.policy import (
    CHAT_ROUNDS_LIMIT,
    CONTROL_TOOLS,
    DEFAULT_MAX_MODEL_CALLS,
    FUSE_AT,
    OBSERVATION_TOOLS,
    ChatReply,
    Fuse,
    NoticeKind,
    PolicyNotice,
    PolicyState,
    PolicyVerdict,
    Rejected,
    Resumed,
    RunPolicy,
    StepLine,
    StepRecord,
    default_state_changing,
    replay,
)
from rlauto_core.agent.policy.step_log import MAX_LOG_BYTES, StepLog, StepLogError, parse_line, parse_step_log

__all__ = [
    "CHAT_ROUNDS_LIMIT",
    "CONTROL_TOOLS",
    "DEFAULT_MAX_MODEL_CALLS",
    "FUSE_AT",
    "MAX_LOG_BYTES",
    "OBSERVATION_TOOLS",
    "ChatReply",
    "Fuse",
    "NoticeKind",
    "PolicyNotice",
    "PolicyState",
    "PolicyVerdict",
    "Rejected",
    "Resumed",
    "RunPolicy",
    "StepLine",
    "StepLog",
    "StepLogError",
    "StepRecord",
    "default_state_changing",
    "parse_line",
    "parse_step_log",
    "replay",
]
