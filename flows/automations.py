"""The automation that turns a vanished run into a visible Crashed one.

A killed worker takes its flow runs with it; they would stay "Running" for ever. Flow runs send
heartbeats (PREFECT_FLOWS_HEARTBEAT_FREQUENCY, 30 s on our workers); when one is silent for
`within` seconds without finishing, this automation sets it Crashed, so its batch records the
item as failed and a re-run packages it again (its completed model calls come from the cache).
`python -m flows.automations [WITHIN_SECONDS]` creates it once (infra/deploy.sh does).
"""

from __future__ import annotations

import sys
from datetime import timedelta

NAME = "rlauto-crash-silent-runs"


def ensure_crash_automation(within_seconds: int = 90) -> None:
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture

    try:
        _ = Automation.read(name=NAME)
        return
    except ValueError:
        pass
    Automation(
        name=NAME,
        description="Mark flow runs Crashed when their heartbeats stop (a killed worker).",
        trigger=EventTrigger(
            after={"prefect.flow-run.heartbeat"},
            expect={
                "prefect.flow-run.heartbeat",
                "prefect.flow-run.Completed",
                "prefect.flow-run.Failed",
                "prefect.flow-run.Cancelled",
                "prefect.flow-run.Crashed",
            },
            match={"prefect.resource.id": ["prefect.flow-run.*"]},
            for_each={"prefect.resource.id"},
            posture=Posture.Proactive,
            threshold=1,
            within=timedelta(seconds=within_seconds),
        ),
        actions=[ChangeFlowRunState(state=StateType.CRASHED, message="no heartbeat: the worker running it is gone")],
    ).create()


if __name__ == "__main__":
    ensure_crash_automation(int(sys.argv[1]) if len(sys.argv) > 1 else 90)
