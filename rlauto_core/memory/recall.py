"""Recall at the start of a run: the recipes and actions of similar tasks, as sections of the
system prompt and as cards (events) the run shows. Each recalled item counts a hit."""

from __future__ import annotations

from rlauto_core.agent.events import RecallHit
from rlauto_core.agent.run import Recall
from rlauto_core.memory import prompts as mp
from rlauto_core.memory.actions import ActionLibrary
from rlauto_core.memory.experience import ExperienceLibrary
from rlauto_core.store.storage import Storage


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
