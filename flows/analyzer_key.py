"""Where a run's own analyzer key comes from when the run fans out to workers.

A key given with the run (`RunOptions.api_key`, `rlauto package --api-key-env`) lives in the
process that was given it: a flow-run parameter would store it on the Prefect server, in the UI
and in events, so it never becomes one. A run that reaches workers names a Prefect Secret block
instead (`RunOptions.api_key_secret`, `--api-key-secret NAME`): the name travels, and the worker
running the item reads the value from the server when it starts. A raw key with a batch that
fans out to workers is refused, with what to do instead.
"""

from __future__ import annotations

from typing import cast

from pydantic import SecretStr

from rlauto_core.config import RunOptions
from rlauto_core.errors import ConfigError


def raw_key_refusal(where: str) -> str:
    return (
        f"a per-run analyzer key cannot travel to {where}: it would be stored as a flow-run parameter. "
        "Either set DEFAULT_API_KEY in the workers' environment, or keep the key in a Prefect Secret block "
        "(`prefect block create secret`, or `Secret(value=KEY).save('NAME')`) and pass its name instead "
        "(`rlauto package --api-key-secret NAME`, or the run option api_key_secret)"
    )


def refuse_raw_key(options: RunOptions, where: str) -> None:
    """Refuse a raw key for a run that leaves this process (`where` says for what)."""
    if options.api_key is not None:
        raise ConfigError(raw_key_refusal(where))


async def resolved(options: RunOptions) -> RunOptions:
    """The options with the key of their Secret block filled in (read on the worker, from the
    Prefect server); options with a raw key or no block name come back as they are."""
    name = options.api_key_secret
    if name is None or options.api_key is not None:
        return options
    from prefect.blocks.system import Secret

    try:
        block: Secret[str] = await Secret.aload(name)
    except ValueError:
        raise ConfigError(_no_block(name)) from None
    return _with_key(options, name, block.get())


def resolved_sync(options: RunOptions) -> RunOptions:
    """`resolved` for a synchronous flow (no event loop in its thread)."""
    name = options.api_key_secret
    if name is None or options.api_key is not None:
        return options
    from prefect.blocks.system import Secret

    try:
        # `_sync`: Prefect's dispatch would hand back a coroutine if a loop ran in this thread
        block = cast("Secret[str]", Secret.load(name, _sync=True))  # type: ignore[call-arg]
    except ValueError:
        raise ConfigError(_no_block(name)) from None
    return _with_key(options, name, block.get())


def _no_block(name: str) -> str:
    return (
        f"api_key_secret {name!r}: no Secret block of that name on the Prefect server; create it "
        f"(`prefect block create secret`, or `Secret(value=KEY).save({name!r})`) where the workers' server is"
    )


def _with_key(options: RunOptions, name: str, value: object) -> RunOptions:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"api_key_secret {name!r}: the Secret block holds no key (a non-empty string)")
    return options.model_copy(update={"api_key": SecretStr(value.strip())})
