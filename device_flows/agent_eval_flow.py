"""`eval-agent-suite`: the agent measured on a task suite, on one phone of pool `phones`.

For each task, `runs` times, a flow run of `agent-suite-task` (a subflow: its own flow run with
the agent's step cards, its agent run id is that flow run's id) resets the phone to the task's
start state, runs the agent under the run policy with the task's step budget (a takeover is
answered by the suite's scripted person), applies the task's checks to the phone's state and
records the task run (`agent/evals/{eval}/tasks/`, a row in `index/agent_evals/`). The eval then
writes its summary (success rate overall, per tag, per task) as `summary.json` and a markdown
artifact. The eval holds the one agent slot and the phone's slot from the first task to the
last, as `run-agent` does for one run: nothing else acts on the phone between two tasks.
`model` as for `run-agent` (`{"model": "scripted"}`: the demo's scripted model, no key);
`memory` turns the experience library on (recall, and distillation of completed runs).
"""

# no `from __future__ import annotations`: a flow run loaded from its entrypoint by a worker
# validates the parameters against these annotations

from contextlib import ExitStack
from typing import Any
from uuid import UUID

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import State
from prefect.runtime import flow_run
from prefect.states import Cancelled

from device_flows.agent_model import is_scripted, turn_model, with_key
from device_flows.agent_prefect import CancelWatch, PrefectSink, artifact_key
from device_flows.phone import AdbDirectory, U2Phone
from device_flows.slot import agent_slot, phone_slot
from rlauto_core.agent.events import EventLog, FanOut
from rlauto_core.agent.run import AgentSettings, ModelChoice
from rlauto_core.agent.suite import (
    AgentSuite,
    EvalSetup,
    EvalStore,
    LoopParts,
    SuiteSummary,
    SuiteTask,
    TaskRunRecord,
    load_suite,
    run_task,
)
from rlauto_core.config import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.memory import Distiller, MemoryRecall, memory_client
from rlauto_core.redact import Redactor
from rlauto_core.store import open_storage

HEARTBEAT_S = 10.0
MAX_RUNS = 20
PERSON = "the suite's scripted person answers it, or refuses a reason it has no answer for"


@flow(name="agent-suite-task", flow_run_name="{task.id}-run-{run}")
def agent_suite_task(
    task: SuiteTask,
    setup: EvalSetup,
    run: int = 1,
    model: ModelChoice | None = None,
    storage_url: str | None = None,
) -> dict[str, Any]:
    """One task run of an eval (its agent run id is this flow run's id); returns its record."""
    logger = get_run_logger()
    run_id = str(flow_run.get_id())
    storage = open_storage(storage_url or Settings().rlauto_storage_url)
    settings = AgentSettings.from_environment()
    run_model = settings.run_model(model)
    settings = with_key(settings, run_model)
    endpoint = settings.endpoint(run_model.choice())
    key = endpoint.api_key.get_secret_value() if endpoint.api_key else ""
    with ExitStack() as stack:
        client = stack.enter_context(turn_model(settings, endpoint))
        memory = None
        if setup.memory and not is_scripted(run_model):
            memory = stack.enter_context(memory_client(settings, run_model.choice()))
        prefect = stack.enter_context(get_client(sync_client=True))
        watched = UUID(setup.flow_run_id) if setup.flow_run_id else UUID(run_id)  # a cancelled eval stops its task
        parts = LoopParts(
            model=client, phone=U2Phone(setup.serial), devices=AdbDirectory(), storage=storage,
            sink=FanOut(EventLog(storage, run_id), PrefectSink(run_id, run_id, storage, logger, takeover_hint=PERSON)),
            settings=settings,
            run_model=run_model, checkpoint=CancelWatch(prefect, watched), heartbeat_s=HEARTBEAT_S,
            recall=MemoryRecall(storage) if setup.memory else None,
            distiller=None if memory is None else Distiller(storage, memory, secrets=(key,) if key else ()),
        )  # fmt: skip
        record = run_task(task, eval_id=setup.eval_id, run=run, run_id=run_id, parts=parts)
    EvalStore(storage).save_record(setup, record)
    verdict = "passed" if record.success else f"failed: {record.reason}"
    logger.info("%s", Redactor().text(f"task {task.id} (run {run}) {verdict}"[:600]))
    return record.model_dump(mode="json")


