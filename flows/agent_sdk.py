"""The phone agent from a script: `run_agent(...)` starts a `run-agent` flow run on pool
`phones` and follows it to its end, synchronously; `resume_agent(...)` goes on with a run;
`run_designer(...)` does the same for a designer run (`design-task`).

```python
from flows.agent_sdk import run_agent

outcome = run_agent("Write the note 'Call Alice'", "emulator-5554", on_event=print)
outcome.outcome, outcome.answer, outcome.deliverables   # "completed", "...", ["files/notes.jpg"]
```
Events come from the run's event log in storage, in order, each once (`on_event` is called on
this thread). A run that waits for a person keeps waiting here: hand the phone back from the
Prefect UI or the dashboard; `on_pause` is called once its flow run is seen paused (the run
asks for the person first, then pauses: "a person is needed" is true from then on). A run
refused at once (a busy phone, another agent run) comes back with `outcome` None and the
reason in `message`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pydantic import BaseModel, Field

from flows import runtime
from flows.agent_launch import PrefectAgentLauncher
from flows.memory_launch import PrefectMemoryLauncher
from rlauto_core.agent.events import RESUMABLE, AgentEvent, EventLog, Outcome, RunView
from rlauto_core.agent.launch import LaunchedAgentRun
from rlauto_core.agent.run import ModelChoice
from rlauto_core.config import Settings
from rlauto_core.llm import TokenUsage
from rlauto_core.store import open_storage

OnEvent = Callable[[AgentEvent], None]
OnPause = Callable[[], None]
POLL_S = 0.5


class AgentRunOutcome(BaseModel):
    run_id: str
    flow_run_id: str
    state: str
    message: str | None = None
    outcome: Outcome | None = None
    answer: str = ""
    fuse: str | None = None
    deliverables: list[str] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    model_calls: int = 0
    steps: int = 0
    error: str | None = None
    ui_url: str | None = None

    @property
    def resumable(self) -> bool:
        return self.outcome in RESUMABLE


def follow(
    launcher: PrefectAgentLauncher,
    launched: LaunchedAgentRun,
    on_event: OnEvent | None = None,
    *,
    start: int = 0,
    poll_s: float = POLL_S,
    on_pause: OnPause | None = None,
) -> AgentRunOutcome:
    """Read the run's events from `start` as they come until its flow run ends (then what is
    left); `on_pause` each time its flow run is seen paused, after the events written before.
    A resumed run's log holds the earlier flow runs' events: start where they end."""
    log = EventLog(open_storage(launcher.storage_url), launched.run_id)
    view = RunView(run_id=launched.run_id, next_offset=start)
    was_paused = False
    while True:
        status = launcher.status(launched.run_id)
        mine = status.flow_run_id == launched.flow_run_id
        final = status.final and mine
        for logged in log.read(view.next_offset):
            if view.feed([logged]) and on_event is not None:
                on_event(logged.event)
        paused = status.paused and mine
        if paused and not was_paused and on_pause is not None:
            on_pause()
        was_paused = paused
        if final:
            break
        time.sleep(poll_s)
    ended = view.ended
    outcome = AgentRunOutcome(
        run_id=launched.run_id, flow_run_id=launched.flow_run_id, state=status.state, message=status.message,
        ui_url=launched.ui_url, steps=view.steps, usage=view.usage, model_calls=view.model_calls,
    )  # fmt: skip
    if ended is not None:
        outcome = outcome.model_copy(
            update={"outcome": ended.outcome, "answer": ended.answer, "fuse": ended.fuse, "error": ended.error,
                    "deliverables": ended.deliverables, "usage": ended.usage, "model_calls": ended.model_calls}
        )  # fmt: skip
    return outcome


def _launcher(storage_url: str | None, origin: str = "sdk") -> PrefectAgentLauncher:
    return PrefectAgentLauncher(storage_url or Settings().rlauto_storage_url, origin=origin)


def run_agent(
    instruction: str,
    serial: str,
    *,
    conversation_id: str | None = None,
    model: ModelChoice | None = None,
    storage_url: str | None = None,
    on_event: OnEvent | None = None,
    on_launch: Callable[[LaunchedAgentRun], None] | None = None,
    origin: str = "sdk",
    on_pause: OnPause | None = None,
) -> AgentRunOutcome:
    """Start an agent run on the phone `serial` and wait for its end (`origin`: who started it,
    as the dashboard's run list shows it)."""
    launcher = _launcher(storage_url, origin)
    launched = launcher.start(instruction, serial, conversation_id, model)
    if on_launch is not None:
        on_launch(launched)
    return follow(launcher, launched, on_event, on_pause=on_pause)


def resume_agent(
    run_id: str,
    note: str | None = None,
    *,
    model: ModelChoice | None = None,
    storage_url: str | None = None,
    on_event: OnEvent | None = None,
    on_launch: Callable[[LaunchedAgentRun], None] | None = None,
    on_pause: OnPause | None = None,
) -> AgentRunOutcome:
    """Go on with a paused, budget_exhausted, stopped or failed agent run and wait for its end, on
    the run's own model unless `model` names another (the step log says so)."""
    launcher = _launcher(storage_url)
    start = EventLog(open_storage(launcher.storage_url), run_id).next_seq()  # before the new run writes
    launched = launcher.resume(run_id, note, model)
    if on_launch is not None:
        on_launch(launched)
    return follow(launcher, launched, on_event, start=start, on_pause=on_pause)


def run_designer(
    description: str,
    serial: str,
    *,
    model: ModelChoice | None = None,
    storage_url: str | None = None,
    on_event: OnEvent | None = None,
    on_launch: Callable[[LaunchedAgentRun], None] | None = None,
    on_pause: OnPause | None = None,
) -> AgentRunOutcome:
    """Start a designer run (the `design-task` deployment, the same flow and slots as the
    dashboard's Designer page) on the phone `serial` and wait for its end; a valid draft is then
    the latest draft, waiting for a person to confirm it."""
    launcher = _launcher(storage_url)
    flow_run_id = PrefectMemoryLauncher(launcher.storage_url).start_design(serial, description, model)
    launched = LaunchedAgentRun(run_id=flow_run_id, flow_run_id=flow_run_id, ui_url=runtime.ui_url_for(flow_run_id))
    if on_launch is not None:
        on_launch(launched)
    return follow(launcher, launched, on_event, on_pause=on_pause)
