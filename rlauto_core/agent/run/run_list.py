"""Every agent run, newest first, whoever started it (the CLI, the SDK, the dashboard, an eval).

`AgentLoop.start` adds a small listing per run, `agent/run_list/{stamp}-{run}.json` (stamp: the
start time to the microsecond, so names sort by time): the Agent page lists the newest from the
names alone and reads only those runs' states for how they are now. Why a listing and not a scan
of `agent/runs/*/state.json`: a state is up to hundreds of KB and run ids (Prefect flow run ids)
say nothing of time, so finding the newest 30 of 10,000 runs would read them all.
Runs from before the listing existed are not in it (their conversations still list them).
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ValidationError

from rlauto_core.agent.events import layout
from rlauto_core.agent.run.state import AgentStateError, RunState, RunStatus, RunStore
from rlauto_core.store.storage import Storage

RUN_LIST_DIR = "agent/run_list"
ORIGINS = ("cli", "sdk", "dashboard", "eval", "designer")  # who starts runs; None: unknown (a test, a script)


class ListedRun(BaseModel):
    """A run as the run list shows it: what it is (from its listing) and how it is now (its state)."""

    run_id: str
    instruction: str
    serial: str
    mode: str = "agent"
    origin: str | None = None
    model: str | None = None
    created_at: datetime
    status: RunStatus | None = None  # None: the state cannot be read now
    steps: int = 0
    tokens: int = 0
    updated_at: datetime | None = None


class RunList:
    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def add(self, state: RunState) -> None:
        stamp = state.created_at.astimezone(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        listed = ListedRun(
            run_id=state.run_id, instruction=state.instruction[:300], serial=state.serial, mode=state.mode,
            origin=state.origin, model=state.model.model if state.model else None, created_at=state.created_at,
        )  # fmt: skip
        path = f"{RUN_LIST_DIR}/{stamp}-{layout.checked_id(state.run_id)}.json"
        self._storage.write_bytes(
            path, listed.model_dump_json(exclude={"status", "steps", "tokens", "updated_at"}).encode()
        )

    def recent(self, limit: int = 30) -> list[ListedRun]:
        """The newest `limit` runs, newest first, each with its state now."""
        names = [p for p in self._storage.list(RUN_LIST_DIR) if p.endswith(".json")]
        runs = RunStore(self._storage)
        found: list[ListedRun] = []
        for path in reversed(names):
            if len(found) >= limit:
                break
            try:
                listed = ListedRun.model_validate_json(self._storage.read_bytes(path))
                state = runs.load(listed.run_id)
            except (ValidationError, AgentStateError, OSError, ValueError):
                continue
            if state is not None:
                listed = listed.model_copy(update={"status": state.status, "steps": state.steps,
                                                   "tokens": state.usage.total_tokens, "updated_at": state.updated_at})  # fmt: skip
            found.append(listed)
        return found
