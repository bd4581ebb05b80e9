"""A memory launcher for the review app that starts nothing: it keeps what it was asked to start."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FakeMemoryLauncher:
    designs: list[tuple[str, str]] = field(default_factory=list)
    tasks: list[tuple[str, list[dict[str, Any]], str]] = field(default_factory=list)
    audits: int = 0
    refuse: Exception | None = None  # raised instead of starting

    def start_design(self, serial: str, description: str) -> str:
        if self.refuse is not None:
            raise self.refuse
        self.designs.append((serial, description))
        return f"design-run-{len(self.designs)}"

    def run_task(self, name: str, steps: list[dict[str, Any]], serial: str) -> str:
        if self.refuse is not None:
            raise self.refuse
        self.tasks.append((name, steps, serial))
        return f"steps-run-{len(self.tasks)}"

    def start_audit(self) -> str:
        if self.refuse is not None:
            raise self.refuse
        self.audits += 1
        return f"audit-run-{self.audits}"
