"""What starting an agent run gives back, and the phones one may be started on: the shared
words of the dashboard's agent launcher, the CLI and the SDK (the Prefect side implements it)."""

from __future__ import annotations

from pydantic import BaseModel

RUN_AGENT_DEPLOYMENT = "run-agent/run-agent"


class AgentDevice(BaseModel):
    """A phone an agent run could use; `busy` says which run holds it (then it cannot be chosen)."""

    serial: str
    state: str = "device"
    model: str = ""
    busy: str | None = None

    @property
    def usable(self) -> bool:
        return self.busy is None and self.state == "device"


class LaunchedAgentRun(BaseModel):
    """`run_id` is the agent run (its event log, state and files); `flow_run_id` the Prefect run
    doing it now (the same id for a new run, another one for a resumed run)."""

    run_id: str
    flow_run_id: str
    ui_url: str | None = None
