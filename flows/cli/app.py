"""The `rlauto` Typer application; command modules attach themselves to `app`."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from rlauto_core.errors import RlautoError

app = typer.Typer(
    name="rlauto",
    help="Turn recordings of computer tasks into executable RL task packages.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(error: RlautoError | str) -> NoReturn:
    """Print one line `error: <file>: <problem>` on stderr and exit 2, never a traceback."""
    message = str(error).replace("\n", " ")
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(code=2)
