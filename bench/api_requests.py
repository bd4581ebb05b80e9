"""Counting the Prefect API requests a process sends, by endpoint: every attempt on the wire
(Prefect's client retries included), counted where httpx hands a request to its transport.
Ids in the path are folded (`/api/flow_runs/{id}/set_state`), so the counts group by endpoint."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

_ID = re.compile(r"/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def endpoint(method: str, path: str) -> str:
    return f"{method} {_ID.sub('/{id}', path.rstrip('/') or '/')}"


TRANSIENT = frozenset({408, 429, 502, 503, 504})  # answers Prefect's client sends again


@contextmanager
def counting_api_requests(api_url: str, transient: Counter[str] | None = None) -> Iterator[Counter[str]]:
    """Count requests to `api_url` (sync and async clients) while the `with` lasts; `transient`,
    when given, counts those of them answered with a status Prefect's client retries (a busy
    SQLite server answers 503: the request is then counted twice, once in each)."""
    counts: Counter[str] = Counter()
    lock = threading.Lock()
    prefix = api_url.rstrip("/")
    sync_send, async_send = httpx.HTTPTransport.handle_request, httpx.AsyncHTTPTransport.handle_async_request

    def note(request: httpx.Request) -> None:
        if str(request.url).startswith(prefix):
            with lock:
                counts[endpoint(request.method, request.url.path)] += 1

    def answered(request: httpx.Request, response: httpx.Response) -> httpx.Response:
        if transient is not None and response.status_code in TRANSIENT and str(request.url).startswith(prefix):
            with lock:
                transient[endpoint(request.method, request.url.path)] += 1
        return response

    def handle(self: httpx.HTTPTransport, request: httpx.Request) -> Any:
        note(request)
        return answered(request, sync_send(self, request))

    async def handle_async(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> Any:
        note(request)
        return answered(request, await async_send(self, request))

    httpx.HTTPTransport.handle_request = handle  # type: ignore[method-assign]
    httpx.AsyncHTTPTransport.handle_async_request = handle_async  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        httpx.HTTPTransport.handle_request = sync_send  # type: ignore[method-assign]
        httpx.AsyncHTTPTransport.handle_async_request = async_send  # type: ignore[method-assign]
