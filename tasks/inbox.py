"""The inbox scan's storage side: take leases on new recordings, renew them, mark them done.

The lease rules live in `rlauto_core.store.claims`; these functions only bind them to the
scan's storage, owner (its flow run) and clock.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from datetime import UTC, datetime, timedelta

from prefect import task
from prefect.cache_policies import NONE as NO_CACHE
from prefect.runtime import flow_run as current_run

from rlauto_core.pipeline import BatchOutcome
from rlauto_core.store import Claim, copy_source, expand_sources, take_claim, write_claim
from tasks.storage_io import get_storage

log = logging.getLogger("rlauto.inbox")


def scan_owner() -> str:
    """Who claims: the scan's flow run (a retried run is the same owner), else a fresh name."""
    return str(current_run.id) if current_run.id else f"scan-{uuid.uuid4().hex}"


@task(name="claim-inbox", cache_policy=NO_CACHE, persist_result=False)
def claim_inbox(
    inbox_url: str, options_hash: str, storage_url: str, max_files: int, max_upload_mb: int, lease_seconds: float,
    owner: str,
) -> list[Claim]:  # fmt: skip
    """The inbox recordings this scan takes: unclaimed ones, and ones whose lease expired undone
    (a scan that crashed before packaging them). Of overlapping scans exactly one takes each."""
    storage = get_storage(storage_url)
    candidates = expand_sources([inbox_url.rstrip("/") + "/"]).files  # an empty inbox names none
    claimed: list[Claim] = []
    for source in candidates:
        if len(claimed) >= max_files:
            break  # the rest waits for the next scan
        sha, _ = copy_source(source, None, max_upload_mb)  # hashed as it streams past, never held whole
        now = datetime.now(UTC)
        claim = take_claim(storage, options_hash, sha, source, owner=owner, now=now,
                           lease=timedelta(seconds=lease_seconds))  # fmt: skip
        if claim is not None:
            claimed.append(claim)
    log.debug("inbox %s: %d recordings found, %d taken by %s", inbox_url, len(candidates), len(claimed), owner)
    return claimed


class Leases:
    """The leases of one scan's batch: renewed while it runs, marked at its end. One lock orders
    a renewal still running in its thread before the end marks (never a renewal after them)."""

    def __init__(self, storage_url: str, claims: list[Claim], lease_seconds: float) -> None:
        self._storage_url, self._claims, self._lease = storage_url, claims, timedelta(seconds=lease_seconds)
        self._lock = threading.Lock()
        self._ended = False

    @property
    def sources(self) -> list[str]:
        return [c.source for c in self._claims]

    def renew(self) -> None:
        """Push the leases' expiry out (while their batch runs)."""
        with self._lock:
            if self._ended:
                return
            storage, now = get_storage(self._storage_url), datetime.now(UTC)
            self._claims = [write_claim(storage, c.renewed(now, self._lease)) for c in self._claims]

    def end(self, batch: BatchOutcome | None) -> None:
        """Done marks for the recordings the batch packaged or failed; a stopped (or never run)
        recording's lease is released so that the next scan takes it."""
        with self._lock:
            self._ended = True
            storage, now = get_storage(self._storage_url), datetime.now(UTC)
            finished = {i.source_sha256 for i in (batch.items if batch else []) if i.status in ("completed", "failed")}
            for claim in self._claims:
                write_claim(storage, claim.finished(now) if claim.source_sha256 in finished else claim.released(now))

    async def keep_renewed(self) -> None:
        """Renew every third of the lease until cancelled; a failed renewal is tried again."""
        while True:
            await asyncio.sleep(self._lease.total_seconds() / 3)
            try:
                await asyncio.to_thread(self.renew)
            except Exception as exc:  # a storage outage: the next renewal may get through
                log.warning("renewing the inbox leases failed: %s", exc)
