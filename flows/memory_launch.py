"""What the dashboard's memory pages start, through Prefect deployments (`PrefectMemoryLauncher`
is the `dashboards.memory_launcher.MemoryLauncher` that `rlauto dashboard` hands the app):
a designer run (`design-task`, on the phone host), a confirmed task (`run-steps`) and the
experience audit (`audit-experience`). Each returns at once with the flow run's id; the runs
write where the dashboard reads (`storage_url`)."""

from __future__ import annotations

from typing import Any

from flows import runtime
from rlauto_core.agent.run import ModelChoice
from rlauto_core.errors import ConfigError

DESIGN_DEPLOYMENT = "design-task/design-task"
RUN_STEPS_DEPLOYMENT = "run-steps/run-steps"
AUDIT_DEPLOYMENT = "audit-experience/audit-experience"


def start_deployment(name: str, parameters: dict[str, Any], *, run_name: str | None = None) -> str:
    """Create a flow run of the deployment `name`; a clear ConfigError when it cannot be."""
    runtime.configure()
    from prefect.client.schemas.objects import FlowRun
    from prefect.deployments import run_deployment
    from prefect.exceptions import ObjectNotFound

    try:
        run = run_deployment(name, parameters=parameters, timeout=0, flow_run_name=run_name)
    except ObjectNotFound:
        raise ConfigError(
            f"the deployment {name} does not exist on the Prefect server: deploy it (docs/agent.md, docs/devices.md)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot reach the Prefect server to start {name}: {exc}") from None
    assert isinstance(run, FlowRun)  # sync_compatible: a FlowRun when called from sync code
    return str(run.id)


class PrefectMemoryLauncher:
    def __init__(self, storage_url: str) -> None:
        self.storage_url = storage_url

    def start_design(self, serial: str, description: str, model: ModelChoice | None = None) -> str:
        if not serial.strip() or not description.strip():
            raise ConfigError("a designer run needs the phone's serial and a description of the automation")
        parameters = {"serial": serial.strip(), "description": description, "storage_url": self.storage_url,
                      "model": model.model_dump(mode="json") if model else None}  # fmt: skip
        return start_deployment(DESIGN_DEPLOYMENT, parameters)

    def run_task(self, name: str, steps: list[dict[str, Any]], serial: str) -> str:
        if not serial.strip():
            raise ConfigError("running a task needs the phone's serial")
        run_name = f"task {name[:60]} on {serial.strip()}"
        return start_deployment(RUN_STEPS_DEPLOYMENT, {"serial": serial.strip(), "steps": steps}, run_name=run_name)

    def start_audit(self) -> str:
        return start_deployment(AUDIT_DEPLOYMENT, {"storage_url": self.storage_url})
