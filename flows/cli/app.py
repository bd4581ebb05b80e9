"""The `rlauto` Typer application; command modules attach themselves to `app`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import typer

from rlauto_core.errors import RlautoError

if TYPE_CHECKING:
    from rlauto_core.config import Settings

app = typer.Typer(
    name="rlauto",
    help="Turn recordings of computer tasks into executable RL task packages.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Turn recordings of computer tasks into executable RL task packages."""
    import logging

    from flows import runtime
    from flows.log_level import apply_log_level

    # LOG_LEVEL first: Prefect reads PREFECT_LOGGING_LEVEL when it is imported, and the server,
    # workers and dashboard this process may start inherit it
    level = apply_log_level()
    # before any command imports Prefect: the local stack when `rlauto up` runs, else what
    # PREFECT_API_URL says, else ephemeral mode with a start-up timeout a small machine meets
    api = runtime.configure()
    logging.getLogger("rlauto.cli").debug("log level %s; Prefect API %s", level, api or "ephemeral")


def fail(error: RlautoError | str) -> NoReturn:
    """Print one line `error: <file>: <problem>` on stderr and exit 2, never a traceback."""
    message = str(error).replace("\n", " ")
    sys.stderr.write(f"error: {message}\n")
    raise typer.Exit(code=2)


def load_settings() -> Settings:
    """Settings from the environment and `.env`; a bad value exits 2 with one line naming it."""
    from pydantic import ValidationError

    from rlauto_core.config import Settings

    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"]).upper() or "settings"
        fail(f"configuration: {name}: {first['msg']}")
