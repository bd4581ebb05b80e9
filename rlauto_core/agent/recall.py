"""Recall at the start of a run: the recipes and actions of similar tasks, as sections of the
system prompt and as cards (events) the run shows. Each recalled item counts a hit."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from rlauto_core.agent import memory_prompts as mp
from rlauto_core.agent.actions import ActionLibrary
from rlauto_core.agent.events import RecallHit
from rlauto_core.agent.experience import ExperienceLibrary
from rlauto_core.store.storage import Storage


class Recall(BaseModel):
    context: str = ""  # appended to the system prompt; empty when nothing was recalled
    experiences: list[RecallHit] = Field(default_factory=list)
    actions: list[RecallHit] = Field(default_factory=list)


class RecallSource(Protocol):
    """What `AgentLoop(recall=...)` asks once at the start of a run."""

    def recall(self, instruction: str) -> Recall: ...


class MemoryRecall:
    """Both libraries in one storage; `count_hits=False` looks without counting (the CLI)."""

    def __init__(self, storage: Storage, *, count_hits: bool = True) -> None:
        self.experiences = ExperienceLibrary(storage)
        self.actions = ActionLibrary(storage)
        self.count_hits = count_hits

    def recall(self, instruction: str) -> Recall:
        recipes = self.experiences.recall(instruction, count_hits=self.count_hits)
        actions = self.actions.recall(instruction, count_hits=self.count_hits)
        sections = []
        if recipes:
            sections.append(mp.experience_section([(r.experience.instruction, r.experience.recipe) for r in recipes]))
        if actions:
            sections.append(mp.actions_section([(a.action.name, a.action.aliases, a.action.steps) for a in actions]))
        return Recall(
            context="\n\n".join(sections),
            experiences=[RecallHit(id=r.experience.id, title=r.experience.title, score=r.score) for r in recipes],
            actions=[RecallHit(id=a.action.id, title=a.action.name, score=a.score) for a in actions],
        )
