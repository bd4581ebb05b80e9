"""`run-agent`: a model operates one phone under the run policy, on work pool `phones`.

A new run: `instruction` and `serial` (and optionally a `conversation_id` and a `model` choice;
never a key: AGENT_API_KEY comes from the worker's environment, or the choice names a Prefect
Secret block holding the run's key). Its agent run id is this flow run's id; its model is kept
in its state. Resuming a paused, budget_exhausted, stopped or failed agent run: `resume_run` (its
id) and an optional `note`; a NEW flow run goes on with the same agent run (same event log,
state, files and model: a `model` given with the resume changes it, and the step log says so).
A takeover instead pauses THIS flow run until a person resumes it. `model: {"model":
"scripted"}` plays the demo phone's tasks with no key (device_flows.demo).

The run first takes the one agent slot, then the phone's slot: a second agent run, or a run on
a busy phone, fails at once and says who holds it. The run's Prefect state says how it ended:
Completed (completed, blocked, chat_ended), Failed named AgentPaused / BudgetExhausted (resumable),
Cancelled (stopped, resumable), Failed (failed, resumable).
"""

# no `from __future__ import annotations`: a flow run loaded from its entrypoint by a worker
# validates the parameters against these annotations, and strings would name nothing there

from contextlib import AbstractContextManager, ExitStack
from typing import Any
from uuid import UUID

from prefect import flow, get_run_logger
from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import State
from prefect.runtime import flow_run
from prefect.states import Cancelled, Failed

from device_flows.agent_model import is_scripted, turn_model, with_key
from device_flows.agent_prefect import CancelWatch, PrefectSink, pause_for_person
from device_flows.phone import AdbDirectory, U2Phone
from device_flows.slot import agent_slot, phone_slot
from rlauto_core.agent.events import RESUMABLE, EventLog, FanOut, layout
from rlauto_core.agent.launch import agent_run_tag
from rlauto_core.agent.run import AgentLoop, AgentSettings, ModelChoice, RunModel, RunResult, RunState, RunStore
from rlauto_core.config import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.memory import Distiller, MemoryRecall, memory_client
from rlauto_core.store import Storage, open_storage

HEARTBEAT_S = 10.0
LLM_LIMIT = "rlauto-llm"  # the packaging flows' global model-call limit (GLOBAL_LLM_CONCURRENCY)


def _resumed_run(storage: Storage, run_id: str, serial: str) -> RunState:
    state = RunStore(storage).load(layout.checked_id(run_id))
    if state is None:
        raise ConfigError(f"agent run {run_id} does not exist in {storage.url}")
    if state.status not in RESUMABLE:
        raise ConfigError(f"agent run {run_id} is {state.status}: only a paused, budget_exhausted, stopped or "
                          "failed run resumes; start a new run in its conversation instead")  # fmt: skip
    if serial and serial != state.serial:
        raise ConfigError(f"agent run {run_id} ran on {state.serial}, not {serial}: resume it on its own phone")
    return state


def _run_model(settings: AgentSettings, state: RunState | None, choice: ModelChoice | None) -> RunModel:
    """A new run's model from the choice; a resume's is the run's own, with what the choice
    names instead (refused when its key would go to another endpoint)."""
    if state is None or state.model is None:
        return settings.run_model(choice)
    return state.model.resumed_with(choice)


def _llm_gate(limit: int) -> Any:
    if limit <= 0:
        return None
    from prefect.concurrency.sync import concurrency

    def gate() -> AbstractContextManager[None]:
        return concurrency(LLM_LIMIT, occupy=1)

    return gate


def _final_state(result: RunResult) -> dict[str, Any] | State[Any]:
    summary = result.model_dump(mode="json")
    hint = f"; resume it: rlauto agent run --resume {result.run_id}"
    if result.outcome in ("completed", "blocked", "chat_ended"):
        return summary
    if result.outcome == "paused":
        return Failed(name="AgentPaused", message=f"paused by the {result.fuse} fuse at step {result.steps}{hint}")
    if result.outcome == "budget_exhausted":
        return Failed(name="BudgetExhausted", message=f"{result.answer}{hint}")
    if result.outcome == "stopped":
        return Cancelled(message=f"{result.answer}{hint}")
    return Failed(message=f"{result.answer}{hint}")


def _tag_flow_run(client: Any, flow_run_id: UUID, run_id: str) -> None:
    current = client.read_flow_run(flow_run_id)
    if agent_run_tag(run_id) not in current.tags:
        client.update_flow_run(flow_run_id, tags=[*current.tags, agent_run_tag(run_id)])


@flow(name="run-agent")
def run_agent(
    instruction: str = "",
    serial: str = "",
    conversation_id: str | None = None,
    model: ModelChoice | None = None,
    resume_run: str | None = None,
    note: str | None = None,
    storage_url: str | None = None,
    takeover_timeout_s: int = 3600,
    origin: str | None = None,
) -> dict[str, Any] | State[Any]:
    """A model operates the phone `serial` to do `instruction` (or goes on with `resume_run`,
    telling it `note`). Keys only from the worker's environment (AGENT_API_KEY)."""
    logger = get_run_logger()
    flow_run_id = flow_run.get_id()
    if flow_run_id is None:
        raise ConfigError("run-agent runs as a Prefect flow run")
    if conversation_id:
        layout.checked_id(conversation_id, "conversation id")
    settings = AgentSettings.from_environment()
    storage = open_storage(storage_url or Settings().rlauto_storage_url)
    state = _resumed_run(storage, resume_run, serial.strip()) if resume_run else None
    if state is not None:
        run_id, serial = state.run_id, state.serial
    else:
        if not instruction.strip():
            raise ConfigError("instruction: say what the agent should do on the phone")
        if not serial.strip():
            raise ConfigError("serial: choose the phone (adb devices)")
        run_id, serial = str(flow_run_id), serial.strip()
    run_model = _run_model(settings, state, model)
    settings = with_key(settings, run_model)
    endpoint = settings.endpoint(run_model.choice())
    gate = _llm_gate(Settings().global_llm_concurrency)
    key = endpoint.api_key.get_secret_value() if endpoint.api_key else ""
    with ExitStack() as stack:
        # the model's client first: a missing key is refused before a slot is taken
        client = stack.enter_context(turn_model(settings, endpoint, gate=gate))
        # memory calls (distilling a recipe after a completed run) on the same endpoint, thinking off
        memory = (
            None
            if is_scripted(run_model)
            else stack.enter_context(memory_client(settings, run_model.choice(), gate=gate))
        )
        stack.enter_context(agent_slot())
        stack.enter_context(phone_slot(serial))
        prefect = stack.enter_context(get_client(sync_client=True))
        if resume_run:
            _tag_flow_run(prefect, UUID(str(flow_run_id)), run_id)
        sink = PrefectSink(run_id, str(flow_run_id), storage, logger)
        loop = AgentLoop(
            model=client,
            phone=U2Phone(serial),
            devices=AdbDirectory(),
            storage=storage,
            sink=FanOut(EventLog(storage, run_id), sink),
            settings=settings,
            takeover=pause_for_person(takeover_timeout_s, logger),
            checkpoint=CancelWatch(prefect, UUID(str(flow_run_id))),
            heartbeat_s=HEARTBEAT_S,
            recall=MemoryRecall(storage),
            distiller=None if memory is None else Distiller(storage, memory, secrets=(key,) if key else ()),
        )
        if state is not None:
            result = loop.resume(run_id, note=note, model=run_model)
        else:
            result = loop.start(run_id, instruction, conversation_id=conversation_id, model=run_model, origin=origin)
    return _final_state(result)