def summary_markdown(summary: SuiteSummary, setup: EvalSetup) -> str:
    """The eval's summary artifact: the rate overall, per tag, per task (and why a task failed)."""
    memory = "on" if setup.memory else "off"
    lines = [
        f"## Suite `{summary.suite}` on `{summary.model}` (memory {memory}): "
        f"{summary.passed}/{summary.runs} passed, {summary.success_rate:.0%}",
        "",
        f"{summary.tasks} tasks x {setup.runs} run(s) on {setup.serial}; {summary.errors} not measured; "
        f"{summary.tokens_total:,} tokens; agent {summary.agent_s:.1f} s of {summary.wall_s:.1f} s",
        "",
        "| tag | success |",
        "|---|---|",
        *[f"| {tag} | {rate:.0%} |" for tag, rate in summary.per_tag.items()],
        "",
        "| task | tags | passed | why not (the last run) |",
        "|---|---|---|---|",
    ]
    for task in summary.per_task:
        last = task.results[-1]
        why = str(last["reason"]).replace("|", "\\|")[:200] if not last["success"] else ""
        lines.append(f"| {task.task_id} | {', '.join(task.tags)} | {task.passed}/{task.runs} | {why} |")
    return Redactor().markdown("\n".join(lines))


@flow(name="eval-agent-suite")
def eval_agent_suite(
    serial: str,
    suite: AgentSuite | None = None,
    model: ModelChoice | None = None,
    runs: int = 1,
    memory: bool = False,
    storage_url: str | None = None,
) -> dict[str, Any] | State[Any]:
    """Run every task of `suite` (the shipped demo suite when None) `runs` times on the phone
    `serial`; the summary is the result."""
    logger = get_run_logger()
    flow_run_id = flow_run.get_id()
    if flow_run_id is None:
        raise ConfigError("eval-agent-suite runs as a Prefect flow run")
    if not serial.strip():
        raise ConfigError("serial: choose the phone (adb devices)")
    if not 1 <= runs <= MAX_RUNS:
        raise ConfigError(f"runs: 1 to {MAX_RUNS} runs of each task, not {runs}")
    suite = suite or load_suite()
    storage = open_storage(storage_url or Settings().rlauto_storage_url)
    settings = AgentSettings.from_environment()
    run_model = settings.run_model(model)
    settings = with_key(settings, run_model)
    setup = EvalSetup(
        eval_id=str(flow_run_id), suite=suite.name, suite_digest=suite.digest(), model=run_model.model,
        base_url=None if is_scripted(run_model) else run_model.base_url, memory=memory, serial=serial.strip(),
        runs=runs, tasks=[t.id for t in suite.tasks], flow_run_id=str(flow_run_id),
    )  # fmt: skip
    store = EvalStore(storage)
    records: list[TaskRunRecord] = []
    stopped = False
    with ExitStack() as stack:
        # the model's client first: a missing key is refused before a slot is taken
        stack.enter_context(turn_model(settings, settings.endpoint(run_model.choice())))
        stack.enter_context(agent_slot())
        stack.enter_context(phone_slot(setup.serial))
        store.save_setup(setup)
        logger.info("eval %s: %d tasks x %d on %s with %s", setup.eval_id, len(suite.tasks), runs, serial, setup.model)
        for run in range(1, runs + 1):
            for task in suite.tasks:
                done = agent_suite_task(task=suite.resolved(task), setup=setup, run=run, model=model,
                                        storage_url=storage.url)  # fmt: skip
                records.append(TaskRunRecord.model_validate(done))
                if records[-1].outcome == "stopped":
                    stopped = True
                    break
            if stopped:
                break
    summary = SuiteSummary.of(setup, records)
    store.save_summary(summary)
    create_markdown_artifact(summary_markdown(summary, setup), key=artifact_key("agent-suite", setup.eval_id),
                             description=f"suite {suite.name} on {setup.model}: success rates")  # fmt: skip
    if stopped:
        return Cancelled(message=f"stopped after {len(records)} task run(s): {summary.passed} passed")
    return summary.model_dump(mode="json")
