"""The audit of the experience library: the model rates each recipe keep / suggest delete, with
a score (0-10) and a reason. It only marks (`ExperienceLibrary.record_rating`); it never
deletes anything. A recipe a person kept is not sent to the model at all, so it is never
suggested again. Recipes go in batches of `AUDIT_BATCH`; one failed batch leaves its recipes
unrated and is reported; when every batch fails, the audit fails with the model's error."""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from rlauto_core.errors import RlautoError
from rlauto_core.llm.json_answers import request_json
from rlauto_core.llm.types import Message, ModelClient, TokenUsage
from rlauto_core.memory import prompts as mp
from rlauto_core.memory.actions import ActionLibrary
from rlauto_core.memory.experience import ExperienceLibrary
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent.memory")
AUDIT_BATCH = 20
_RECIPE_CHARS = 1500
_DELETE_WORDS = {"delete", "suggest delete", "suggest_delete", "remove", "drop"}


class Rating(BaseModel):
    id: str
    verdict: Literal["keep", "delete"]
    score: float = Field(ge=0, le=10)
    reason: str = Field(default="", max_length=2000)

    @field_validator("verdict", mode="before")
    @classmethod
    def _words(cls, value: object) -> object:
        if isinstance(value, str):
            word = value.strip().lower()
            return "delete" if word in _DELETE_WORDS else word
        return value


class Ratings(BaseModel):
    ratings: list[Rating]


class AuditSummary(BaseModel):
    recipes: int = 0
    rated: int = 0
    suggested_delete: list[str] = Field(default_factory=list)
    kept_by_person: int = 0
    unrated: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    # memory files a run never gets: not readable records, or actions a save would refuse
    skipped: list[str] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)

    def line(self) -> str:
        skipped = f"; {len(self.skipped)} memory file(s) skipped" if self.skipped else ""
        if self.recipes == 0:
            return f"audited 0 recipes: the library is empty (no model needed){skipped}"
        return (
            f"audited {self.rated} of {self.recipes} recipes: {len(self.suggested_delete)} suggested for deletion, "
            f"{self.kept_by_person} kept by a person (not rated), {len(self.unrated)} unrated{skipped}"
        )


class AuditFailed(RlautoError):
    """No batch of the audit got an answer."""


def audit_library(
    storage: Storage, open_client: Callable[[], AbstractContextManager[ModelClient]], *, batch: int = AUDIT_BATCH
) -> AuditSummary:
    """The audit as every entry point runs it (the flow, the CLI, the dashboard's button): an
    empty library needs no model, so `open_client` (which may refuse: no key) is not even
    called; otherwise every recipe not kept by a person is rated. Either way the summary names
    the memory files runs never get (`skipped`: unreadable, or actions a save would refuse)."""
    experiences, actions = ExperienceLibrary(storage), ActionLibrary(storage)
    recipes = experiences.all()
    actions.all()
    skipped = [f"{path}: not a readable record" for path in experiences.unreadable] + actions.skipped
    if not recipes:
        log.info("experience audit: the library is empty, nothing to rate (no model needed)")
        return AuditSummary(skipped=skipped)
    with open_client() as client:
        summary = audit_experiences(storage, client, batch=batch)
    summary.skipped = skipped
    return summary


def audit_experiences(storage: Storage, client: ModelClient, *, batch: int = AUDIT_BATCH) -> AuditSummary:
    library = ExperienceLibrary(storage)
    views = library.views()
    summary = AuditSummary(recipes=len(views))
    todo = []
    for view in views:
        if view.mark is not None and view.mark.decision == "kept":
            summary.kept_by_person += 1
        else:
            todo.append(view.experience)
    failures = 0
    batches = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    for group in batches:
        listed = [
            {"id": e.id, "task": e.instruction[:300], "title": e.title, "recipe": e.recipe[:_RECIPE_CHARS]}
            for e in group
        ]
        messages = [
            Message(role="system", content=mp.AUDIT_SYSTEM),
            Message(role="user", content=mp.audit_user(listed)),
        ]
        try:
            answer = request_json(client, messages, Ratings)
        except RlautoError as exc:
            failures += 1
            summary.unrated += [e.id for e in group]
            summary.problems.append(f"a batch of {len(group)} recipes got no usable answer: {str(exc)[:300]}")
            log.warning("experience audit: batch of %d failed: %s", len(group), str(exc)[:300])
            continue
        summary.usage = summary.usage + answer.usage
        wanted = {e.id for e in group}
        rated: set[str] = set()
        for rating in answer.value.ratings:
            if rating.id not in wanted or rating.id in rated:
                continue
            score = round(rating.score)
            mark = library.record_rating(rating.id, rating.verdict, score, rating.reason, client.endpoint.model)
            if mark is None:  # deleted, or kept by a person while the model was thinking
                continue
            rated.add(rating.id)
            if rating.verdict == "delete":
                summary.suggested_delete.append(rating.id)
        summary.rated += len(rated)
        summary.unrated += sorted(wanted - rated)
    if batches and failures == len(batches):
        raise AuditFailed("experience audit: " + summary.problems[-1])
    log.info("experience audit: %s", summary.line())
    return summary
