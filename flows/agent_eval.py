"""An agent task suite from a script or the CLI: `eval_suite(...)` starts an `eval-agent-suite`
flow run on pool `phones` (the phone host) and follows it to its end, synchronously.

```python
from flows.agent_eval import eval_suite
from rlauto_core.agent.run import ModelChoice

report = eval_suite(None, "demo-1", model=ModelChoice(model="scripted"), on_record=print)
report.summary.success_rate, report.summary.per_tag      # 0.52..., {"already-done": 1.0, ...}
```
Task runs come from the eval's records in storage as each one ends, in order, each once
(`on_record`). An eval refused at once (a busy phone, another agent run, a missing key) comes
back with `summary` None and the reason in `message`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from flows import runtime
from rlauto_core.agent.launch import EVAL_SUITE_DEPLOYMENT
from rlauto_core.agent.run import ModelChoice
from rlauto_core.agent.suite import AgentSuite, EvalStore, SuiteSummary, TaskRunRecord
from rlauto_core.config import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.store import open_storage

OnRecord = Callable[[TaskRunRecord], None]
POLL_S = 1.0
_RAISED = re.compile(r"^Flow run encountered an exception: (?:[A-Za-z_][A-Za-z0-9_]*: )?")


class SuiteRunOutcome(BaseModel):
    eval_id: str
    state: str
    message: str | None = None
    summary: SuiteSummary | None = None
    records: list[TaskRunRecord] = Field(default_factory=list)
    ui_url: str | None = None


def _client() -> Any:
    from prefect.client.orchestration import get_client

    return get_client(sync_client=True)


def start_eval(
    suite: AgentSuite | None,
    serial: str,
    *,
    model: ModelChoice | None = None,
    runs: int = 1,
    memory: bool = False,
    storage_url: str,
) -> str:
    """A flow run of the deployment (returns at once); its id is the eval id."""
    from prefect.client.schemas.objects import FlowRun
    from prefect.deployments import run_deployment
    from prefect.exceptions import ObjectNotFound

    if not serial.strip():
        raise ConfigError("choose a phone: --device SERIAL (adb devices; `rlauto phone demo` starts demo-1)")
    runtime.configure()
    with _client() as client:
        try:
            client.read_deployment_by_name(EVAL_SUITE_DEPLOYMENT)
        except ObjectNotFound:
            raise ConfigError(
                "no `eval-agent-suite` deployment on the Prefect server: deploy it (`rlauto up --phones`, or "
                "infra/deploy-phones.sh on the phone host) and run a worker on pool `phones`"
            ) from None
    parameters = {
        "serial": serial.strip(),
        "suite": suite.model_dump(mode="json", by_alias=True) if suite is not None else None,  # as the schema says
        "model": model.model_dump(mode="json") if model else None,
        "runs": runs,
        "memory": memory,
        "storage_url": storage_url,
    }
    run = run_deployment(EVAL_SUITE_DEPLOYMENT, parameters=parameters, timeout=0, tags=["agent", "eval"])
    assert isinstance(run, FlowRun)  # sync_compatible: a FlowRun when called from sync code
    return str(run.id)


def _state(eval_id: str) -> tuple[str, bool, str | None]:
    """The eval flow run's state name, whether it is final, and its message."""
    from uuid import UUID

    with _client() as client:
        state = client.read_flow_run(UUID(eval_id)).state
    if state is None:
        return "Scheduled", False, None
    message = _RAISED.sub("", state.message) if state.message else None
    return state.name or state.type.value.title(), state.is_final(), message


def follow(
    eval_id: str, storage_url: str, on_record: OnRecord | None = None, *, poll_s: float = POLL_S
) -> SuiteRunOutcome:
    """Read the eval's task runs as they are recorded until its flow run ends (then what is left)."""
    store = EvalStore(open_storage(storage_url))
    seen: set[str] = set()
    records: list[TaskRunRecord] = []
    while True:
        name, final, message = _state(eval_id)
        for path, record in sorted(store.unseen(eval_id, seen), key=lambda pr: pr[1].finished_at):
            seen.add(path)
            records.append(record)
            if on_record is not None:
                on_record(record)
        if final:
            break
        time.sleep(poll_s)
    return SuiteRunOutcome(eval_id=eval_id, state=name, message=message, summary=store.summary(eval_id),
                           records=records, ui_url=runtime.ui_url_for(eval_id))  # fmt: skip


def eval_suite(
    suite: AgentSuite | None,
    serial: str,
    *,
    model: ModelChoice | None = None,
    runs: int = 1,
    memory: bool = False,
    storage_url: str | None = None,
    on_record: OnRecord | None = None,
    on_launch: Callable[[str], None] | None = None,
) -> SuiteRunOutcome:
    """Run `suite` (the shipped demo suite when None) on the phone `serial` and wait for its end."""
    url = storage_url or Settings().rlauto_storage_url
    eval_id = start_eval(suite, serial, model=model, runs=runs, memory=memory, storage_url=url)
    if on_launch is not None:
        on_launch(eval_id)
    return follow(eval_id, url, on_record)


def stop_eval(eval_id: str) -> None:
    """Cancel the eval: the task run in progress stops at its next checkpoint, no other starts."""
    from uuid import UUID

    from prefect.states import Cancelling

    with _client() as client:
        client.set_flow_run_state(UUID(eval_id), Cancelling(message="stopped from the CLI"))
