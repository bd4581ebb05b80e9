"""Start, stop and hand back agent runs through the `run-agent` deployment; the phones to offer.

`PrefectAgentLauncher` is what `rlauto dashboard` hands the Agent page
(`dashboards.agent_launcher.AgentLauncher`), and what the CLI and the SDK use. It never runs
the flow itself: the flow needs the phones, which only the workers on pool `phones` reach.

- `start` creates a flow run of the deployment (returns at once; its id is the agent run id);
  `resume` creates another one with `resume_run`, tagged `agent-run:<id>`.
- `stop` sets the active flow run Cancelling, as the Prefect UI's Cancel does; the run stops
  at its next checkpoint (about a second).
- `hand_back` resumes the flow run paused for a person, with the note as its typed input.
- `devices` lists the phones the ADB server reachable from here reports (ANDROID_ADB_SERVER_HOST
  / _PORT, usually the phone host's) and every phone that has a slot in Prefect; a phone is busy
  while its slot is held, and says by which run.
"""

from __future__ import annotations

import os
import re
import socket
from typing import Any
from uuid import UUID

from flows import runtime
from rlauto_core.agent.events import layout
from rlauto_core.agent.launch import (
    AGENT_HOLDER_VARIABLE,
    AGENT_SLOT,
    RUN_AGENT_DEPLOYMENT,
    AgentDevice,
    LaunchedAgentRun,
    LaunchStatus,
    agent_run_tag,
    device_holder_variable,
)
from rlauto_core.agent.run import ModelChoice
from rlauto_core.errors import ConfigError

DEVICE_PREFIX = "device:"
# how Prefect words a flow that raised: the refusal itself is what a person needs to read
_RAISED = re.compile(r"^Flow run encountered an exception: (?:[A-Za-z_][A-Za-z0-9_]*: )?")


def _client() -> Any:
    from prefect.client.orchestration import get_client

    return get_client(sync_client=True)


