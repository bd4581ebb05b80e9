"""`ToolCallingClient`: streamed tool-calling answers over the same client as every other role.

Endpoint, proxy, TLS, retries (a broken or truncated stream is retried like a malformed 200),
error mapping and key scrubbing are `HttpModelClient`'s. What is new: `stream: true`, the
answer assembled from server-sent events, and `stream_options.include_usage` (chat) dropped for
the rest of the client's life after one 400/422 answer to a request carrying it: some gateways
refuse the parameter without naming it, and a run without token figures beats a run that fails.
"""

from __future__ import annotations

import logging
import time

import httpx

from rlauto_core.llm.errors import TransientModelError
from rlauto_core.llm.http_client import CONTEXT_MARKERS, HttpModelClient
from rlauto_core.llm.stream_parse import OnDelta, parse_stream
from rlauto_core.llm.tool_types import ChatItem, ToolSpec, TurnReply
from rlauto_core.llm.tool_wire import STREAM_OPTIONS, build_tool_request
from rlauto_core.llm.wire import MalformedAnswer, WireRequest

log = logging.getLogger("rlauto.llm")


class ToolCallingClient(HttpModelClient):
    """One endpoint for a tool-using model; `turn()` is one streamed answer."""

    def turn(
        self,
        items: list[ChatItem],
        tools: list[ToolSpec],
        *,
        on_delta: OnDelta | None = None,
        keep_reasoning: int = 6000,
    ) -> TurnReply:
        """One answer: text, reasoning (at most `keep_reasoning` characters kept), tool calls and
        usage. `on_delta` sees the pieces as they arrive (again, on a retried attempt)."""
        request = build_tool_request(self.endpoint, items, tools)
        reply, attempts = self._with_retries(lambda: self._stream(request, on_delta, keep_reasoning))
        reply.attempts = attempts
        return reply

    @property
    def usage_in_stream(self) -> bool:
        """False once the endpoint refused `stream_options` (token figures are then zero)."""
        return STREAM_OPTIONS not in self._rejected

    def _stream(self, request: WireRequest, on_delta: OnDelta | None, keep_reasoning: int) -> TurnReply:
        while True:
            url = self.endpoint.base_url + request.path
            started = time.monotonic()
            try:
                with (
                    self._gate(),
                    self._http.stream("POST", url, json=request.payload(self._rejected)) as response,
                ):
                    if response.status_code == 200:
                        self._log_status(response, started)
                        return self._assemble(response, on_delta, keep_reasoning)
                    response.read()
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                raise self._transport_error(exc) from exc
            self._log_status(response, started)
            rejected = self._rejected_stream_param(request, response)
            if rejected is None:
                raise self._status_error(response)
            log.info(
                "%s model at %s: endpoint rejects %r; asking again without it",
                self.role,
                self.endpoint_host,
                rejected,
            )
            self._rejected.add(rejected)

    def _assemble(self, response: httpx.Response, on_delta: OnDelta | None, keep_reasoning: int) -> TurnReply:
        try:
            reply = parse_stream(self.endpoint.api_mode, response.iter_lines(), on_delta, keep_reasoning)
        except MalformedAnswer as exc:
            problem = f"malformed stream: {exc}"
            raise TransientModelError(str(self.role), self.endpoint_host, problem, status=200) from exc
        reply.model = reply.model or self.endpoint.model
        return reply

    def _rejected_stream_param(self, request: WireRequest, response: httpx.Response) -> str | None:
        named = self._rejected_param(request, response)
        if named is not None:
            return named
        if response.status_code not in (400, 422):
            return None
        if STREAM_OPTIONS not in request.optional or STREAM_OPTIONS in self._rejected:
            return None
        if any(marker in self._error_text(response).lower() for marker in CONTEXT_MARKERS):
            return None
        return STREAM_OPTIONS
