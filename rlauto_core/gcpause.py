"""Pause the cyclic garbage collector's costly passes while a large recording is turned into objects.

Importing a 100 MB recording allocates millions of dicts, lists and models in one go. With the
collector's usual settings that triggers a young collection every 700 new containers and, as
they age, full passes over every live object again and again as the recording grows: on the
28k-request benchmark that was half of import + evidence time (bench/bench_import.py).

The collector is one per process, so whatever a pause does, it does to every thread. It must
not let other threads' cyclic garbage pile up in a long-running worker (many items, several at
once, pauses that overlap for minutes). So a pause does not switch the collector off:
- while any pause runs, the youngest generation is `YOUNG_THRESHOLD` containers instead of 700:
  young garbage (a caught error's traceback cycle, a finished item's leftovers) of every thread
  is still collected, in far fewer, cheaper passes;
- pauses that made at least `YOUNG_THRESHOLD` containers end, when the last one does, with
  `gc.freeze()`: what exists then is left out of collections (reference counting still frees
  it) instead of being walked two or three more times as it ages; the next pause thaws it
  again (`gc.unfreeze()`, to the oldest generation);
- what a freeze hid is collected at the end of the first pause after `MAX_HIDDEN_SECONDS` (or
  `COLLECT_BUDGET` times what that collection took last time, so it costs at most about a fifth
  of the time): everything is thawed during a pause, so one full collection frees it all.
What someone else froze (a pre-fork server does) is never thawed: a pause does not freeze when
anything is frozen already, and thaws only while a canary made right after its own freeze is
unfrozen (anyone's later `gc.freeze()` would have frozen the canary too). When the collector
is off (the application's choice), a pause changes nothing.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 100_000
MAX_HIDDEN_SECONDS = 1.0
COLLECT_BUDGET = 5.0

# re-entrant: a finalizer run by a collection here may itself import (same thread)
_lock = threading.RLock()
_depth = 0
_saved_thresholds = gc.get_threshold()
_collections_at_start = 0
_ours_frozen = False  # the permanent generation holds what our last pause froze, nobody else's
_canary: list[object] = []  # made just after our freeze; frozen later only by someone else's freeze
_hidden_since = 0.0  # time.monotonic() of our first freeze since the last full collection
_last_collect_seconds = 0.0


@contextmanager
def gc_paused() -> Iterator[None]:
    global _depth, _saved_thresholds, _ours_frozen, _collections_at_start
    with _lock:
        if _depth == 0:
            _saved_thresholds = gc.get_threshold()
            _collections_at_start = _collections()
            gc.set_threshold(max(YOUNG_THRESHOLD, _saved_thresholds[0]), *_saved_thresholds[1:])
            if _ours_frozen:
                if not _is_frozen(_canary):
                    gc.unfreeze()  # back to the oldest generation, collectable again
                _ours_frozen = False
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _hidden_since and gc.isenabled() and _overdue():
                _collect_all()
            if _depth == 0:
                if gc.isenabled():
                    _freeze_if_worth_it()  # first: the usual threshold would walk the young at once
                gc.set_threshold(*_saved_thresholds)


def _overdue() -> bool:
    waited = time.monotonic() - _hidden_since
    return waited >= max(MAX_HIDDEN_SECONDS, COLLECT_BUDGET * _last_collect_seconds)


def _collect_all() -> None:
    """One full collection, now; nothing of ours is frozen while a pause runs."""
    global _last_collect_seconds, _hidden_since, _collections_at_start
    start, before = time.monotonic(), _collections()
    gc.collect()
    _last_collect_seconds = time.monotonic() - start
    _hidden_since = 0.0
    _collections_at_start += _collections() - before  # ours, not a sign that the pause built a lot


def _freeze_if_worth_it() -> None:
    global _ours_frozen, _canary, _hidden_since
    if gc.get_freeze_count() or not _built_a_lot():
        return  # someone else's frozen objects are theirs to thaw; a small build is cheap to walk
    gc.collect(0)  # the young garbage of every thread first: at most YOUNG_THRESHOLD to walk
    gc.freeze()
    _ours_frozen = True
    _canary = []  # a new tracked object, in the youngest generation
    if not _hidden_since:
        _hidden_since = time.monotonic()


def _built_a_lot() -> bool:
    """At least YOUNG_THRESHOLD containers made while the pauses ran: a young collection ran
    meanwhile, or the youngest generation is that full (CPython counts allocations minus
    deallocations there)."""
    return _collections() > _collections_at_start or gc.get_count()[0] >= YOUNG_THRESHOLD


def _collections() -> int:
    return sum(int(generation["collections"]) for generation in gc.get_stats())


def _is_frozen(obj: object) -> bool:
    """True when `obj` (tracked by the collector) is in the permanent generation. Cheap after our
    own freeze: the generations then hold only what was made since."""
    return gc.is_tracked(obj) and not any(any(o is obj for o in gc.get_objects(g)) for g in range(3))
