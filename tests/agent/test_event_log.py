"""The event log: ordered, replayable from an offset, no loss and no duplicate for any reader,
on a local disk and on S3 (moto's server)."""

from __future__ import annotations

import threading

import pytest

from rlauto_core.agent.events import EventLog, EventLogError, Heartbeat, RunStarted
from rlauto_core.store.storage import FsspecStorage, Storage, open_storage
from tests.fakes.outage_relay import FaultRelay


def _beat(n: int) -> Heartbeat:
    return Heartbeat(run_id="run-e", step=n, waiting_on="model", waited_s=float(n))


def _follow(log: EventLog, stop: threading.Event, seen: list[int]) -> None:
    """What a page does: ask from its offset, again and again; reloads keep their offset."""
    offset = 0
    while True:
        finished = stop.is_set()
        for logged in log.read(offset):
            seen.append(logged.seq)
            offset = logged.seq + 1
        if finished:
            return


def _check(storage: Storage, writers: int, per_writer: int) -> None:
    stop = threading.Event()
    pages: list[list[int]] = [[], []]
    readers = [threading.Thread(target=_follow, args=(EventLog(storage, "run-e"), stop, p)) for p in pages]
    for reader in readers:
        reader.start()
    threads = [
        threading.Thread(target=lambda: [EventLog(storage, "run-e").append(_beat(i)) for i in range(per_writer)])
        for _ in range(writers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    for reader in readers:
        reader.join()
    everything = list(range(writers * per_writer))
    assert [logged.seq for logged in EventLog(storage, "run-e").read(0)] == everything
    for page in pages:
        assert page == everything  # both pages saw every event, once, in order


def test_every_reader_sees_every_event_once_in_order_while_writers_race(storage: FsspecStorage) -> None:
    _check(storage, writers=2, per_writer=40)


@pytest.mark.slow
def test_one_writer_and_two_pages_on_s3(s3_url: str) -> None:
    # one writer, as in a run (one agent at a time): moto checks `If-None-Match: *` and then
    # writes, not atomically as S3 does, so racing writers are only tested on the local disk
    _check(open_storage(s3_url), writers=1, per_writer=30)


@pytest.mark.slow
def test_an_event_whose_answer_was_lost_is_appended_once(relay: FaultRelay, s3_url: str) -> None:
    """The event's PUT lands on S3 and its answer is cut: the storage layer repeats it and finds
    the number taken. The log reads its own event back there instead of writing it again under
    the next number (a person's answer would have reached the agent twice)."""
    log = EventLog(open_storage(s3_url), "run-e")
    relay.lose_answers(lambda method, target: method == "PUT" and target.endswith("/00000000.json"), times=1)
    assert log.append(_beat(1)) == 0
    assert relay.faulted, "no answer was lost"
    assert relay.count(lambda method, target: method == "PUT" and target.endswith("/00000000.json")) >= 2
    assert log.append(_beat(2)) == 1
    assert [(e.seq, e.event.step) for e in EventLog(open_storage(s3_url), "run-e").read(0)] == [(0, 1), (1, 2)]  # type: ignore[union-attr]


def test_read_from_an_offset_and_a_reopened_log_goes_on_numbering(storage: FsspecStorage) -> None:
    log = EventLog(storage, "run-e")
    assert [log.append(_beat(i)) for i in range(5)] == [0, 1, 2, 3, 4]
    assert [e.seq for e in log.read(3)] == [3, 4] and log.read(5) == []
    assert [e.seq for e in log.read(1, limit=2)] == [1, 2]
    reopened = EventLog(storage, "run-e")  # a resumed run in a new process
    assert reopened.append(RunStarted(run_id="run-e", instruction="x", serial="s", model="m", resumed=True)) == 5
    last = reopened.read(5)[0].event
    assert isinstance(last, RunStarted) and last.resumed
    assert [e.event.step for e in reopened.read(0)[:5]] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError):
        log.read(-1)


def test_a_foreign_file_in_the_log_is_a_clear_error(storage: FsspecStorage) -> None:
    log = EventLog(storage, "run-e")
    log.append(_beat(0))
    storage.write_bytes("agent/runs/run-e/events/00000001.json", b'{"type": "nonsense"}')
    storage.write_bytes("agent/runs/run-e/events/notes.txt", b"ignored: not an event name")
    with pytest.raises(EventLogError, match=r"agent/runs/run-e/events/00000001.json: not an agent event"):
        log.read(0)
    assert [e.seq for e in log.read(0, limit=1)] == [0]