def _adb_devices() -> list[AgentDevice]:
    """The phones the ADB server reports; none when it cannot be reached from here.

    Reached with a plain connection first: adbutils, finding no server, runs `adb start-server`,
    and a dashboard or a CLI on a machine with no phone would leave an adb daemon of its own
    running (and list that daemon's phones, not the pool's)."""
    import adbutils

    host = os.environ.get("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    port = int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))
    try:
        socket.create_connection((host, port), timeout=3).close()
    except OSError:
        return []
    client = adbutils.AdbClient(host=host, port=port, socket_timeout=3)
    try:
        infos = client.list(extended=True)
    except (adbutils.AdbError, OSError):
        return []
    return [AgentDevice(serial=i.serial, state=i.state, model=i.tags.get("model", "")) for i in infos if i.serial]


class PrefectAgentLauncher:
    def __init__(self, storage_url: str, deployment: str = RUN_AGENT_DEPLOYMENT, origin: str | None = None) -> None:
        runtime.configure()
        self.storage_url, self.deployment = storage_url, deployment
        self.origin = origin  # who starts runs through this launcher (the run list shows it)

    # -- what can be chosen ---------------------------------------------------------------
    def devices(self) -> list[AgentDevice]:
        from prefect.variables import Variable

        found = {d.serial: d for d in _adb_devices()}
        with _client() as client:
            limits = client.read_global_concurrency_limits(limit=200)
        for limit in limits:
            if not limit.name.startswith(DEVICE_PREFIX):
                continue
            serial = limit.name.removeprefix(DEVICE_PREFIX)
            device = found.setdefault(serial, AgentDevice(serial=serial, state="unknown"))
            if limit.active_slots > 0:
                holder = Variable.get(device_holder_variable(serial), default="(unknown run)")
                device.busy = f"busy with run {holder}"
        return sorted(found.values(), key=lambda d: d.serial)

    def agent_busy(self) -> str | None:
        """Which agent run holds the one agent slot, if one does."""
        from prefect.exceptions import ObjectNotFound
        from prefect.variables import Variable

        with _client() as client:
            try:
                limit = client.read_global_concurrency_limit_by_name(AGENT_SLOT)
            except ObjectNotFound:
                return None
        if limit.active_slots <= 0:
            return None
        return f"another agent run is active: {Variable.get(AGENT_HOLDER_VARIABLE, default='(unknown run)')}"

    # -- starting --------------------------------------------------------------------------
    def _create(self, parameters: dict[str, Any], tags: list[str]) -> str:
        from prefect.client.schemas.objects import FlowRun
        from prefect.deployments import run_deployment
        from prefect.exceptions import ObjectNotFound

        with _client() as client:
            try:
                client.read_deployment_by_name(self.deployment)
            except ObjectNotFound:
                raise ConfigError(
                    f"no `{self.deployment}` deployment on the Prefect server: deploy it (docs/devices.md) "
                    "and run a worker on pool `phones`"
                ) from None
        run = run_deployment(self.deployment, parameters={**parameters, "storage_url": self.storage_url},
                             timeout=0, tags=["agent", *tags])  # fmt: skip
        assert isinstance(run, FlowRun)  # sync_compatible: a FlowRun when called from sync code
        return str(run.id)

    def start(
        self, instruction: str, serial: str, conversation_id: str | None = None, model: ModelChoice | None = None
    ) -> LaunchedAgentRun:
        if not instruction.strip():
            raise ConfigError("the instruction is empty: say what the agent should do on the phone")
        if not serial.strip():
            raise ConfigError("choose a phone first")
        if conversation_id:
            layout.checked_id(conversation_id, "conversation id")
        parameters = {
            "instruction": instruction,
            "serial": serial,
            "conversation_id": conversation_id,
            "model": model.model_dump(mode="json") if model else None,
            "origin": self.origin,
        }
        flow_run_id = self._create(parameters, [])
        return LaunchedAgentRun(run_id=flow_run_id, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id))

    def resume(self, run_id: str, note: str | None = None, model: ModelChoice | None = None) -> LaunchedAgentRun:
        """A new flow run going on with `run_id`, on its own model unless `model` names another."""
        layout.checked_id(run_id)
        parameters = {
            "resume_run": run_id,
            "note": note or None,
            "model": model.model_dump(mode="json") if model else None,
        }
        flow_run_id = self._create(parameters, [agent_run_tag(run_id)])
        return LaunchedAgentRun(run_id=run_id, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id))

    # -- the run now -----------------------------------------------------------------------
    def _latest(self, run_id: str) -> Any:
        """The newest flow run working on the agent run: the first one, or a resume."""
        from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterTags
        from prefect.client.schemas.sorting import FlowRunSort
        from prefect.exceptions import ObjectNotFound

        layout.checked_id(run_id)
        with _client() as client:
            resumes = client.read_flow_runs(
                flow_run_filter=FlowRunFilter(tags=FlowRunFilterTags(all_=[agent_run_tag(run_id)])),
                sort=FlowRunSort.EXPECTED_START_TIME_DESC, limit=1,
            )  # fmt: skip
            if resumes:
                return resumes[0]
            try:
                return client.read_flow_run(UUID(run_id))
            except (ValueError, ObjectNotFound):
                raise ConfigError(f"agent run {run_id}: no flow run works on it") from None

    def status(self, run_id: str) -> LaunchStatus:
        run = self._latest(run_id)
        state = run.state
        if state is None:
            return LaunchStatus(flow_run_id=str(run.id), state="Scheduled")
        return LaunchStatus(flow_run_id=str(run.id), state=state.name or state.type.value.title(),
                            paused=state.is_paused(), final=state.is_final(),
                            message=_RAISED.sub("", state.message) if state.message else None)  # fmt: skip

    def stop(self, run_id: str) -> None:
        from prefect.states import Cancelling

        run = self._latest(run_id)
        if run.state is not None and run.state.is_final():
            why = _RAISED.sub("", run.state.message) if run.state.message else ""
            raise ConfigError(
                f"agent run {run_id} is not running: it ended {run.state.name}" + (f": {why}" if why else "")
            )
        with _client() as client:
            client.set_flow_run_state(run.id, Cancelling(message="stopped from the dashboard or the CLI"))

    def started(self, run_id: str) -> bool:
        """Did the run start on its phone (it has a state to resume from)?"""
        from rlauto_core.agent.run import RunStore
        from rlauto_core.store import open_storage

        return RunStore(open_storage(self.storage_url)).load(layout.checked_id(run_id)) is not None

    def hand_back(self, run_id: str, note: str | None = None) -> None:
        from prefect.exceptions import FlowPauseTimeout, NotPausedError
        from prefect.flow_runs import resume_flow_run

        run = self._latest(run_id)
        try:
            resume_flow_run(run.id, run_input={"note": (note or "").strip() or None})
        except NotPausedError:
            raise ConfigError(f"agent run {run_id} is not waiting for a person") from None
        except (FlowPauseTimeout, RuntimeError) as exc:
            raise ConfigError(f"agent run {run_id}: the hand-back was refused: {exc}") from None
