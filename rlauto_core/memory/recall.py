"""Recall at the start of a run: the recipes and actions of similar tasks, as sections of the
system prompt and as cards (events) the run shows. Each recalled item counts a hit. Actions are
checked on their way into the prompt too (on save, on load, on injection: the same check)."""

from __future__ import annotations

from rlauto_core.agent.events import RecallHit
from rlauto_core.agent.run import Recall
from rlauto_core.memory import prompts as mp
from rlauto_core.memory.action_check import check_action
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
        # what goes into the prompt is what the check gives back, the steps as a save stores them
        checked = [(a, check_action(a.action.spec()).action) for a in actions]
        actions = [a for a, spec in checked if spec is not None]
        if actions:
            specs = [spec for _a, spec in checked if spec is not None]
            sections.append(mp.actions_section([(spec.name, spec.aliases, spec.steps) for spec in specs]))
        return Recall(
            context="\n\n".join(sections),
            experiences=[RecallHit(id=r.experience.id, title=r.experience.title, score=r.score) for r in recipes],
            actions=[RecallHit(id=a.action.id, title=a.action.name, score=a.score) for a in actions],
        )
