"""Liveness while the loop waits: a heartbeat event every 10 s, and the stop check every second.

The blocking call (a model answer, a tool, a person) runs in a worker thread with a copy of
the caller's context variables (so a Prefect run context travels with it); the caller's thread
waits, emits heartbeats and calls the checkpoint, so every event is emitted from the run's own
thread and a stop request interrupts a long wait within about a second. A heartbeat goes out
whenever 10 s have passed since the last one, also between short waits, so a busy run is shown
alive and a run is never shown alive from old streamed text.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from typing import Literal, TypeVar

T = TypeVar("T")
WaitingOn = Literal["model", "tool", "person"]
Checkpoint = Callable[[], None]
Beat = Callable[[WaitingOn, float], None]

HEARTBEAT_S = 10.0
POLL_S = 1.0


class StopRequested(BaseException):
    """Raised by a checkpoint: the run is cancelled; the loop saves its state and ends `stopped`.
    A BaseException, like KeyboardInterrupt, so that no `except Exception` on the way swallows it."""


def _no_check() -> None:
    return None


class Heartbeat:
    def __init__(
        self,
        beat: Beat,
        *,
        interval_s: float = HEARTBEAT_S,
        poll_s: float = POLL_S,
        checkpoint: Checkpoint | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._beat = beat
        self.interval_s = interval_s
        self.poll_s = min(poll_s, interval_s)
        self.checkpoint = checkpoint or _no_check
        self._clock = clock
        self._last: float | None = None

    def due(self, waiting_on: WaitingOn, waited_s: float = 0.0) -> None:
        """Beat now if the last heartbeat is older than the interval (or there was none)."""
        now = self._clock()
        if self._last is None or now - self._last >= self.interval_s:
            self._last = now
            self._beat(waiting_on, round(waited_s, 3))

    def wait(self, waiting_on: WaitingOn, call: Callable[[], T]) -> T:
        """`call()` in a worker thread; meanwhile heartbeats and checkpoints from this thread.
        Its exception is raised here; a StopRequested abandons the call (the thread is a daemon)."""
        self.checkpoint()
        self.due(waiting_on)
        outcome: dict[str, object] = {}
        done = threading.Event()
        context = contextvars.copy_context()

        def work() -> None:
            try:
                outcome["value"] = context.run(call)
            except BaseException as exc:
                outcome["error"] = exc
            finally:
                done.set()

        started = self._clock()
        threading.Thread(target=work, name=f"agent-wait-{waiting_on}", daemon=True).start()
        while not done.wait(self.poll_s):
            self.checkpoint()
            self.due(waiting_on, self._clock() - started)
        if "error" in outcome:
            error = outcome["error"]
            assert isinstance(error, BaseException)
            raise error
        return outcome["value"]  # type: ignore[return-value]
