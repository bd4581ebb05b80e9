"""Command-line entry point `rlauto`."""

from __future__ import annotations

from flows.cli import (
    agent_cmd,  # noqa: F401  (registers its command)
    agent_eval_cmd,  # noqa: F401  (registers its command)
    dashboard_cmd,  # noqa: F401  (registers its command)
    dataset_cmd,  # noqa: F401  (registers its command)
    designer_cmd,  # noqa: F401  (registers its command)
    env_cmd,  # noqa: F401  (registers its command)
    eval_cmd,  # noqa: F401  (registers its command)
    gesture_cmd,  # noqa: F401  (registers its command)
    inspect_cmd,  # noqa: F401  (registers its command)
    memory_cmd,  # noqa: F401  (registers its command)
    package_cmd,  # noqa: F401  (registers its command)
    phone_cmd,  # noqa: F401  (registers its command)
    polish_cmd,  # noqa: F401  (registers its command)
    score_cmd,  # noqa: F401  (registers its command)
    stack_cmd,  # noqa: F401  (registers its command)
    validate_cmd,  # noqa: F401  (registers its command)
)
from flows.cli.app import app


def main() -> None:
    try:
        app()
    finally:
        # what the command's flows logged reaches the server before the process ends
        from flows import runtime

        runtime.ship_logs()


__all__ = ["app", "main"]
