"""The action library: named, reusable actions ("open the notes app") as checked steps with
their element locators, distilled from successful steps or written by a person.

Every save goes through `check_action` (distillation, a manual edit, a new action alike), so a
coordinate is refused wherever it comes from; so does every load: a file edited by hand into
something a save would refuse (coordinates, 6 steps) is skipped and named in `refused`, never
recalled, listed or injected into a prompt. An action with the same name (normalised) as a
stored one replaces its steps and adds its aliases. Recall matches an action's name or an alias
inside the instruction: as a substring, or when at least `ACTION_MATCH` of the name's bigrams
are in the instruction (`similarity.containment`); at most `MAX_RECALLED_ACTIONS`, best first.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.agent.events import RecordDir
from rlauto_core.errors import ConfigError, RlautoError
from rlauto_core.memory.action_check import ActionSpec, check_action
from rlauto_core.memory.similarity import containment, contains, normalised
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent.memory")
ACTIONS_DIR = "agent/memory/actions"
ACTION_MATCH = 0.6
MAX_RECALLED_ACTIONS = 3


def _now() -> datetime:
    return datetime.now(UTC)


class ActionRefused(RlautoError):
    """An action that may not be saved; `problems` names each reason."""

    def __init__(self, name: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"action {name[:80]!r} refused: " + "; ".join(problems))


class Action(BaseModel):
    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    steps: list[dict[str, Any]]
    run_id: str | None = None
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)
    hits: int = Field(default=0, ge=0)
    last_hit_at: datetime | None = None

    def spec(self) -> dict[str, Any]:
        """The action as a person edits it and `rlauto actions check` reads it."""
        return {"name": self.name, "aliases": self.aliases, "steps": self.steps}


class ActionRecalled(BaseModel):
    action: Action
    score: float
    matched: str


def _id_for(name: str) -> str:
    return "act-" + hashlib.sha256(normalised(name).encode()).hexdigest()[:16]


def _checked(data: Any) -> ActionSpec:
    check = check_action(data)
    if not check.ok or check.action is None:
        name = data.get("name") if isinstance(data, dict) and isinstance(data.get("name"), str) else "?"
        raise ActionRefused(str(name), check.problems)
    return check.action


def _score(instruction: str, label: str) -> float:
    if len(normalised(label)) >= 2 and contains(instruction, label):
        return 1.0
    return round(containment(label, instruction), 4)


class ActionLibrary:
    def __init__(self, storage: Storage) -> None:
        self.records = RecordDir(storage, ACTIONS_DIR, Action)
        self.refused: list[str] = []  # `path: problems` of the files the last listing skipped

    @property
    def unreadable(self) -> list[str]:
        return self.records.unreadable

    @property
    def skipped(self) -> list[str]:
        """Every file the last listing skipped, with why: not a record, or refused by the check."""
        return [f"{path}: not a readable record" for path in self.unreadable] + self.refused

    def all(self) -> list[Action]:
        """The stored actions that pass `check_action` now; the others are skipped and named."""
        self.refused = []
        kept = []
        for path, action in self.records.entries():
            problems = check_action(action.spec()).problems
            if problems:
                self.refused.append(f"{path}: {'; '.join(problems)}"[:1000])
                log.warning("%s: skipped, an action a save would refuse: %s", path, "; ".join(problems)[:300])
            else:
                kept.append(action)
        return sorted(kept, key=lambda a: normalised(a.name))

    def get(self, action_id: str) -> Action | None:
        """The action, unless its file is missing or no longer passes the check."""
        action = self.records.load(action_id)
        return action if action is not None and check_action(action.spec()).ok else None

    def save(self, data: Any, run_id: str | None = None) -> Action:
        """Check and store an action (ActionRefused naming each problem otherwise)."""
        spec = _checked(data)
        same = next((a for a in self.records.all() if normalised(a.name) == normalised(spec.name)), None)
        if same is None:
            action = Action(
                id=_id_for(spec.name), name=spec.name, aliases=spec.aliases, steps=spec.steps, run_id=run_id
            )
        else:
            aliases = same.aliases + [a for a in spec.aliases if a not in same.aliases and a != same.name]
            action = same.model_copy(update={"steps": spec.steps, "aliases": aliases[:8], "updated_at": _now()})
        self.records.save(action.id, action)
        return action

    def edit(self, action_id: str, data: Any) -> Action:
        """A person's edit of name, aliases and steps, through the same check as every save."""
        current = self.records.load(action_id)
        if current is None:
            raise ConfigError(f"action {action_id} does not exist")
        spec = _checked(data)
        edited = current.model_copy(
            update={"name": spec.name, "aliases": spec.aliases, "steps": spec.steps, "updated_at": _now()}
        )
        self.records.save(action_id, edited)
        return edited

    def delete(self, action_id: str) -> bool:
        return self.records.delete(action_id)

    def recall(self, instruction: str, *, count_hits: bool = True) -> list[ActionRecalled]:
        found: list[ActionRecalled] = []
        for action in self.all():
            label, score = max(
                ((lab, _score(instruction, lab)) for lab in [action.name, *action.aliases]), key=lambda p: p[1]
            )
            if score >= ACTION_MATCH:
                found.append(ActionRecalled(action=action, score=score, matched=label))
        found = sorted(found, key=lambda r: -r.score)[:MAX_RECALLED_ACTIONS]
        if count_hits:
            for hit in found:
                current = self.records.load(hit.action.id)
                if current is not None:
                    current.hits += 1
                    current.last_hit_at = _now()
                    self.records.save(current.id, current)
        return found
