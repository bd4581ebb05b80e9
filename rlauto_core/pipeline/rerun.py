"""Running one item again from the dashboard: a retry (the same recording and options, so the
same item, written afresh) or a regenerate (the reviewer's comment added to the feedback, so
new options and a new item of the same job, continuing from the old item's iteration memory).

Planned here from what storage holds (the item's `item.json`, its upload, its snapshots); the
options come from the caller (the item's own run's parameters) and must hash to the item's.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ValidationError

from rlauto_core.config.options import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.pipeline.plan import plan_item
from rlauto_core.store import layout
from rlauto_core.store.job_ids import checked_job_id
from rlauto_core.store.outcome import ItemOutcome
from rlauto_core.store.storage import Storage

RETRYABLE = ("failed", "stopped")
MAX_COMMENT_CHARS = 5000
_ITEM_ID = re.compile(r"it-[0-9a-f]{16}")
_MEMORY = re.compile(r"iteration-memory-iter-(\d+)\.json$")


class RerunError(RlautoError):
    """An item cannot be run again (unknown, still passing, its upload or options are gone)."""


class ItemRerun(BaseModel):
    """What to start: one `package-recording` run and the item it will write."""

    job_id: str
    item_id: str  # the item the run writes (a regenerate's is new)
    of_item: str  # the item the reviewer acted on
    source: str  # the stored upload's full URL
    source_name: str
    options: RunOptions
    memory_path: str | None = None


def stored_outcome(storage: Storage, job_id: str, item_id: str) -> ItemOutcome:
    checked_job_id(job_id, RerunError)
    if not _ITEM_ID.fullmatch(item_id):
        raise RerunError(f"item {item_id!r}: not an item id")
    path = layout.item_outcome_path(job_id, item_id)
    try:
        return ItemOutcome.model_validate_json(storage.read_bytes(path))
    except FileNotFoundError:
        raise RerunError(f"{path}: not in storage (the item never finished, or its job was deleted)") from None
    except ValidationError as exc:
        raise RerunError(f"{path}: not an item outcome: {exc.errors()[0]['msg']}") from None


def last_memory_path(storage: Storage, job_id: str, item_id: str) -> str | None:
    """The item's newest `iteration-memory-iter-N.json` (None: no iteration ran)."""
    found = [(int(m.group(1)), p) for p in storage.list(layout.export_dir(job_id, item_id)) if (m := _MEMORY.search(p))]
    return max(found)[1] if found else None


def _planned(storage: Storage, outcome: ItemOutcome, options: RunOptions) -> tuple[str, str]:
    upload = layout.upload_path(outcome.job_id, outcome.item_id)
    try:
        data = storage.read_bytes(upload)
    except FileNotFoundError:
        raise RerunError(f"{upload}: the item's recording is no longer in storage") from None
    item = plan_item(upload, data, options.options_hash(), outcome.job_id, outcome.source_name)
    if outcome.source_sha256 and item.source_sha256 != outcome.source_sha256:
        raise RerunError(f"{upload}: not the recording item {outcome.item_id} was made from (its hash differs)")
    return item.item_id, storage.uri(upload)


def plan_retry(storage: Storage, outcome: ItemOutcome, options: RunOptions) -> ItemRerun:
    """The same item again; only a failed or stopped one, with the options it was made with."""
    if outcome.status not in RETRYABLE:
        raise RerunError(f"item {outcome.item_id} is {outcome.status}: only a failed or stopped item is retried")
    if options.options_hash() != outcome.options_hash:
        raise RerunError(f"item {outcome.item_id}: its run's options are not the ones it was made with")
    item_id, source = _planned(storage, outcome, options)
    return ItemRerun(job_id=outcome.job_id, item_id=item_id, of_item=outcome.item_id, source=source,
                     source_name=outcome.source_name, options=options)  # fmt: skip


def plan_regenerate(storage: Storage, outcome: ItemOutcome, options: RunOptions, comment: str) -> ItemRerun:
    """A new run with the reviewer's comment as feedback (after the run's own), from the item's
    last iteration memory."""
    text = comment.strip()
    if not text:
        raise RerunError("regenerate: write the comment the analyzer should follow")
    if len(text) > MAX_COMMENT_CHARS:
        raise RerunError(f"regenerate: the comment has {len(text)} characters; at most {MAX_COMMENT_CHARS}")
    feedback = f"{options.feedback.strip()}\n\nReviewer: {text}".strip()
    regenerated = options.model_copy(update={"feedback": feedback})
    item_id, source = _planned(storage, outcome, regenerated)
    return ItemRerun(
        job_id=outcome.job_id, item_id=item_id, of_item=outcome.item_id, source=source,
        source_name=outcome.source_name, options=regenerated,
        memory_path=last_memory_path(storage, outcome.job_id, outcome.item_id),
    )  # fmt: skip
