"""One phone, one run; one agent at a time: slots are strict Prefect global concurrency limits.

Every device flow takes `device:<serial>` (limit 1) for its whole body; the agent flow also
takes `agent` (limit 1) first. A second run on a busy phone (or a second agent run) does not
queue: it fails at once with "device SERIAL is busy with run X" (or "another agent run is
active: X"). The holder's run is kept in a Prefect variable so the refusal can name it; the
lease expires 60 s after a crashed holder stops renewing it, so a dead run frees its slot.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

import httpx
from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate
from prefect.client.schemas.objects import ConcurrencyLeaseHolder
from prefect.client.schemas.responses import OrchestrationResult, SetStateStatus
from prefect.concurrency._asyncio import ConcurrencySlotAcquisitionError
from prefect.concurrency.sync import concurrency
from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
from prefect.runtime import flow_run
from prefect.states import Cancelled, Failed
from prefect.variables import Variable

from rlauto_core.agent.launch import AGENT_HOLDER_VARIABLE, AGENT_SLOT, device_holder_variable, device_slot
from rlauto_core.errors import RlautoError

LEASE_S = 60


class DeviceBusy(RlautoError):
    """Another run holds the phone."""


class AgentBusy(RlautoError):
    """Another agent run is active: one agent runs at a time."""


def ensure_slot(serial: str) -> None:
    """Create the phone's limit (1 slot) if it does not exist yet; racing creators are fine."""
    _ensure_limit(device_slot(serial))


def _ensure_limit(name: str) -> None:
    with get_client(sync_client=True) as client:
        try:
            client.read_global_concurrency_limit_by_name(name)
            return
        except ObjectNotFound:
            pass
        try:
            client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name=name, limit=1))
        except ObjectAlreadyExists:
            pass
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code != 409:
                raise


def _is_locked(exc: BaseException) -> bool:
    cause = exc.__cause__
    return isinstance(cause, httpx.HTTPStatusError) and cause.response.status_code == 423


@contextmanager
def _held(name: str, variable: str, refusal: Callable[[str], RlautoError]) -> Iterator[None]:
    """Hold the limit `name` for the block, or raise `refusal(holder)` at once."""
    _ensure_limit(name)
    run_id = flow_run.get_id()
    run_label = f"{flow_run.get_name() or 'unnamed'} ({run_id})" if run_id else "outside a flow run"
    holder = ConcurrencyLeaseHolder(type="flow_run", id=run_id) if run_id else None
    acquired = False
    try:
        with concurrency(name, occupy=1, max_retries=0, strict=True, holder=holder, lease_duration=LEASE_S):
            acquired = True
            Variable.set(variable, run_label, overwrite=True)
            yield
    except ConcurrencySlotAcquisitionError as exc:
        if acquired or not _is_locked(exc):
            raise
        other = Variable.get(variable, default="(unknown run)")
        refused = refusal(str(other))
        if run_id:
            _end_refused(run_id, refused)
        raise refused from None


def _end_refused(run_id: str, refused: RlautoError) -> None:
    """End the refused run Failed ourselves, in one server-side step, so a stop that raced the
    refusal cannot strand it: Prefect rejects Cancelling -> Failed, and the engine's own Failed
    would leave the run Cancelling forever (nothing is left to cancel). Rejected means a stop
    came first: the run is Cancelled, as stopped before it started."""
    with get_client(sync_client=True) as client:
        answer: OrchestrationResult[None] = client.set_flow_run_state(run_id, Failed(message=str(refused)))
        if answer.status != SetStateStatus.ACCEPT and answer.state is not None and answer.state.is_cancelling():
            client.set_flow_run_state(run_id, Cancelled(message=f"stopped before it started: {refused}"), force=True)


def phone_slot(serial: str) -> AbstractContextManager[None]:
    """Hold the phone for the block, or raise DeviceBusy naming the run that holds it."""
    return _held(
        device_slot(serial),
        device_holder_variable(serial),
        lambda other: DeviceBusy(f"device {serial} is busy with run {other}"),
    )


def agent_slot() -> AbstractContextManager[None]:
    """Be the one agent run, or raise AgentBusy naming the one that is."""
    return _held(
        AGENT_SLOT,
        AGENT_HOLDER_VARIABLE,
        lambda other: AgentBusy(f"another agent run is active: {other}; one agent runs at a time"),
    )
