"""The real `ModelClient`: OpenAI-compatible `chat` and `responses` over httpx.

Transient failures (429, 5xx, timeouts, connection errors, malformed 200s) are retried with
backoff and jitter honouring Retry-After; permanent ones raise at once. An optional parameter
the endpoint rejects (JSON output, thinking switches) is dropped and the call repeated once.
"""

from __future__ import annotations

import contextlib
import logging
import random
import ssl
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cache
from typing import Any, Self, TypeVar

import certifi
import httpx

from rlauto_core.llm.endpoints import EndpointConfig
from rlauto_core.llm.errors import (
    ContextTooLongError,
    ModelNotConfiguredError,
    PermanentModelError,
    TransientModelError,
)
from rlauto_core.llm.retry import RetryPolicy, parse_retry_after
from rlauto_core.llm.types import Message, ModelReply, Role
from rlauto_core.llm.wire import MalformedAnswer, WireRequest, build_request, parse_answer
from rlauto_core.redact import redact_text

log = logging.getLogger("rlauto.llm")
R = TypeVar("R")

CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context length",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
)
_PERMANENT_HINTS = {
    400: "the endpoint rejected the request (400)",
    401: "authentication failed (401): check {key_source}",
    403: "access denied (403): check {key_source} and the model's permissions",
    404: "not found (404): check the base URL and the model name",
}


@cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every model client: building one loads the CA bundle, ~25 ms of CPU,
    which per client was a fifth of a packaged item's client-side time (bench_orchestration)."""
    return ssl.create_default_context(cafile=certifi.where())


