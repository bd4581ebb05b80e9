"""A run as a page or a terminal sees it, folded from its event log: what happened, in order,
the token usage, whether a person is needed, how it ended, and whether it is alive.

`RunView.feed(logged)` takes what `EventLog.read(view.next_offset)` returned: events it has
already seen (a sequence number below `next_offset`) are ignored, and it stops at a gap, so
reading again from the same offset after a reload or a lost answer never loses an event and
never shows one twice. Alive means a heartbeat in the last 30 s, nothing else: streamed or old
text never counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Literal

from pydantic import BaseModel, Field

from rlauto_core.agent.events.event_log import LoggedEvent
from rlauto_core.agent.events.events import (
    Heartbeat,
    ModelCalled,
    RunEnded,
    RunStarted,
    TakeoverEnded,
    TakeoverRequested,
    ToolCalled,
)
from rlauto_core.llm.types import TokenUsage

ALIVE_S = 30.0
Phase = Literal["waiting", "running", "waiting_for_person", "ended"]


class RunView(BaseModel):
    run_id: str
    next_offset: int = 0
    # every event but heartbeats and model calls, in log order: what a page lists
    timeline: list[LoggedEvent] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    usage_reported: bool = True
    model_calls: int = 0
    steps: int = 0
    started: RunStarted | None = None
    takeover: TakeoverRequested | None = None
    ended: RunEnded | None = None
    last_heartbeat: datetime | None = None
    waiting_on: str | None = None

    def feed(self, logged: Iterable[LoggedEvent]) -> int:
        """Apply the events from `next_offset` on; how many were new."""
        applied = 0
        for item in logged:
            if item.seq < self.next_offset:
                continue  # seen already: a reload or an overlapping read
            if item.seq != self.next_offset:
                break  # a gap: the missing event comes with the next read, then the rest
            self._apply(item)
            self.next_offset += 1
            applied += 1
        return applied

    def _apply(self, item: LoggedEvent) -> None:
        event = item.event
        self.steps = max(self.steps, event.step)
        if isinstance(event, Heartbeat):
            self.last_heartbeat, self.waiting_on = event.at, event.waiting_on
            return
        if isinstance(event, ModelCalled):
            # the run's total as the run counted it; a resumed run goes on from its saved total
            self.usage, self.model_calls = event.run_usage, self.model_calls + 1
            self.usage_reported = self.usage_reported and event.usage_reported
            return
        if isinstance(event, RunStarted):
            self.started, self.ended, self.takeover = event, None, None
        elif isinstance(event, TakeoverRequested):
            self.takeover = event
        elif isinstance(event, TakeoverEnded):
            self.takeover = None
        elif isinstance(event, RunEnded):
            self.ended, self.takeover, self.usage = event, None, event.usage
        self.timeline.append(item)

    @property
    def phase(self) -> Phase:
        if self.ended is not None:
            return "ended"
        if self.takeover is not None:
            return "waiting_for_person"
        return "running" if self.started is not None else "waiting"

    def alive(self, now: datetime | None = None) -> bool:
        """A heartbeat in the last 30 s, and the run not ended."""
        if self.ended is not None or self.last_heartbeat is None:
            return False
        now = now or datetime.now(UTC)
        return now - self.last_heartbeat <= timedelta(seconds=ALIVE_S)

    def cards(self) -> list[ToolCalled]:
        return [item.event for item in self.timeline if isinstance(item.event, ToolCalled)]
