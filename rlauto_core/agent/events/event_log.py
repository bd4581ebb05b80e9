"""A run's append-only event log in storage: one object per event, numbered from 0.

Object stores cannot append, so each event is its own object `events/{seq:08d}.json`, created
exclusively: of two writers racing for a number exactly one wins and the other takes the next,
so no number is written twice and none is skipped. `read(offset)` returns the events from
`offset` on, in order and without a gap: a page that reloads asks again from the offset it had
(nothing lost), two pages reading one run both see every event (reading takes nothing away),
and the sequence number makes a duplicate impossible to mistake for a new event.
"""

from __future__ import annotations

import json

from pydantic import BaseModel, ValidationError

from rlauto_core.agent.events.events import EVENT_ADAPTER, AgentEvent
from rlauto_core.agent.events.layout import event_path, events_dir
from rlauto_core.errors import RlautoError
from rlauto_core.store.storage import Storage


class EventLogError(RlautoError):
    """An event object in storage is not an event (a hand-edited or foreign file)."""


class LoggedEvent(BaseModel):
    seq: int
    event: AgentEvent


def _seq_of(path: str) -> int | None:
    name = path.rsplit("/", 1)[-1]
    stem, _, ext = name.partition(".")
    return int(stem) if ext == "json" and len(stem) == 8 and stem.isdigit() else None


class EventLog:
    """The event log of one run; also an `EventSink` (`emit` appends)."""

    def __init__(self, storage: Storage, run_id: str) -> None:
        self._storage = storage
        self.run_id = run_id
        self._next: int | None = None

    def _sequence_numbers(self) -> list[int]:
        found = (_seq_of(p) for p in self._storage.list(events_dir(self.run_id)))
        return sorted(n for n in found if n is not None)

    def next_seq(self) -> int:
        """The number the next event gets, as seen now: where a reader of new events only starts
        (take it before starting the writer, so none of its events is missed)."""
        numbers = self._sequence_numbers()
        return numbers[-1] + 1 if numbers else 0

    def append(self, event: AgentEvent) -> int:
        """Store `event` after every event already there; its sequence number."""
        if self._next is None:
            numbers = self._sequence_numbers()
            self._next = numbers[-1] + 1 if numbers else 0
        data = EVENT_ADAPTER.dump_json(event)
        while not self._created(event_path(self.run_id, self._next), data):
            self._next += 1  # another writer took this number
        seq = self._next
        self._next += 1
        return seq

    def _created(self, path: str, data: bytes) -> bool:
        """Whether `data` is now at `path`: created by this call, or by this call's own earlier
        attempt. A create that landed but whose answer was lost is repeated by the storage layer
        and then finds the number taken; without reading it back the event was appended a second
        time under the next number (a person's answer delivered twice)."""
        if self._storage.create_exclusive(path, data):
            return True
        try:
            return self._storage.read_bytes(path) == data  # an event holds its time: equal is ours
        except FileNotFoundError:
            return False

    def emit(self, event: AgentEvent) -> None:
        self.append(event)

    def read(self, offset: int = 0, limit: int | None = None) -> list[LoggedEvent]:
        """Events with `seq >= offset`, in order and without a gap (at most `limit`); the next
        offset to ask for is the last seq + 1. An event listed but not readable yet (an object
        store's listing can run ahead of its reads) ends the answer: it comes with the next read."""
        if offset < 0:
            raise ValueError("offset must be 0 or more")
        out: list[LoggedEvent] = []
        for seq in (n for n in self._sequence_numbers() if n >= offset):
            if seq != offset + len(out) or (limit is not None and len(out) >= limit):
                break  # never skip a number: a reader must not miss the event still being written
            path = event_path(self.run_id, seq)
            try:
                data = self._storage.read_bytes(path)
            except FileNotFoundError:
                break
            try:
                event = EVENT_ADAPTER.validate_json(data)
            except (ValidationError, json.JSONDecodeError, ValueError) as exc:
                raise EventLogError(f"{path}: not an agent event ({str(exc).splitlines()[0]})") from None
            out.append(LoggedEvent(seq=seq, event=event))
        return out
