"""Real clients for every role from settings and run options."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.llm.endpoints import resolve_endpoint
from rlauto_core.llm.http_client import HttpModelClient
from rlauto_core.llm.retry import RetryPolicy
from rlauto_core.llm.types import ModelClient, Role

Gate = Callable[[], AbstractContextManager[Any]]


@dataclass(frozen=True)
class ModelClients:
    """The clients one item uses; a role without a key is `None` (the pipeline then skips it)."""

    analyzer: ModelClient | None
    judge: ModelClient | None
    rubric: ModelClient | None


def http_client(
    role: Role,
    settings: Settings,
    options: RunOptions | None = None,
    *,
    gate: Gate | None = None,
    retry: RetryPolicy | None = None,
) -> HttpModelClient:
    """A real client for `role`; raises ModelNotConfiguredError when the role has no key."""
    return HttpModelClient(
        resolve_endpoint(role, settings, options),
        timeout_seconds=settings.llm_timeout_seconds,
        proxy=settings.upstream_proxy,
        retry=retry or RetryPolicy(max_attempts=settings.item_max_attempts),
        gate=gate,
    )


def process_gate(limit: int) -> Gate | None:
    """A gate for one process (SDK, CLI) capping model calls in flight; None when `limit` is 0.

    Prefect runs pass their global concurrency limit instead, which spans processes.
    """
    if limit <= 0:
        return None
    semaphore = threading.BoundedSemaphore(limit)

    @contextmanager
    def gate() -> Iterator[None]:
        with semaphore:
            yield

    return gate


def analyzer_configured(settings: Settings, options: RunOptions | None = None) -> bool:
    if options is not None and options.offline:
        return False
    if options is not None and options.api_key_secret is not None:
        return True  # the key is read from its Secret block where the item runs
    return resolve_endpoint(Role.ANALYZER, settings, options).configured


@contextmanager
def open_clients(
    settings: Settings,
    options: RunOptions | None = None,
    *,
    gate: Gate | None = None,
    retry: RetryPolicy | None = None,
) -> Iterator[ModelClients]:
    with ExitStack() as stack:
        made: dict[Role, ModelClient | None] = {}
        for role in (Role.ANALYZER, Role.JUDGE, Role.RUBRIC):
            if resolve_endpoint(role, settings, options).configured:
                made[role] = stack.enter_context(http_client(role, settings, options, gate=gate, retry=retry))
            else:
                made[role] = None
        yield ModelClients(analyzer=made[Role.ANALYZER], judge=made[Role.JUDGE], rubric=made[Role.RUBRIC])
