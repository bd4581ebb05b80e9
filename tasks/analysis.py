"""The analyzer and judge of one item: offline, or the configured models behind cached calls."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from rlauto_core.analysis import Analyzer
from rlauto_core.config import RunContext, RunOptions
from rlauto_core.judging import Judge
from rlauto_core.llm import ModelClient, ModelClients, Role, analyzer_configured, open_clients, resolve_endpoint
from rlauto_core.pipeline import PlannedItem, analysis_for
from rlauto_core.prompts import PROMPT_VERSION
from tasks.model_calls import CachedModelClient, ensure_llm_limit, joined_gate, llm_gate
from tasks.storage_io import result_storage_for

Gate = Callable[[], AbstractContextManager[Any]]


@contextmanager
def open_analysis(
    context: RunContext,
    options: RunOptions,
    item: PlannedItem,
    *,
    iteration: Callable[[], int],
    on_call: Callable[[Role, bool], None],
    model_gate: Gate | None = None,
) -> Iterator[tuple[Analyzer, Judge]]:
    """Offline when no analyzer model is configured (or the options say offline); else every
    configured role's client, each call a cached `model_call` task held by `model_gate` (the
    batch's model calls in flight) and then the global LLM limit."""
    settings = context.settings
    if not analyzer_configured(settings, options):
        yield analysis_for(None, options)
        return
    limit = settings.global_llm_concurrency
    if model_gate is None:  # a batch in this process (it holds the gate) ensured it once for all its items
        ensure_llm_limit(limit)
    results = result_storage_for(context.storage_url)
    prefix = f"{item.source_sha256[:20]}-{options.options_hash()}"

    def cached(client: ModelClient | None) -> ModelClient | None:
        if client is None:
            return None
        return CachedModelClient(client, key_prefix=prefix, prompt_version=PROMPT_VERSION, iteration=iteration,
                                 on_call=on_call, result_storage=results)  # fmt: skip

    gate = joined_gate(model_gate, llm_gate(limit))
    with open_clients(settings, options, gate=gate) as clients:
        wrapped = ModelClients(analyzer=cached(clients.analyzer), judge=cached(clients.judge),
                               rubric=cached(clients.rubric))  # fmt: skip
        yield analysis_for(wrapped, options, model=resolve_endpoint(Role.ANALYZER, settings, options).model)
