"""How the Agent page starts, stops and hands back agent runs: a small interface the app is
handed, never `flows` or `device_flows` itself.

`rlauto dashboard` hands the app `flows.agent_launch.PrefectAgentLauncher` (the `run-agent`
deployment on pool `phones`); tests hand it their own. What a run did is read from storage
(its event log), not through the launcher.
"""

from __future__ import annotations

from typing import Protocol

from rlauto_core.agent.launch import AgentDevice, LaunchedAgentRun, LaunchStatus
from rlauto_core.agent.run import ModelChoice
from rlauto_core.errors import ConfigError


class AgentLauncher(Protocol):
    def devices(self) -> list[AgentDevice]:
        """The phones to offer; a busy one says by which run."""
        ...

    def agent_busy(self) -> str | None:
        """Why no agent run can start now (another one is active), or None."""
        ...

    def start(
        self, instruction: str, serial: str, conversation_id: str | None = None, model: ModelChoice | None = None
    ) -> LaunchedAgentRun:
        """Start an agent run; returns at once."""
        ...

    def resume(self, run_id: str, note: str | None = None, model: ModelChoice | None = None) -> LaunchedAgentRun:
        """Go on with a paused, budget_exhausted, stopped or failed run (a new flow run), on its
        own model unless `model` names another."""
        ...

    def status(self, run_id: str) -> LaunchStatus:
        """The state of the flow run doing the agent run now."""
        ...

    def stop(self, run_id: str) -> None:
        """Cancel the run: it stops at its next checkpoint, resumable."""
        ...

    def hand_back(self, run_id: str, note: str | None = None) -> None:
        """A person is done on the phone: the paused run goes on, with the note."""
        ...


NOT_HERE = "this dashboard cannot run the agent: start it with `rlauto dashboard`"


class NoAgentLauncher:
    """The app run without a launcher (`streamlit run dashboards/review.py`): runs can be read,
    not started."""

    def devices(self) -> list[AgentDevice]:
        return []

    def agent_busy(self) -> str | None:
        return None

    def start(
        self, instruction: str, serial: str, conversation_id: str | None = None, model: ModelChoice | None = None
    ) -> LaunchedAgentRun:
        raise ConfigError(NOT_HERE)

    def resume(self, run_id: str, note: str | None = None, model: ModelChoice | None = None) -> LaunchedAgentRun:
        raise ConfigError(NOT_HERE)

    def status(self, run_id: str) -> LaunchStatus:
        raise ConfigError(NOT_HERE)

    def stop(self, run_id: str) -> None:
        raise ConfigError(NOT_HERE)

    def hand_back(self, run_id: str, note: str | None = None) -> None:
        raise ConfigError(NOT_HERE)
