"""Requests that carry several calls (a GraphQL batch, a search engine's bulk, a JSON batch of HTTP
sub-requests), split on import into the calls they stand for, each with its own answer
(graphql.py, bulk.py, subrequests.py)."""

from __future__ import annotations

from rlauto_core.protocols import bulk, graphql, subrequests
from rlauto_core.recording import HttpCall, Recording


def _parts(call: HttpCall) -> list[HttpCall]:
    if graphql.is_batch(call):
        return graphql.split_call(call)
    if bulk.is_bulk(call):
        return bulk.split_call(call)
    if subrequests.is_subrequest_batch(call):
        return subrequests.split_call(call)
    return [call]


def split_batches(recording: Recording) -> Recording:
    """The recording with every batch split into its calls (the same recording when there is none,
    so the common case costs one scan)."""
    if not any(
        graphql.is_batch(c) or bulk.is_bulk(c) or subrequests.is_subrequest_batch(c) for c in recording.http_calls
    ):
        return recording
    calls = [part for call in recording.http_calls for part in _parts(call)]
    return recording.model_copy(update={"http_calls": calls})
