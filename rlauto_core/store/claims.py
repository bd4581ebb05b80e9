"""Inbox claims as leases: which scan packages a recording, until when, and whether it is done.

A claim is a file `claims/{options}/{source}/{generation}.json` created only if absent, so of
racing scans exactly one wins a generation. Its owner renews the lease while its batch runs and
marks it done at the end. A scan that finds an expired lease (its owner crashed between claim
and run) takes the recording over by creating the next generation, again of which exactly one
racing scan wins. A claim write whose answer was lost but which landed is recognised by reading
the owner back: retried, it is ours, not "already taken".
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import Enum

from pydantic import BaseModel, ValidationError

from rlauto_core.store import layout
from rlauto_core.store.storage import Storage


class Claim(BaseModel):
    source: str
    options_hash: str
    source_sha256: str
    owner: str
    generation: int = 1
    claimed_at: datetime
    expires_at: datetime
    done_at: datetime | None = None

    @property
    def done(self) -> bool:
        return self.done_at is not None

    def expired(self, now: datetime) -> bool:
        return not self.done and now >= self.expires_at

    def renewed(self, now: datetime, lease: timedelta) -> Claim:
        return self.model_copy(update={"expires_at": now + lease})

    def finished(self, now: datetime) -> Claim:
        """Packaged (or failed for good): no later scan takes it."""
        return self.model_copy(update={"done_at": now})

    def released(self, now: datetime) -> Claim:
        """Given up unpackaged (a stopped batch): the next scan may take it at once."""
        return self.model_copy(update={"expires_at": now})


class ClaimDecision(Enum):
    CREATE = "create"  # nobody claimed it: create generation 1
    OURS = "ours"  # this owner holds the lease already (a retried scan, a lost answer)
    TAKE_OVER = "take-over"  # the lease expired undone: create the next generation
    LEAVE = "leave"  # done, or another owner's lease is still running


def decide(current: Claim | None, owner: str, now: datetime) -> ClaimDecision:
    """May `owner` take the recording whose newest claim is `current`?"""
    if current is None:
        return ClaimDecision.CREATE
    if current.done:
        return ClaimDecision.LEAVE
    if current.owner == owner:
        return ClaimDecision.OURS
    return ClaimDecision.TAKE_OVER if current.expired(now) else ClaimDecision.LEAVE


def current_claim(storage: Storage, options_hash: str, source_sha256: str) -> Claim | None:
    """The newest generation's claim of a recording, None when it was never claimed."""
    paths = [p for p in storage.list(layout.claims_dir(options_hash, source_sha256)) if layout.claim_generation(p)]
    if not paths:
        return None
    newest = max(paths, key=lambda p: layout.claim_generation(p) or 0)
    return read_claim(storage, newest)


def read_claim(storage: Storage, path: str) -> Claim:
    generation = layout.claim_generation(path) or 1
    try:
        return Claim.model_validate_json(storage.read_bytes(path)).model_copy(update={"generation": generation})
    except ValidationError:
        # claims are written whole; an unreadable one was damaged by hand: treat it as an
        # expired lease of nobody, so a scan takes the recording over instead of never again
        epoch = datetime.fromtimestamp(0).astimezone()
        options_hash, source_sha256 = path.split("/")[1:3]
        return Claim(source="", options_hash=options_hash, source_sha256=source_sha256, owner="",
                     generation=generation, claimed_at=epoch, expires_at=epoch)  # fmt: skip


def take_claim(
    storage: Storage, options_hash: str, source_sha256: str, source: str, *, owner: str, now: datetime,
    lease: timedelta,
) -> Claim | None:  # fmt: skip
    """The lease `owner` holds on the recording after this call, or None when it is not ours."""
    current = current_claim(storage, options_hash, source_sha256)
    decision = decide(current, owner, now)
    if decision is ClaimDecision.LEAVE:
        return None
    if decision is ClaimDecision.OURS:
        assert current is not None
        return write_claim(storage, current.renewed(now, lease))
    generation = 1 if current is None else current.generation + 1
    claim = Claim(source=source, options_hash=options_hash, source_sha256=source_sha256, owner=owner,
                  generation=generation, claimed_at=now, expires_at=now + lease)  # fmt: skip
    path = layout.claim_path(options_hash, source_sha256, generation)
    if storage.create_exclusive(path, claim.model_dump_json(exclude={"generation"}).encode()):
        return claim
    # another scan won this generation, or our own write landed and only its answer was lost
    landed = read_claim(storage, path)
    return landed if landed.owner == owner else None


def write_claim(storage: Storage, claim: Claim) -> Claim:
    """Rewrite the owner's own claim (a renewal, the done mark): only its owner writes it."""
    path = layout.claim_path(claim.options_hash, claim.source_sha256, claim.generation)
    storage.write_bytes(path, claim.model_dump_json(exclude={"generation"}).encode())
    return claim
