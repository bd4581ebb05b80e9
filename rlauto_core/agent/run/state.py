"""A run's state, JSON-serialisable: its rounds with the model, policy counters, usage, steps.

Saved after every round through `RunStore`, so a paused, stopped or budget_exhausted run
resumes where it stopped with its history intact. Screens are references into the run's
folder; rounds older than the last 40 are folded into one-line digests, so the state of a
2000-step run is still small.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from rlauto_core.agent.events import layout
from rlauto_core.agent.policy import Fuse, PolicyState
from rlauto_core.agent.run.settings import RunModel
from rlauto_core.agent.tools import ScreenRef
from rlauto_core.errors import RlautoError
from rlauto_core.llm.tool_types import ToolCall
from rlauto_core.llm.types import TokenUsage
from rlauto_core.store.storage import Storage

KEEP_ROUNDS = 40
DIGEST_LINES = 400
RunStatus = Literal[
    "new",
    "running",
    "waiting_for_person",
    "paused",
    "budget_exhausted",
    "completed",
    "blocked",
    "chat_ended",
    "stopped",
    "failed",
]


def _now() -> datetime:
    return datetime.now(UTC)


class HistoryMessage(BaseModel):
    """An earlier round of the conversation as the model gets it: role and content only."""

    role: Literal["user", "assistant"]
    content: str


class ToolResult(BaseModel):
    call_id: str
    tool: str
    content: str
    # what replaces `content` once it is old (set for UI trees, which are large and go stale)
    stale: str | None = None


class Round(BaseModel):
    """One model answer with its tool results and the user note after them; `by_model` is False
    for a round the loop opens itself (the start, a resume)."""

    by_model: bool = True
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    results: list[ToolResult] = Field(default_factory=list)
    note: str = ""
    screens: list[ScreenRef] = Field(default_factory=list)

    def digest(self) -> list[str]:
        """One line per tool call: what was done and how it went."""
        results = {r.call_id: r.stale or r.content for r in self.results}
        lines = []
        for call in self.tool_calls:
            outcome = " ".join(results.get(call.id, "not executed").split())
            lines.append(f"{call.name} {call.wire_arguments()[:160]} -> {outcome[:160]}")
        return lines


class RunState(BaseModel):
    version: Literal[1] = 1
    run_id: str
    serial: str
    instruction: str
    conversation_id: str | None = None
    mode: str = "agent"
    origin: str | None = None  # who started it: cli, sdk, dashboard, eval, designer (run_list.ORIGINS)
    # what the run runs on (a resume keeps it unless it names another); None in runs from before
    model: RunModel | None = None
    # recipes and actions recalled at the start, appended to the system prompt (kept for a resume)
    memory: str = ""
    status: RunStatus = "new"
    history: list[HistoryMessage] = Field(default_factory=list)
    rounds: list[Round] = Field(default_factory=list)
    digest: list[str] = Field(default_factory=list)
    digest_dropped: int = 0
    policy: PolicyState = Field(default_factory=PolicyState)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    steps: int = 0
    screens_taken: int = 0
    last_reasoning: str = ""
    answer: str = ""
    deliverables: list[str] = Field(default_factory=list)
    fuse: Fuse | None = None
    error: str | None = None
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)

    def add_round(self, round_: Round) -> None:
        self.rounds.append(round_)
        while len(self.rounds) > KEEP_ROUNDS:
            self.digest += self.rounds.pop(0).digest()
        if len(self.digest) > DIGEST_LINES:
            self.digest_dropped += len(self.digest) - DIGEST_LINES
            self.digest = self.digest[-DIGEST_LINES:]


class AgentStateError(RlautoError):
    """A stored run state cannot be read."""


class RunStore:
    """Run states in storage, one `state.json` per run (written whole, atomically)."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def save(self, state: RunState) -> None:
        state.updated_at = _now()
        self._storage.write_bytes(layout.state_path(state.run_id), state.model_dump_json().encode("utf-8"))

    def load(self, run_id: str) -> RunState | None:
        path = layout.state_path(run_id)
        if not self._storage.exists(path):
            return None
        try:
            return RunState.model_validate_json(self._storage.read_bytes(path))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "state"
            raise AgentStateError(f"{path}: {where}: {first['msg']}") from None
