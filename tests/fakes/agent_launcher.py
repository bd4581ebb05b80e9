"""An agent launcher for the Agent page without Prefect: it keeps what it was asked, and hands
a takeover back to a loop running in the test (its `takeover` hook waits for `hand_back`)."""

from __future__ import annotations

import queue
from dataclasses import dataclass, field

from rlauto_core.agent.launch import AgentDevice, LaunchedAgentRun, LaunchStatus
from rlauto_core.agent.run import ModelChoice
from rlauto_core.agent.tools import TakeoverAnswer, TakeoverRequest


@dataclass
class FakeAgentLauncher:
    phones: list[AgentDevice] = field(default_factory=list)
    busy: str | None = None
    state: str = "Running"
    calls: list[tuple[str, ...]] = field(default_factory=list)
    _handed: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def devices(self) -> list[AgentDevice]:
        return list(self.phones)

    def agent_busy(self) -> str | None:
        return self.busy

    def start(
        self, instruction: str, serial: str, conversation_id: str | None = None, model: ModelChoice | None = None
    ) -> LaunchedAgentRun:
        self.calls.append(("start", instruction, serial, conversation_id or ""))
        return LaunchedAgentRun(run_id="run-started", flow_run_id="run-started")

    def resume(self, run_id: str, note: str | None = None, model: ModelChoice | None = None) -> LaunchedAgentRun:
        self.calls.append(("resume", run_id, note or ""))
        return LaunchedAgentRun(run_id=run_id, flow_run_id="flow-2")

    def status(self, run_id: str) -> LaunchStatus:
        final = self.state not in ("Running", "Paused", "Scheduled")
        return LaunchStatus(flow_run_id=run_id, state=self.state, paused=self.state == "Paused", final=final)

    def stop(self, run_id: str) -> None:
        self.calls.append(("stop", run_id))

    def hand_back(self, run_id: str, note: str | None = None) -> None:
        self.calls.append(("hand_back", run_id, note or ""))
        self._handed.put(note)

    def person(self, request: TakeoverRequest) -> TakeoverAnswer:
        """A takeover hook for the loop: blocks until the page hands the phone back."""
        return TakeoverAnswer(note=self._handed.get(timeout=120))
