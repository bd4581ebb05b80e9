"""`rlauto ARGS` run in the test's process through the CLI's own app, its result shaped like a
finished process's. A process of its own costs 3-6 CPU seconds to start: tests of a command's
many cases run here and keep one real process to show what a user's terminal gets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from typer.testing import CliRunner

from flows.cli import app


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def invoke(*args: str, env: Mapping[str, str | None] | None = None) -> Done:
    result = CliRunner().invoke(app, list(args), env=env)
    return Done(result.exit_code, result.stdout, result.stderr)
