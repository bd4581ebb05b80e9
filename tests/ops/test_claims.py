"""The lease rules of an inbox claim (pure): who may take a recording, and when."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rlauto_core.store import Claim, ClaimDecision, decide, layout

NOW = datetime(2026, 12, 2, 6, 0, tzinfo=UTC)
LEASE = timedelta(minutes=15)


def claim(owner: str = "scan-a", *, at: datetime = NOW, done: bool = False) -> Claim:
    return Claim(source="inbox/rec.zip", options_hash="opts", source_sha256="abc", owner=owner, claimed_at=at,
                 expires_at=at + LEASE, done_at=at if done else None)  # fmt: skip


def test_nobody_claimed_it_so_create_the_first_generation() -> None:
    assert decide(None, "scan-a", NOW) is ClaimDecision.CREATE


def test_a_live_lease_of_another_scan_is_left_alone() -> None:
    assert decide(claim("scan-b"), "scan-a", NOW + LEASE - timedelta(seconds=1)) is ClaimDecision.LEAVE


def test_an_expired_lease_that_is_not_done_is_taken_over() -> None:
    assert decide(claim("scan-b"), "scan-a", NOW + LEASE) is ClaimDecision.TAKE_OVER


def test_a_done_claim_is_never_taken_again_however_old() -> None:
    assert decide(claim("scan-b", done=True), "scan-a", NOW + 100 * LEASE) is ClaimDecision.LEAVE
    assert decide(claim("scan-a", done=True), "scan-a", NOW) is ClaimDecision.LEAVE


def test_our_own_claim_is_ours_even_expired() -> None:
    """A retried scan (or a claim whose answer was lost) finds its own name on the claim."""
    assert decide(claim("scan-a"), "scan-a", NOW) is ClaimDecision.OURS
    assert decide(claim("scan-a"), "scan-a", NOW + 2 * LEASE) is ClaimDecision.OURS


def test_renewal_release_and_done_marks() -> None:
    later = NOW + timedelta(minutes=10)
    assert claim().renewed(later, LEASE).expires_at == later + LEASE
    assert claim().released(later).expired(later)
    finished = claim().finished(later)
    assert finished.done and not finished.expired(NOW + 10 * LEASE)


def test_claim_generations_have_ordered_names() -> None:
    assert layout.claim_path("opts", "abc", 2) == "claims/opts/abc/000002.json"
    assert layout.claim_generation(layout.claim_path("opts", "abc", 12)) == 12
    assert layout.claim_generation("claims/opts/abc/000002.json.tmp") is None
    with pytest.raises(ValueError):
        layout.claim_path("opts", "abc", 0)
