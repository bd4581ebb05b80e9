"""`design-task`: the phone agent's loop in designer mode explores a phone and hands in a step
task (`submit_task`), on work pool `phones`.

Its agent run id is this flow run's id (events, state and screens under `agent/runs/<id>/`, as
for `run-agent`). The run takes the phone's slot. A valid draft becomes the latest draft, shown
in the dashboard's Designer page; it becomes a task only when a person confirms it there, and
`run-steps` runs it. Keys only from the worker's environment (AGENT_API_KEY) or a Prefect Secret
block the model choice names (`key_secret`).
"""

# no `from __future__ import annotations`: a worker validates the parameters against these
# annotations, and strings would name nothing there

from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.client.schemas.objects import State
from prefect.runtime import flow_run
from prefect.states import Failed

from device_flows.agent_model import turn_model, with_key
from device_flows.phone import AdbDirectory, U2Phone
from device_flows.slot import agent_slot, phone_slot
from rlauto_core.agent.designer import Draft, DraftStore, designer_endpoint, designer_mode
from rlauto_core.agent.events import EventLog
from rlauto_core.agent.run import AgentLoop, AgentSettings, ModelChoice
from rlauto_core.config import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.memory import MemoryRecall
from rlauto_core.redact import redact_text
from rlauto_core.store import open_storage

HEARTBEAT_S = 10.0


def _draft_markdown(draft: Draft) -> str:
    def cell(text: object) -> str:
        return redact_text(str(text)).replace("|", "\\|").replace("\n", " ")[:300]

    lines = [f"# Draft: {cell(draft.name)}", "", cell(draft.summary), "", "| # | kind | step |", "|---|---|---|"]
    lines += [f"| {n} | {cell(s['kind'])} | `{cell(s)}` |" for n, s in enumerate(draft.steps, start=1)]
    lines += ["", "Warnings:", *[f"- {cell(w)}" for w in draft.warnings or ["none"]]]
    lines += ["", "Confirm or discard it on the dashboard's Designer page; only a confirmed draft becomes a task."]
    return "\n".join(lines)


@flow(name="design-task")
def design_task(
    description: str, serial: str, model: ModelChoice | None = None, storage_url: str | None = None
) -> dict[str, Any] | State[Any]:
    """Explore the phone `serial` and hand in a step task doing `description`, for a person to confirm."""
    logger = get_run_logger()
    run_id = flow_run.get_id()
    if run_id is None:
        raise ConfigError("design-task runs as a Prefect flow run")
    if not description.strip():
        raise ConfigError("description: say what the automation should do")
    if not serial.strip():
        raise ConfigError("serial: choose the phone (adb devices)")
    settings = AgentSettings.from_environment()
    storage = open_storage(storage_url or Settings().rlauto_storage_url)
    run_model = settings.run_model(model)
    settings = with_key(settings, run_model)
    # the client first: a missing key is refused before a slot is taken; one agent at a time:
    # chat runs and designer runs share the agent slot (seed 003)
    endpoint = designer_endpoint(settings, run_model.choice())
    with turn_model(settings, endpoint) as client, agent_slot(), phone_slot(serial.strip()):
        loop = AgentLoop(
            model=client,
            phone=U2Phone(serial.strip()),
            devices=AdbDirectory(),
            storage=storage,
            sink=EventLog(storage, str(run_id)),
            settings=settings,
            heartbeat_s=HEARTBEAT_S,
            recall=MemoryRecall(storage),
            mode=designer_mode(storage),
        )
        result = loop.start(str(run_id), description, model=run_model, origin="designer")
    draft = DraftStore(storage).latest()
    if result.outcome != "completed" or draft is None or draft.run_id != str(run_id):
        return Failed(message=f"no valid draft: the designer run ended {result.outcome}: {result.answer[:300]}")
    create_markdown_artifact(_draft_markdown(draft), key="designer-draft", description=f"draft {draft.name}"[:500])
    logger.info("draft %r with %d steps waits for a person to confirm it", draft.name, len(draft.steps))
    return {"run_id": str(run_id), "draft": draft.model_dump(mode="json"), "steps": result.steps}
