"""An item's child flow run in its batch's process, at the fewest Prefect API requests.

Prefect's own subflow call (`await package_recording(...)` inside the batch) paid 8 requests
per item before the item's work began (Prefect 3.9, flow_engine.py): the tracking task run
(POST /task_runs), a look for an earlier subflow of that brand-new task run (POST
/flow_runs/filter), the flow's upsert (POST /flows), the run (POST /flow_runs), a read of the run
just created (GET /flow_runs/{id}), the rename to the recording's name (PATCH), then Running
(POST set_state). Here the same run costs two: the tracking task run (kept: its
`parent_task_run_id` is how job deletion and a cancel find an item's batch) and the flow run,
created Running under its final name, with the flow's id asked once per batch. The engine then
runs it as a subflow as usual (its FlowRunContext, task runs, logs, Judging, the final state);
what it would ask or write again about a run this process has just created is skipped.
"""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from typing import Any, cast
from uuid import UUID

from prefect.client.orchestration import PrefectClient, get_client
from prefect.client.schemas.actions import FlowRunCreate
from prefect.client.schemas.objects import FlowRun, FlowRunPolicy, State
from prefect.context import FlowRunContext
from prefect.flow_engine import AsyncFlowRunEngine
from prefect.flows import Flow
from prefect.states import Running, to_state_create
from prefect.tasks import Task


@dataclass
class _CreatedRunEngine(AsyncFlowRunEngine[Any, Any]):
    """Prefect's async engine for a flow run this process has just created, Running."""

    created: FlowRun | None = None
    _unread: bool = True  # the first read-back of `created` is answered from memory
    _running_written: bool = True  # the run was created Running: the engine's own Running is that

    async def create_flow_run(self, client: PrefectClient) -> FlowRun:
        # the engine asks for a run only when it was handed none: this one, made by ChildRuns
        assert self.created is not None
        self._flow_run_name_set = True  # created under its final name: no rename PATCH
        return self.created

    async def set_state(self, state: State, force: bool = False) -> State:
        current = self.flow_run.state if self.flow_run is not None else None
        if self._running_written and state.is_running() and current is not None and current.is_running():
            self._running_written = False
            return current  # the Running it was created in: a second write would say nothing new
        self._running_written = False
        return await super().set_state(state, force)

    def setup_run_context(self, client: PrefectClient | None = None) -> Any:
        if not self._unread or self.created is None:
            return super().setup_run_context(client)
        self._unread = False
        # the engine reads its run back before it runs it; the answer is the run created a moment
        # ago. A copy of the client (same connection pool) answers that one read from memory.
        view = copy.copy(client or self.client)
        created, ask = self.created, view.read_flow_run

        async def read_flow_run(flow_run_id: UUID) -> FlowRun:
            return created.model_copy() if flow_run_id == created.id else await ask(flow_run_id)

        view.read_flow_run = read_flow_run  # type: ignore[method-assign]
        return super().setup_run_context(view)


class ChildRuns:
    """The child runs of one batch: the flow's id asked once, then two requests per child."""

    def __init__(self, flow: Flow[..., Any]) -> None:
        # the batch hands its children typed parameters it made itself: Prefect's validation
        # built a pydantic model of the flow's signature for every child (about 0.1 s of CPU an
        # item on a loaded 2-core machine), to check what cannot be wrong
        self.flow = flow.with_options(validate_parameters=False)
        self._flow_id: UUID | None = None
        self._lock = asyncio.Lock()

    async def _flow_id_of(self, client: PrefectClient) -> UUID:
        async with self._lock:
            if self._flow_id is None:
                self._flow_id = await client.create_flow(self.flow)
            return self._flow_id

    async def run(self, name: str, parameters: dict[str, Any]) -> State:
        """Run the flow as a child of the current flow run, named `name`; its final state.
        With no flow run around (called on its own), Prefect's own path."""
        parent = FlowRunContext.get()
        if parent is None or parent.flow_run is None:
            alone: Any = self.flow(**parameters, return_state=True)  # an async flow: a coroutine
            return cast(State, await alone)
        flow = self.flow
        async with get_client() as client:
            flow_id = await self._flow_id_of(client)
            tracking: Task[..., Any] = Task(name=flow.name, fn=flow.fn, version=flow.version)
            # as Prefect's subflow call marks it (no attribute Task declares: set, not assigned)
            setattr(tracking, "_is_subflow_tracking_task", True)  # noqa: B010
            task_run = await tracking.create_run(client=client, flow_run_context=parent, parameters=parameters)
            create = FlowRunCreate(
                flow_id=flow_id,
                flow_version=flow.version,
                name=name,
                parameters=flow.serialize_parameters(parameters),
                parent_task_run_id=task_run.id,
                state=to_state_create(Running()),
                empirical_policy=FlowRunPolicy(retries=flow.retries, retry_delay=int(flow.retry_delay_seconds or 0)),
            )
            response = await client.request(
                "POST", "/flow_runs/", json=create.model_dump(mode="json", exclude_unset=True)
            )
            created = FlowRun.model_validate(response.json())
        created.parameters = parameters  # the engine's Python objects, as Prefect's client restores them
        engine = _CreatedRunEngine(flow=flow, parameters=parameters, created=created)
        async with engine.start():
            while engine.is_running():
                async with engine.run_context():
                    _ = await engine.call_flow_fn()
        return engine.state
