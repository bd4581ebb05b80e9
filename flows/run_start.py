"""How a run is started and left running: through a deployment when the server has it (its
workers run it), else in this process on a background thread. `flows.launch` (a batch) and
`flows.item_launch` (one item again) both start runs this way; neither imports the other."""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from typing import Any
from uuid import UUID

from flows import runtime


def deployment_exists(name: str) -> bool:
    if not os.environ.get("PREFECT_API_URL"):
        return False
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    try:
        with get_client(sync_client=True) as client:
            client.read_deployment_by_name(name)
    except ObjectNotFound:
        return False
    return True


def settle_cancelling(flow_run_id: UUID) -> None:
    """A run of this process that ended while Cancelling (its job being deleted; the server
    refuses any end but Cancelled) is Cancelled: no worker is there to say so."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.objects import StateType
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        state = client.read_flow_run(flow_run_id).state
        if state is not None and state.type is StateType.CANCELLING:
            client.set_flow_run_state(flow_run_id, Cancelled(message="stopped: its job is being deleted"), force=True)


def start_in_process(flow: Any, parameters: dict[str, object], tags: list[str], name: str) -> str:
    """Create the flow run first (so its id is known), then run it on a daemon thread."""
    from prefect.client.orchestration import get_client
    from prefect.flow_engine import run_flow

    with get_client(sync_client=True) as client:
        flow_run = client.create_flow_run(flow, parameters=parameters, tags=tags, name=name)

    def run() -> None:
        # the final state is the answer (a failed item ends its run Failed): nothing to raise here
        asyncio.run(run_flow(flow, flow_run=flow_run, parameters=parameters, return_type="state"))  # type: ignore[arg-type]
        settle_cancelling(flow_run.id)
        runtime.ship_logs()  # this process (the dashboard) may outlive the server: its lines go now

    # the thread must see this context's Prefect settings (API URL), not the import-time defaults
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(run,), name=f"rlauto-{name}", daemon=True).start()
    return str(flow_run.id)
