"""The automations that turn a vanished run into a visible Crashed one.

A killed worker takes its flow runs with it; they would stay "Running" for ever. Flow runs send
heartbeats (PREFECT_FLOWS_HEARTBEAT_FREQUENCY, 30 s on our workers); when one is silent for
`within` seconds without finishing, the first automation sets it Crashed, so its batch records
the item as failed and a re-run packages it again (its completed model calls come from the cache).

A run the worker had taken but not yet started (Pending: its process still starting) sends no
heartbeat at all, so the first automation never looks at it, and a batch waiting for it would
wait for ever (a CI run once waited out its 400 s that way). The second sets a run Crashed when
it stays Pending for `pending_within` seconds (three times `within` by default: a flow-run
process starts in seconds, tens on a loaded machine).

`python -m flows.automations [WITHIN_SECONDS [PENDING_WITHIN_SECONDS]]` creates both once
(infra/deploy.sh does).
"""

from __future__ import annotations

import sys
from datetime import timedelta

NAME = "rlauto-crash-silent-runs"
PENDING_NAME = "rlauto-crash-stuck-pending-runs"

_ENDED = ("Completed", "Failed", "Cancelled", "Crashed")
# every state a Pending run may move to; the Pending event itself is not one of them
_AFTER_PENDING = ("Running", "Retrying", "Cancelling", "Paused", "Suspended", "Scheduled", "Late",
                  "AwaitingRetry", "AwaitingConcurrencySlot", "Cached", *_ENDED)  # fmt: skip


def ensure_crash_automation(within_seconds: int = 90, pending_within_seconds: int | None = None) -> None:
    pending = pending_within_seconds if pending_within_seconds is not None else 3 * within_seconds
    _ensure(NAME, "Mark flow runs Crashed when their heartbeats stop (a killed worker).",
            after={"prefect.flow-run.heartbeat"},
            expect={"prefect.flow-run.heartbeat", *(f"prefect.flow-run.{s}" for s in _ENDED)},
            within=within_seconds, message="no heartbeat: the worker running it is gone")  # fmt: skip
    _ensure(PENDING_NAME, "Mark flow runs Crashed when they never start after a worker took them (a killed worker).",
            after={"prefect.flow-run.Pending"}, expect={f"prefect.flow-run.{s}" for s in _AFTER_PENDING},
            within=pending, message=f"Pending for {pending} s: the worker that took it is gone")  # fmt: skip


def _ensure(name: str, description: str, after: set[str], expect: set[str], within: int, message: str) -> None:
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture

    try:
        _ = Automation.read(name=name)
        return
    except ValueError:
        pass
    Automation(
        name=name,
        description=description,
        trigger=EventTrigger(
            after=after,
            expect=expect,
            match={"prefect.resource.id": ["prefect.flow-run.*"]},
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(seconds=within),
        ),
        actions=[ChangeFlowRunState(state=StateType.CRASHED, message=message)],
    ).create()


if __name__ == "__main__":
    ensure_crash_automation(*(int(arg) for arg in sys.argv[1:3]))
