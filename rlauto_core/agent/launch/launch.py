"""What starting an agent run gives back, the phones one may be started on, and the names the
run-agent flow and its launchers share (slots, holder variables, tags): the common words of the
dashboard's agent launcher, the CLI, the SDK and the flow (the Prefect side implements them)."""

from __future__ import annotations

import re

from pydantic import BaseModel

RUN_AGENT_DEPLOYMENT = "run-agent/run-agent"
EVAL_SUITE_DEPLOYMENT = "eval-agent-suite/eval-agent-suite"  # an agent task suite on one phone
# the one agent slot and the variable naming its holder (a Prefect global concurrency limit of 1)
AGENT_SLOT = "agent"
AGENT_HOLDER_VARIABLE = "agent-slot"


def device_slot(serial: str) -> str:
    """The phone's slot: a Prefect global concurrency limit of 1 every device flow holds."""
    return f"device:{serial}"


def device_holder_variable(serial: str) -> str:
    """The Prefect variable naming the run that holds the phone's slot."""
    return "device-slot-" + re.sub(r"[^a-z0-9_-]", "-", serial.lower())[:200]


def agent_run_tag(run_id: str) -> str:
    """The tag of every flow run working on agent run `run_id` after the first (resumes)."""
    return f"agent-run:{run_id}"


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


class LaunchStatus(BaseModel):
    """The Prefect state of the flow run doing an agent run now (`state` is its name: Running,
    Paused, Completed, AgentPaused...). Once `final`, `message` says how it ended, and why a run
    that never started was refused (a busy phone, another agent run, a missing key)."""

    flow_run_id: str
    state: str
    paused: bool = False
    final: bool = False
    message: str | None = None
