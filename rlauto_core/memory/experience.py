"""The experience library: reusable recipes (plain text, no coordinates) distilled from runs
that worked, recalled for similar tasks by bigram similarity of the instructions.

Recall keeps the recipes whose instruction is at least `RECALL_THRESHOLD` alike (Dice over
bigrams, `similarity.py`) and returns at most the best `MAX_RECALLED`; each use counts a hit.
The audit only marks a recipe (keep / suggest delete, a score, a reason); a recipe is deleted
only by `delete`, which the dashboard calls after a person confirmed; a person's "keep" is
remembered in the mark and the audit never rates that recipe again.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from rlauto_core.agent.events import RecordDir
from rlauto_core.errors import ConfigError
from rlauto_core.memory.similarity import dice, normalised
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent.memory")
# Measured on pairs of real-looking tasks (docs/agent.md): the same kind of task scores 0.50
# (Chinese) to 0.90, different tasks 0.00-0.44; 0.45 sits between the two.
EXPERIENCES_DIR = "agent/memory/experiences"
AUDIT_DIR = "agent/memory/experience_audit"
DELETIONS_DIR = "agent/memory/experience_deletions"
RECALL_THRESHOLD = 0.45
MAX_RECALLED = 2
MAX_INSTRUCTION_CHARS = 2000
MAX_RECIPE_CHARS = 4000


def _now() -> datetime:
    return datetime.now(UTC)


class Experience(BaseModel):
    id: str
    instruction: str = Field(max_length=MAX_INSTRUCTION_CHARS)
    title: str = Field(max_length=200)
    recipe: str = Field(max_length=MAX_RECIPE_CHARS)
    run_id: str | None = None
    created_at: datetime = Field(default_factory=_now)
    hits: int = Field(default=0, ge=0)
    last_hit_at: datetime | None = None


class AuditMark(BaseModel):
    """The audit's latest rating of one recipe and the person's decision (`kept`)."""

    experience_id: str
    suggestion: Literal["keep", "delete"] | None = None
    score: int | None = Field(default=None, ge=0, le=10)
    reason: str = Field(default="", max_length=1000)
    audited_at: datetime | None = None
    model: str | None = None
    decision: Literal["kept"] | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None

    @property
    def pending_delete(self) -> bool:
        """Suggested for deletion and not yet decided by a person."""
        return self.suggestion == "delete" and self.decision is None


class ExperienceDeletion(BaseModel):
    """A recipe a person deleted: what it was, who confirmed it, when, and what the audit said."""

    experience: Experience
    deleted_by: str
    deleted_at: datetime = Field(default_factory=_now)
    audit_suggestion: Literal["keep", "delete"] | None = None
    audit_score: int | None = None
    audit_reason: str = ""
    audit_model: str | None = None


class ExperienceView(BaseModel):
    experience: Experience
    mark: AuditMark | None = None


class Recalled(BaseModel):
    experience: Experience
    score: float


def experience_id(instruction: str, recipe: str) -> str:
    digest = hashlib.sha256(f"{normalised(instruction)}\n{recipe}".encode()).hexdigest()
    return f"exp-{digest[:16]}"


class ExperienceLibrary:
    def __init__(self, storage: Storage) -> None:
        self.recipes = RecordDir(storage, EXPERIENCES_DIR, Experience)
        self.marks = RecordDir(storage, AUDIT_DIR, AuditMark)
        self.deleted = RecordDir(storage, DELETIONS_DIR, ExperienceDeletion)

    @property
    def unreadable(self) -> list[str]:
        return self.recipes.unreadable + self.marks.unreadable + self.deleted.unreadable

    def add(self, instruction: str, title: str, recipe: str, run_id: str | None = None) -> Experience:
        """Store a recipe (already through the quality gate); the same recipe for the same task
        is stored once."""
        record_id = experience_id(instruction, recipe)
        existing = self.recipes.load(record_id)
        if existing is not None:
            return existing
        experience = Experience(
            id=record_id,
            instruction=instruction[:MAX_INSTRUCTION_CHARS],
            title=title[:200],
            recipe=recipe,
            run_id=run_id,
        )
        self.recipes.save(record_id, experience)
        return experience

    def get(self, record_id: str) -> Experience | None:
        return self.recipes.load(record_id)

    def all(self) -> list[Experience]:
        return sorted(self.recipes.all(), key=lambda e: e.created_at)

    def views(self) -> list[ExperienceView]:
        marks = {m.experience_id: m for m in self.marks.all()}
        return [ExperienceView(experience=e, mark=marks.get(e.id)) for e in self.all()]

    def recall(self, instruction: str, *, count_hits: bool = True) -> list[Recalled]:
        """The best `MAX_RECALLED` recipes at least `RECALL_THRESHOLD` alike, best first."""
        scored = [Recalled(experience=e, score=round(dice(instruction, e.instruction), 4)) for e in self.all()]
        kept = sorted((r for r in scored if r.score >= RECALL_THRESHOLD), key=lambda r: -r.score)[:MAX_RECALLED]
        if count_hits:
            for hit in kept:
                self._count_hit(hit.experience.id)
        return kept

    def _count_hit(self, record_id: str) -> None:
        current = self.recipes.load(record_id)  # read again: the newest count, not the listing's
        if current is None:
            return
        current.hits += 1
        current.last_hit_at = _now()
        self.recipes.save(record_id, current)

    # -- the audit and the person ------------------------------------------------------------
    def mark(self, record_id: str) -> AuditMark | None:
        return self.marks.load(record_id)

    def record_rating(
        self, record_id: str, suggestion: Literal["keep", "delete"], score: int, reason: str, model: str | None
    ) -> AuditMark | None:
        """The audit's rating; a recipe a person kept is never marked again (None then)."""
        if self.recipes.load(record_id) is None:
            return None
        mark = self.marks.load(record_id) or AuditMark(experience_id=record_id)
        if mark.decision == "kept":
            return None
        mark.suggestion, mark.score, mark.reason = suggestion, score, reason[:1000]
        mark.audited_at, mark.model = _now(), model
        self.marks.save(record_id, mark)
        return mark

    def keep(self, record_id: str, by: str) -> AuditMark:
        """A person keeps the recipe: remembered, and never suggested for deletion again."""
        if self.recipes.load(record_id) is None:
            raise ConfigError(f"experience {record_id} does not exist")
        mark = self.marks.load(record_id) or AuditMark(experience_id=record_id)
        mark.decision, mark.decided_by, mark.decided_at = "kept", by.strip()[:200] or "someone", _now()
        self.marks.save(record_id, mark)
        return mark

    def delete(self, record_id: str, confirmed_by: str) -> bool:
        """Delete a recipe and its mark: only after a person confirmed it (the dashboard's
        "Confirm delete"), never from the audit. What was deleted is kept apart with who
        confirmed it, when, and the audit's suggestion and reason (`deletions()`)."""
        who = confirmed_by.strip()
        if not who:
            raise ConfigError(f"deleting experience {record_id} needs the name of the person who confirms it")
        recipe = self.recipes.load(record_id)
        if recipe is None:
            return False
        mark = self.marks.load(record_id)
        deletion = ExperienceDeletion(experience=recipe, deleted_by=who[:200])
        if mark is not None:
            deletion.audit_suggestion, deletion.audit_score = mark.suggestion, mark.score
            deletion.audit_reason, deletion.audit_model = mark.reason, mark.model
        self.deleted.save(record_id, deletion)  # first: a deletion is never lost between two writes
        self.recipes.delete(record_id)
        self.marks.delete(record_id)
        log.info(
            "experience %s deleted, confirmed by %s (audit: %s)", record_id, who[:200], deletion.audit_reason[:200]
        )
        return True

    def deletions(self) -> list[ExperienceDeletion]:
        """Every confirmed deletion, newest first."""
        return sorted(self.deleted.all(), key=lambda d: d.deleted_at, reverse=True)
