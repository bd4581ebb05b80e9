"""An item's visible state and its stop check, through the Prefect API.

"Judging" is a Running state with that name: the UI shows it while the judge runs. A stop is
requested when this run or the batch above it is cancelling or cancelled.
"""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import StateType
from prefect.runtime import flow_run as current_run
from prefect.states import Running

_STOPPING = {StateType.CANCELLING, StateType.CANCELLED}


def set_item_state(name: str) -> None:
    """Show `name` ("Judging", "Running") as the current run's state."""
    run_id = current_run.id
    if not run_id:
        return
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(UUID(str(run_id)), Running(name=name), force=True)


def stop_checker(own: bool = False) -> Callable[[], bool]:
    """A check that is True once the batch (the parent run, or this run when `own`) is cancelled."""
    run_id = current_run.id if own else current_run.parent_flow_run_id
    if not run_id:
        return lambda: False
    target = UUID(str(run_id))

    def stop_requested() -> bool:
        with get_client(sync_client=True) as client:
            state = client.read_flow_run(target).state
        return state is not None and state.type in _STOPPING

    return stop_requested
