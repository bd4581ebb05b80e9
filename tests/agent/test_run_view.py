"""A run folded from its event log as pages see it: a reload replays everything once, two
readers both see every event, a gap is waited for, and only a recent heartbeat means alive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rlauto_core.agent.events import (
    AssistantText,
    EventLog,
    Heartbeat,
    LoggedEvent,
    RunEnded,
    RunStarted,
    RunView,
    TakeoverEnded,
    TakeoverRequested,
)
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import MakeLoop
from tests.agent.scripts import WRITE_NOTE
from tests.fakes.llm_server import FakeLlmServer


def test_reading_in_pieces_reloading_and_a_second_reader_give_every_event_once(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", *WRITE_NOTE)
    assert make_loop().loop.start("run-v", "Write the note").outcome == "completed"
    log = EventLog(storage, "run-v")
    everything = log.read(0)
    whole = RunView(run_id="run-v")
    assert whole.feed(everything) == len(everything) == whole.next_offset

    # a page reading 3 at a time, sometimes overlapping the last answer (a retried request)
    paged = RunView(run_id="run-v")
    while paged.next_offset < len(everything):
        start = max(0, paged.next_offset - 2)
        paged.feed(log.read(start, limit=3))
    assert [i.seq for i in paged.timeline] == [i.seq for i in whole.timeline]
    assert len({i.seq for i in paged.timeline}) == len(paged.timeline)
    # a reload is a new view from 0: the same run, nothing lost
    reloaded = RunView(run_id="run-v")
    reloaded.feed(log.read(0))
    assert reloaded.model_dump() == whole.model_dump() == paged.model_dump()
    assert whole.ended is not None and whole.ended.outcome == "completed" and whole.phase == "ended"
    assert whole.usage.total_tokens == whole.ended.usage.total_tokens > 0 and whole.model_calls == len(WRITE_NOTE)
    assert [c.tool for c in whole.cards()][:2] == ["app_start", "tap"]
    assert not any(item.event.type in ("heartbeat", "model_called") for item in whole.timeline)


def _logged(seq: int, event: object) -> LoggedEvent:
    return LoggedEvent(seq=seq, event=event)  # type: ignore[arg-type]


def test_a_gap_is_waited_for_and_liveness_is_only_a_recent_heartbeat() -> None:
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    started = RunStarted(run_id="r", instruction="x", serial="s", model="m", at=now - timedelta(seconds=90))
    view = RunView(run_id="r")
    assert view.feed([_logged(0, started), _logged(2, AssistantText(run_id="r", text="late"))]) == 1
    assert view.next_offset == 1 and view.phase == "running"
    assert not view.alive(now)  # started, but no heartbeat: not shown alive
    view.feed([_logged(1, Heartbeat(run_id="r", waiting_on="model", waited_s=0, at=now - timedelta(seconds=31)))])
    assert not view.alive(now)  # 31 s old
    # fresh streamed text does not make a run alive
    view.feed([_logged(2, AssistantText(run_id="r", text="still here", at=now))])
    assert not view.alive(now)
    view.feed([_logged(3, Heartbeat(run_id="r", waiting_on="person", waited_s=5, at=now - timedelta(seconds=29)))])
    assert view.alive(now) and view.waiting_on == "person"
    view.feed([_logged(4, TakeoverRequested(run_id="r", reason="login", message="sign in"))])
    assert view.phase == "waiting_for_person" and view.takeover is not None
    view.feed([_logged(5, TakeoverEnded(run_id="r", note="done"))])
    assert view.phase == "running" and view.takeover is None
    view.feed([_logged(6, RunEnded(run_id="r", outcome="paused", answer="fuse"))])
    view.feed([_logged(7, Heartbeat(run_id="r", waiting_on="tool", waited_s=0, at=now))])
    assert view.phase == "ended" and not view.alive(now)
    # a resume starts the run again in the same log
    view.feed([_logged(8, RunStarted(run_id="r", instruction="x", serial="s", model="m", resumed=True))])
    assert view.phase == "running" and view.ended is None
