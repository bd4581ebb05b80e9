"""A cache keyed by bodies and pages, bounded by how much text it holds.

Evidence, dataflow, checkers and the validator read the same form body or HTML page many times
per recording, so parses are kept. An `lru_cache` bounded by entries would keep up to that many
bodies alive after the recording is gone (a worker packages recording after recording); this one
holds at most `max_chars` characters of keys, least recently used out first. Item threads share
it, so it takes a lock; the work itself runs outside the lock.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class SizedCache(Generic[V]):
    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._items: OrderedDict[Hashable, tuple[int, V]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: Hashable, size: int, make: Callable[[], V]) -> V:
        """The value for `key` (whose text is `size` characters), made by `make` when not held."""
        with self._lock:
            held = self._items.get(key)
            if held is not None:
                self._items.move_to_end(key)
                return held[1]
        value = make()
        if size > self.max_chars:
            return value  # bigger than the whole cache: not kept
        with self._lock:
            if key not in self._items:
                self._items[key] = (size, value)
                self._chars += size
                while self._chars > self.max_chars:
                    _, (dropped, _) = self._items.popitem(last=False)
                    self._chars -= dropped
        return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._chars = 0
