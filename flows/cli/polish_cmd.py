"""`rlauto polish TEXT`: a raw task text -> polished zh/en instruction and notes, via the analyzer model."""

from __future__ import annotations

import json
import os
import sys

import typer

from flows.cli.app import app, fail


@app.command("polish")
def polish_command(
    text: str = typer.Argument(..., help="The raw task text, or - to read it from stdin."),
    model: str | None = typer.Option(None, "--model", help="Model name (default: DEFAULT_MODEL)."),
    base_url: str | None = typer.Option(None, "--base-url", help="Endpoint (default: DEFAULT_BASE_URL)."),
    api_key_env: str | None = typer.Option(
        None, "--api-key-env", help="Name of the environment variable holding the key (default: DEFAULT_API_KEY)."
    ),
    api_mode: str | None = typer.Option(None, "--api-mode", help="chat or responses."),
    as_json: bool = typer.Option(False, "--json", help="Print {zh, en, notes} as JSON."),
) -> None:
    """Polish a raw task into a clear Chinese and English instruction, with notes."""
    from pydantic import SecretStr, ValidationError

    from rlauto_core.analysis import polish_task
    from rlauto_core.config import RunOptions, Settings
    from rlauto_core.errors import RlautoError
    from rlauto_core.llm import Role, http_client, resolve_endpoint

    raw = sys.stdin.read() if text == "-" else text
    try:
        settings = Settings()
        key: SecretStr | None = None
        if api_key_env:
            value = os.environ.get(api_key_env, "")
            if not value.strip():
                fail(f"--api-key-env: environment variable {api_key_env} is not set")
            key = SecretStr(value)
        options = RunOptions(model=model, base_url=base_url, api_key=key, api_mode=api_mode)
    except ValidationError as exc:
        fail(f"configuration: {exc.errors()[0]['loc']}: {exc.errors()[0]['msg']}")
    try:
        if not resolve_endpoint(Role.POLISH, settings, options).configured:
            fail("no model configured for polish: set DEFAULT_API_KEY in .env or pass --api-key-env NAME")
        with http_client(Role.POLISH, settings, options) as client:
            outcome = polish_task(raw, client)
    except RlautoError as exc:
        fail(exc)
    result = outcome.result
    if as_json:
        sys.stdout.write(json.dumps(result.model_dump(), ensure_ascii=False, indent=2) + "\n")
        return
    sys.stdout.write(f"zh: {result.zh}\nen: {result.en}\n")
    if result.notes:
        sys.stdout.write(f"notes: {result.notes}\n")
