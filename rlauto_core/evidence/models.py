"""Evidence: what the recording shows, call by call, once classified and filtered."""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from rlauto_core.recording import Mode


class EntityRef(NamedTuple):
    """An entity id a call touches: `key` is canonical camelCase (`channelId`), `value` the id.

    A NamedTuple (stored as `[key, value]`): evidence for a large recording holds tens of
    thousands and tuples are built and hashed far faster than models."""

    key: str
    value: str


class CallEvidence(BaseModel):
    id: str
    index: int
    kind: Literal["http", "mcp"]
    name: str
    state_changing: bool
    significant: bool
    noise_category: str | None = None
    entities: list[EntityRef] = Field(default_factory=list)
    status: int | None = None
    failed: bool = False
    failure: str | None = None  # why, when the answer says more than its status (a form's errors)


class EntityTally(BaseModel):
    """How many writes hit an entity (request or answer) and how many act on it (path, or what they made)."""

    key: str
    value: str
    writes: int
    acted_on: int


class MainEntityChoice(BaseModel):
    """The main entity and the runner-up, and what was ruled out: parameters of writes on another entity."""

    chosen: EntityTally | None = None
    runner_up: EntityTally | None = None
    parameters: list[EntityRef] = Field(default_factory=list)


class Evidence(BaseModel):
    mode: Mode
    calls: list[CallEvidence]
    main_entity: EntityRef | None = None
    main_entity_choice: MainEntityChoice | None = None
    noise_removed: dict[str, int] = Field(default_factory=dict)

    @property
    def state_changing(self) -> list[str]:
        return [c.id for c in self.calls if c.state_changing and c.significant]

    @property
    def significant(self) -> list[CallEvidence]:
        return [c for c in self.calls if c.significant]

    def by_id(self, call_id: str) -> CallEvidence | None:
        for call in self.calls:
            if call.id == call_id:
                return call
        return None
