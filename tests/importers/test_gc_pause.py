"""The collector pause (rlauto_core/gcpause.py): settings restored, other threads' garbage still
collected, what someone else froze left frozen, and a long-running worker's memory flat."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator

import pytest

from rlauto_core import gcpause
from rlauto_core.errors import RecordingError
from rlauto_core.gcpause import YOUNG_THRESHOLD, gc_paused
from rlauto_core.importers import import_bytes
from tests.conftest import REPO_ROOT
from tests.importers.gc_worker import ROUND


class Cycle:
    """Cyclic garbage a test can watch die (a weak reference to it)."""

    def __init__(self) -> None:
        self.me = self


def is_frozen(obj: object) -> bool:
    """`obj` is in the permanent generation: tracked, yet in none of the three generations. A
    sound measure for one object held alive, unlike the freeze count, which falls whenever any
    frozen object dies."""
    return gc.is_tracked(obj) and not any(any(o is obj for o in gc.get_objects(g)) for g in range(3))


def build_a_lot() -> list[list[int]]:
    """More new containers than the pause's young generation holds: a pause around this freezes."""
    return [[n] for n in range(YOUNG_THRESHOLD + 50_000)]


@pytest.fixture(autouse=True)
def nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts and ends with nothing frozen and the pause's bookkeeping fresh."""
    gc.unfreeze()
    monkeypatch.setattr(gcpause, "_ours_frozen", False)
    monkeypatch.setattr(gcpause, "_hidden_since", 0.0)
    monkeypatch.setattr(gcpause, "_last_collect_seconds", 0.0)
    yield
    gc.unfreeze()


def test_the_pause_restores_the_collector_after_an_error_and_across_threads() -> None:
    usual = gc.get_threshold()
    assert gc.isenabled()
    with pytest.raises(RecordingError):
        import_bytes(b"PK\x03\x04 broken", "broken.zip")
    assert gc.get_threshold() == usual, "an import that failed must not leave the pause on"
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with gc_paused():
        pass
    assert gc.get_threshold()[0] == YOUNG_THRESHOLD, "another thread's pause is still running"
    assert gc.isenabled(), "a pause never switches the collector off"
    release.set()
    thread.join(10)
    assert gc.get_threshold() == usual and gc.isenabled()


def test_young_garbage_of_other_threads_dies_while_pauses_run() -> None:
    """Cyclic garbage left by one thread while another imports is collected before the import
    ends (the collector stays on; only its young generation is larger)."""
    inside, release = threading.Event(), threading.Event()
    watched: list[weakref.ref[Cycle]] = []

    def importer() -> None:
        with gc_paused():
            inside.set()
            release.wait(30)

    thread = threading.Thread(target=importer)
    thread.start()
    inside.wait(10)
    try:
        watched.append(weakref.ref(Cycle()))
        keep = [{} for _ in range(YOUNG_THRESHOLD * 2)]  # a worker going on with its work
        assert watched[0]() is None, "garbage waited for the other thread's pause to end"
        del keep
    finally:
        release.set()
        thread.join(10)


def test_a_big_build_is_frozen_and_the_next_pause_thaws_it() -> None:
    with gc_paused():
        built = build_a_lot()
    assert is_frozen(built), "the last pause freezes what it built"
    with gc_paused():
        assert not is_frozen(built), "the next pause hands it back to the collector"
    assert not is_frozen(built), "a pause that built little does not freeze"


def test_a_small_build_is_not_frozen() -> None:
    with gc_paused():
        small = [[n] for n in range(100)]
    assert not is_frozen(small) and gc.get_freeze_count() == 0


def test_garbage_a_freeze_hid_is_collected_at_the_next_pause_once_overdue(monkeypatch: pytest.MonkeyPatch) -> None:
    """A freeze hides the garbage that exists at that moment (another thread's, say); the first
    pause that ends after MAX_HIDDEN_SECONDS collects it."""
    monkeypatch.setattr(gcpause, "MAX_HIDDEN_SECONDS", 0.0)
    old = Cycle()
    gc.collect()  # it survives into the oldest generation, where garbage waits longest
    garbage = weakref.ref(old)
    del old  # cyclic garbage now, not yet collected
    with gc_paused():
        built = build_a_lot()
    assert is_frozen(built) and garbage() is not None
    for _ in range(3):  # the collector's own passes never reach frozen objects
        gc.collect()
    assert garbage() is not None, "nothing was hidden: the test would prove nothing"
    with gc_paused():
        pass
    assert garbage() is None


def test_the_collection_of_what_a_freeze_hid_does_not_count_as_a_big_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pause that builds nothing but ends overdue collects what the last freeze hid, and does
    not freeze again: its own full collection is no sign that it built a lot (it froze again
    whenever a pause outlasted MAX_HIDDEN_SECONDS, as on a loaded machine)."""
    monkeypatch.setattr(gcpause, "MAX_HIDDEN_SECONDS", 0.0)
    with gc_paused():
        built = build_a_lot()
    assert is_frozen(built)
    with gc_paused():
        pass
    assert not is_frozen(built) and gc.get_freeze_count() == 0


def test_what_someone_else_froze_before_the_pause_stays_frozen() -> None:
    with gc_paused():
        theirs = [object()]
        gc.freeze()  # as a pre-fork server would, while our pause runs
        built = build_a_lot()
    assert is_frozen(theirs) and not is_frozen(built), "the pause froze on top of someone else's freeze"
    with gc_paused():
        assert is_frozen(theirs), "the pause thawed objects it had not frozen"
    assert is_frozen(theirs)


def test_what_someone_else_froze_after_our_freeze_stays_frozen() -> None:
    with gc_paused():
        built = build_a_lot()
    assert is_frozen(built)
    theirs = [object()]
    gc.freeze()  # someone freezes later: ours and theirs are now one permanent generation
    assert is_frozen(theirs)
    with gc_paused():
        assert is_frozen(theirs), "the pause thawed objects someone else froze"
        build_a_lot()
    assert is_frozen(theirs)


@pytest.mark.slow
def test_a_long_running_workers_memory_stays_flat_over_200_items() -> None:
    """200 items over 4 item threads in one process (tests/importers/gc_worker.py): each imports
    a recording, builds its evidence and leaves 2 MiB of cyclic garbage (a kept error whose
    traceback holds the upload), while the other threads import. The pause froze and thawed
    along the way; the resident set after item 200 is close to the one after item 50."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.importers.gc_worker", "200", "4"], cwd=REPO_ROOT, capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    run = json.loads(done.stdout.strip().splitlines()[-1])
    rss, garbage = run["rss"], run["garbage_per_item"]
    assert len(rss) == 200 and run["gc_enabled"]
    rounds = 200 // 4 // ROUND  # each ends with no pause running: the last one to end froze
    assert run["freeze"] >= rounds and run["unfreeze"] >= rounds - 1, run  # froze and thawed along the way
    left_after_50 = 150 * garbage
    growth = max(rss[50:]) - rss[49]
    print(f"RSS after item 50: {rss[49] / 2**20:.0f} MiB, peak after: {max(rss[50:]) / 2**20:.0f} MiB, "
          f"growth {growth / 2**20:.0f} MiB for {left_after_50 / 2**20:.0f} MiB of garbage left")  # fmt: skip
    assert growth < left_after_50 / 4, f"memory grew by {growth / 2**20:.0f} MiB over 150 items"
