"""Conversations: the instructions and final answers of runs that share a conversation id.

A conversation keeps 60 messages at most; a new run gets the last 12 rounds of it as context,
role and content only. Usage and reasoning are stored for display and never fed back.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from rlauto_core.agent.events import layout
from rlauto_core.agent.run.state import AgentStateError, HistoryMessage
from rlauto_core.llm.types import TokenUsage
from rlauto_core.store.storage import Storage

MAX_MESSAGES = 60
HISTORY_ROUNDS = 12
REASONING_CHARS = 6000
# an earlier answer fed back is cut: history is context, not the task
HISTORY_MESSAGE_CHARS = 4000


class ConversationMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str
    run_id: str | None = None
    usage: TokenUsage | None = None
    reasoning: str | None = Field(default=None, max_length=REASONING_CHARS)
    outcome: str | None = None
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class Conversation(BaseModel):
    id: str
    messages: list[ConversationMessage] = Field(default_factory=list)

    def history(self, rounds: int = HISTORY_ROUNDS, *, excluding_run: str | None = None) -> list[HistoryMessage]:
        """The last `rounds` rounds (a user message and the answers after it), role and content."""
        kept = [m for m in self.messages if excluding_run is None or m.run_id != excluding_run]
        starts = [i for i, m in enumerate(kept) if m.role == "user"]
        first = starts[-rounds] if len(starts) >= rounds else 0
        return [HistoryMessage(role=m.role, content=m.content[:HISTORY_MESSAGE_CHARS]) for m in kept[first:]]


class ConversationStore:
    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def load(self, conversation_id: str) -> Conversation:
        path = layout.conversation_path(conversation_id)
        if not self._storage.exists(path):
            return Conversation(id=conversation_id)
        try:
            return Conversation.model_validate_json(self._storage.read_bytes(path))
        except ValidationError as exc:
            raise AgentStateError(f"{path}: not a conversation ({exc.errors()[0]['msg']})") from None

    def append(self, conversation_id: str, message: ConversationMessage) -> Conversation:
        conversation = self.load(conversation_id)
        conversation.messages = [*conversation.messages, message][-MAX_MESSAGES:]
        self._storage.write_bytes(
            layout.conversation_path(conversation_id), conversation.model_dump_json().encode("utf-8")
        )
        return conversation

    def ids(self) -> list[str]:
        """Every stored conversation id, sorted."""
        names = (p.rsplit("/", 1)[-1] for p in self._storage.list("agent/conversations"))
        return sorted(n.removesuffix(".json") for n in names if n.endswith(".json"))
