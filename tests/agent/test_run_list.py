"""The run list: every run newest first from the listing names alone, each with its state now; a
listing that cannot be read is skipped, a run whose state is gone is still listed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rlauto_core.agent.run import RunList, RunState, RunStore
from rlauto_core.store.storage import FsspecStorage

T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def _run(storage: FsspecStorage, n: int, status: str = "completed") -> RunState:
    state = RunState(run_id=f"run-{n:02d}", serial="demo-1", instruction=f"task {n}", origin="cli" if n % 2 else "eval",
                     created_at=T0 + timedelta(seconds=n), status=status, steps=n)  # type: ignore[arg-type]  # fmt: skip
    RunStore(storage).save(state)
    RunList(storage).add(state)
    return state


def test_the_newest_runs_come_first_with_their_state_now(storage: FsspecStorage) -> None:
    for n in range(35):
        _run(storage, n)
    running = _run(storage, 40, status="running")
    recent = RunList(storage).recent(30)
    assert [r.run_id for r in recent] == ["run-40", *[f"run-{n:02d}" for n in range(34, 5, -1)]]
    assert (recent[0].status, recent[0].origin, recent[0].steps) == ("running", "eval", 40)
    running.status, running.steps = "waiting_for_person", 41
    RunStore(storage).save(running)  # the listing is written once; the state says how it is now
    assert (RunList(storage).recent(1)[0].status, RunList(storage).recent(1)[0].steps) == ("waiting_for_person", 41)


def test_a_broken_listing_is_skipped_and_a_run_without_its_state_is_listed_without_one(
    storage: FsspecStorage,
) -> None:
    _run(storage, 1)
    _run(storage, 2)
    storage.write_bytes("agent/run_list/20991231T000000000000Z-broken.json", b"{not json")
    storage.delete("agent/runs/run-02/state.json")
    recent = RunList(storage).recent(10)
    assert [(r.run_id, r.status) for r in recent] == [("run-02", None), ("run-01", "completed")]
