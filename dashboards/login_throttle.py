"""Wrong dashboard passwords slow the guesser down: after `FREE_ATTEMPTS` wrong tries a client
waits, twice as long after each further wrong try (capped). The state lives in this module, so
it is one per server process and survives a page reload (a reload is a new Streamlit session;
the client's address is the same)."""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass

FREE_ATTEMPTS = 5
BASE_WAIT_ENV = "RLAUTO_DASHBOARD_LOGIN_WAIT"  # seconds after the first attempt over the limit
DEFAULT_BASE_WAIT = 5.0
MAX_WAIT = 15 * 60.0
MAX_CLIENTS = 10_000  # a flood of addresses must not grow the table without bound


def base_wait() -> float:
    try:
        value = float(os.environ.get(BASE_WAIT_ENV, "") or DEFAULT_BASE_WAIT)
    except ValueError:
        return DEFAULT_BASE_WAIT
    return value if value > 0 else DEFAULT_BASE_WAIT


@dataclass
class _Record:
    failures: int = 0
    locked_until: float = 0.0


class LoginThrottle:
    def __init__(self) -> None:
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    def wait_left(self, client: str) -> float:
        """Seconds this client must still wait before another attempt counts (0: may try)."""
        with self._lock:
            record = self._records.get(client)
            return max(0.0, record.locked_until - time.monotonic()) if record else 0.0

    def failed(self, client: str) -> float:
        """Count a wrong password; returns the wait it starts (0 while attempts are free)."""
        with self._lock:
            if client not in self._records and len(self._records) >= MAX_CLIENTS:
                self._records.pop(next(iter(self._records)))
            record = self._records.setdefault(client, _Record())
            record.failures += 1
            over = record.failures - FREE_ATTEMPTS
            if over < 0:
                return 0.0
            wait = min(MAX_WAIT, base_wait() * 2.0**over)
            record.locked_until = time.monotonic() + wait
            return wait

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._records.pop(client, None)

    def clear(self) -> None:
        with self._lock:
            self._records.clear()


def say_wait(seconds: float) -> str:
    """ "4.0 s" below ten seconds, whole seconds (rounded up) above."""
    return f"{seconds:.1f} s" if seconds < 10 else f"{math.ceil(seconds)} s"


THROTTLE = LoginThrottle()
