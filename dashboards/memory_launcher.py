"""How the dashboard starts the agent memory's runs: a small interface the app is handed, never
`flows` itself. `rlauto dashboard` hands it `flows.memory_launch.PrefectMemoryLauncher`; tests
hand it a fake (`tests/fakes/memory_launcher.py`)."""

from __future__ import annotations

from typing import Any, Protocol

from rlauto_core.errors import ConfigError


class MemoryLauncher(Protocol):
    def start_design(self, serial: str, description: str) -> str:
        """Start a designer run on the phone; its agent run id (the events are read from storage)."""
        ...

    def run_task(self, name: str, steps: list[dict[str, Any]], serial: str) -> str:
        """Start `run-steps` with a confirmed task's steps on the phone; the flow run's id."""
        ...

    def start_audit(self) -> str:
        """Start the experience audit now; the flow run's id."""
        ...


class NoMemoryLauncher:
    """The app run without one (`streamlit run dashboards/review.py`): nothing can be started."""

    def _refuse(self) -> str:
        raise ConfigError("this dashboard cannot start runs: start it with `rlauto dashboard`")

    def start_design(self, serial: str, description: str) -> str:
        return self._refuse()

    def run_task(self, name: str, steps: list[dict[str, Any]], serial: str) -> str:
        return self._refuse()

    def start_audit(self) -> str:
        return self._refuse()
