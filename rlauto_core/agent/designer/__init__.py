"""Designer mode: the same loop explores the phone and hands in a step task (`submit_task`).

`AgentLoop(mode=designer_mode(storage))` on a `designer_endpoint` client; the latest draft and
the step tasks a person confirmed live in `DraftStore`.
"""

from rlauto_core.agent.designer.designer import (
    DESIGNER_MAX_TOKENS,
    DESIGNER_MAX_TOOL_CALLS,
    SUBMIT_TASK,
    designer_endpoint,
    designer_mode,
)
from rlauto_core.agent.designer.drafts import Draft, DraftStore, StepTask

__all__ = [
    "DESIGNER_MAX_TOKENS",
    "DESIGNER_MAX_TOOL_CALLS",
    "SUBMIT_TASK",
    "Draft",
    "DraftStore",
    "StepTask",
    "designer_endpoint",
    "designer_mode",
]
