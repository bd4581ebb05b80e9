"""The phone agent's memory: the experience library (recipes) and the action library (named
locator sequences), grown from completed runs and recalled for similar tasks.

`ExperienceLibrary` (recipes, recall by instruction similarity, the audit's marks, a person's
confirmed deletion), `ActionLibrary` and `check_action` (one check on save, load and
injection), `MemoryRecall` (what `AgentLoop(recall=...)` asks at the start), `Distiller` on a
`memory_endpoint` client (what `AgentLoop(distiller=...)` calls after a completed run),
`audit_experiences` (the model rates each recipe keep / delete). A stage beside `agent`: it
implements the agent's memory hooks and imports the agent's faces; the agent never imports it.
"""

from rlauto_core.memory.action_check import ACTION_KINDS, MAX_ACTION_STEPS, ActionCheck, ActionSpec, check_action
from rlauto_core.memory.actions import Action, ActionLibrary, ActionRecalled, ActionRefused
from rlauto_core.memory.audit import AuditFailed, AuditSummary, audit_experiences, audit_library
from rlauto_core.memory.distill import Distiller, audit_client, memory_client, memory_endpoint
from rlauto_core.memory.experience import (
    MAX_RECALLED,
    RECALL_THRESHOLD,
    AuditMark,
    Experience,
    ExperienceDeletion,
    ExperienceLibrary,
    ExperienceView,
    Recalled,
)
from rlauto_core.memory.quality import recipe_problem
from rlauto_core.memory.recall import MemoryRecall
from rlauto_core.memory.similarity import dice

__all__ = [
    "ACTION_KINDS",
    "MAX_ACTION_STEPS",
    "MAX_RECALLED",
    "RECALL_THRESHOLD",
    "Action",
    "ActionCheck",
    "ActionLibrary",
    "ActionRecalled",
    "ActionRefused",
    "ActionSpec",
    "AuditFailed",
    "AuditMark",
    "AuditSummary",
    "Distiller",
    "Experience",
    "ExperienceDeletion",
    "ExperienceLibrary",
    "ExperienceView",
    "MemoryRecall",
    "Recalled",
    "audit_client",
    "audit_experiences",
    "audit_library",
    "check_action",
    "dice",
    "memory_client",
    "memory_endpoint",
    "recipe_problem",
]
