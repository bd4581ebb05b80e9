"""Command-line entry point `rlauto`."""

from __future__ import annotations

from flows.cli import dashboard_cmd  # noqa: F401  (registers its command)
from flows.cli import gesture_cmd  # noqa: F401  (registers its command)
from flows.cli import inspect_cmd  # noqa: F401  (registers its command)
from flows.cli import polish_cmd  # noqa: F401  (registers its command)
from flows.cli import package_cmd  # noqa: F401  (registers its command)
from flows.cli import score_cmd  # noqa: F401  (registers its command)
from flows.cli import stack_cmd  # noqa: F401  (registers its command)
from flows.cli import validate_cmd  # noqa: F401  (registers its command)
from flows.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
