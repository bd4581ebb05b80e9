"""Reviewers' decisions: appended to the index, never rewritten (the newest one counts)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, get_args

from pydantic import BaseModel, Field, ValidationError

from rlauto_core.errors import RlautoError
from rlauto_core.store.index import ReviewRow, append_review
from rlauto_core.store.storage import Storage

Decision = Literal["accept", "reject", "needs-work"]
REVIEW_DECISIONS: tuple[Decision, ...] = get_args(Decision)


class ReviewError(RlautoError):
    """A review cannot be recorded (unknown item, empty reviewer...)."""


class Review(BaseModel):
    job_id: str
    item_id: str
    decision: Decision
    comment: str = Field(default="", max_length=5000)
    reviewer: str = Field(min_length=1, max_length=120)
    created_at: datetime


def add_review(storage: Storage, job_id: str, item_id: str, decision: str, reviewer: str, comment: str = "") -> Review:
    """Check and append one review; the caller has checked that the item exists."""
    try:
        review = Review.model_validate(
            {
                "job_id": job_id,
                "item_id": item_id,
                "decision": decision,
                "comment": comment.strip(),
                "reviewer": reviewer.strip(),
                "created_at": datetime.now(UTC),
            }
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ReviewError(f"{job_id}/{item_id}: {problems}") from None
    append_review(storage, ReviewRow(**review.model_dump()))
    return review
