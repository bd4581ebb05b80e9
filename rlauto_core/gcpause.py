"""Pause the cyclic garbage collector while a large recording is turned into objects.

Importing a 100 MB recording allocates millions of dicts, lists and models in one go. Each
allocation burst triggers a generation-2 collection that walks every live object, so the
collector's work grows with the square of the recording: on the 28k-request benchmark it was
half of import + evidence time (bench/bench_import.py). Nothing built here forms reference
cycles that must be freed early; the collector runs again when the last pause ends.

When it does, it would walk the new objects two or three times as they age through its
generations (half a second on the benchmark, paid by whatever runs next). So the last pause
ends with `gc.freeze()`: what exists then is left out of cycle collection (reference counting
still frees it as usual) until the next pause begins with `gc.unfreeze()`, which hands it back
to the oldest generation. Cyclic garbage can wait at most one recording for its collection.
When something else in the process froze objects of its own (a pre-fork server does), the
pause neither freezes nor thaws: those are not ours to hand back.

Pauses nest and may overlap across threads (a worker runs several items at once): automatic
collection is re-enabled only when the last one ends, and only if it was on before the first.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False
_froze = False  # the permanent generation holds what our last pause froze (and nobody else's)


@contextmanager
def gc_paused() -> Iterator[None]:
    global _depth, _was_enabled, _froze
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
            if _froze:
                gc.unfreeze()
                _froze = False
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                if not gc.get_freeze_count():  # objects someone else froze are theirs to thaw
                    gc.freeze()
                    _froze = True
                gc.enable()