class HttpModelClient:
    """One role's endpoint. Use as a context manager or call `close()`."""

    def __init__(
        self,
        endpoint: EndpointConfig,
        *,
        timeout_seconds: float = 120.0,
        proxy: str | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        gate: Callable[[], AbstractContextManager[Any]] | None = None,
    ) -> None:
        if endpoint.api_key is None:
            raise ModelNotConfiguredError(str(endpoint.role), endpoint.host, f"no API key: set {endpoint.key_source}")
        self._endpoint = endpoint
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        # the gate caps model calls across runs (GLOBAL_LLM_CONCURRENCY); the caller decides how
        self._gate = gate or contextlib.nullcontext
        self._rejected: set[str] = set()
        # trust_env=False: UPSTREAM_PROXY is the only proxy, whatever the shell exports
        self._http = httpx.Client(
            timeout=httpx.Timeout(timeout_seconds, connect=min(timeout_seconds, 15.0)),
            proxy=proxy,
            trust_env=False,
            verify=tls_context(),
            headers={"Authorization": f"Bearer {endpoint.api_key.get_secret_value()}"},
        )

    @property
    def role(self) -> Role:
        return self._endpoint.role

    @property
    def endpoint_host(self) -> str:
        return self._endpoint.host

    @property
    def endpoint(self) -> EndpointConfig:
        return self._endpoint

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def complete(self, messages: list[Message], *, json_output: bool = False) -> ModelReply:
        request = build_request(self._endpoint, messages, json_output=json_output)
        reply, attempts = self._with_retries(lambda: self._send(request))
        reply.attempts = attempts
        return reply

    def _with_retries(self, attempt: Callable[[], R]) -> tuple[R, int]:
        """`attempt()` until it does not raise a transient error, with backoff; (result, tries)."""
        failures = 0
        while True:
            try:
                return attempt(), failures + 1
            except TransientModelError as exc:
                failures += 1
                limit = self._retry.max_retry_after_seconds
                if failures >= self._retry.max_attempts or (exc.retry_after or 0) > limit:
                    raise TransientModelError(
                        exc.role,
                        exc.host,
                        f"{exc.problem} (gave up after {failures} attempt(s))",
                        status=exc.status,
                        retry_after=exc.retry_after,
                    ) from exc
                delay = self._retry.delay(failures, exc.retry_after, self._rng)
                log.warning(
                    "%s model at %s: %s; retry %d/%d in %.2fs",
                    self.role,
                    self.endpoint_host,
                    exc.problem,
                    failures,
                    self._retry.max_attempts - 1,
                    delay,
                )
                self._sleep(delay)

    def _send(self, request: WireRequest) -> ModelReply:
        """One try, plus at most one immediate repeat per optional parameter the endpoint rejects."""
        while True:
            response = self._post(request)
            if response.status_code == 200:
                return self._reply(response)
            rejected = self._rejected_param(request, response)
            if rejected is None:
                raise self._status_error(response)
            log.info(
                "%s model at %s: endpoint rejects %r; asking again without it",
                self.role,
                self.endpoint_host,
                rejected,
            )
            self._rejected.add(rejected)

    def _post(self, request: WireRequest) -> httpx.Response:
        url = self._endpoint.base_url + request.path
        started = time.monotonic()
        try:
            with self._gate():
                response = self._http.post(url, json=request.payload(self._rejected))
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise self._transport_error(exc) from exc
        self._log_status(response, started)
        return response

    def _transport_error(self, exc: httpx.HTTPError) -> TransientModelError:
        if isinstance(exc, httpx.TimeoutException):
            return TransientModelError(str(self.role), self.endpoint_host, f"timed out ({type(exc).__name__})")
        problem = f"connection failed ({type(exc).__name__}: {redact_text(str(exc), self._secrets())[:200]})"
        return TransientModelError(str(self.role), self.endpoint_host, problem)

    def _log_status(self, response: httpx.Response, started: float) -> None:
        log.info(
            "%s model at %s: HTTP %d in %.0f ms",
            self.role,
            self.endpoint_host,
            response.status_code,
            (time.monotonic() - started) * 1000,
        )

    def _reply(self, response: httpx.Response) -> ModelReply:
        try:
            answer = parse_answer(self._endpoint.api_mode, response.json())
        except (ValueError, MalformedAnswer) as exc:
            raise TransientModelError(
                str(self.role), self.endpoint_host, f"malformed answer: {exc}", status=200
            ) from exc
        return ModelReply(
            text=answer.text,
            usage=answer.usage,
            model=answer.model or self._endpoint.model,
            finish_reason=answer.finish_reason,
            refusal=answer.refusal,
        )

    def _secrets(self) -> list[str]:
        key = self._endpoint.api_key
        return [key.get_secret_value()] if key is not None else []

    def _error_text(self, response: httpx.Response) -> str:
        try:
            data = response.json()
        except ValueError:
            return redact_text(response.text[:300], self._secrets())
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            parts = [str(error.get(k)) for k in ("message", "code", "param") if error.get(k)]
            text = "; ".join(parts)
        elif isinstance(error, str):
            text = error
        else:
            text = str(data)
        return redact_text(text[:300], self._secrets())

    def _rejected_param(self, request: WireRequest, response: httpx.Response) -> str | None:
        if response.status_code not in (400, 422):
            return None
        text = self._error_text(response).lower()
        for name in request.optional:
            # the responses API's JSON switch is `text.format`; "text" alone is too common a word
            marker = "format" if name == "text" else name.lower()
            if name not in self._rejected and marker in text:
                return name
        return None

    def _status_error(self, response: httpx.Response) -> Exception:
        status = response.status_code
        detail = self._error_text(response)
        role, host = str(self.role), self.endpoint_host
        if status == 429 or status >= 500 or status in (408, 409, 425):
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            what = "rate limited (429)" if status == 429 else f"HTTP {status}"
            return TransientModelError(
                role, host, f"{what}: {detail}" if detail else what, status=status, retry_after=retry_after
            )
        if status in (400, 413) and any(m in detail.lower() for m in CONTEXT_MARKERS):
            return ContextTooLongError(
                role,
                host,
                f"prompt too long for model {self._endpoint.model} ({status}): {detail}",
                status=status,
            )
        hint = _PERMANENT_HINTS.get(status, f"HTTP {status}").format(key_source=self._endpoint.key_source)
        return PermanentModelError(role, host, f"{hint}: {detail}" if detail else hint, status=status)
