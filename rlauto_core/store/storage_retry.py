"""Which storage errors are worth repeating, and the one retry layer that repeats them.

S3 errors are judged by the answer's code (botocore's `Error.Code`, the HTTP status), never by
message text: a file named `it-503abc` failing with AccessDenied is not retried. botocore's own
retries are switched off for `s3://` URLs (`s3_client_options`), so a failing write is tried
`len(RETRY_DELAYS_SECONDS) + 1` times, not that times botocore's five.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import fsspec

T = TypeVar("T")


# Literal backoff: ~20 s in all, longer than an S3 server restart, shorter than a user's patience.
RETRY_DELAYS_SECONDS = (0.2, 0.5, 1.0, 2.0, 3.0, 4.0, 4.0, 5.0)

# Names of exception classes (anywhere in the MRO) that mean "try again", from botocore,
# aiohttp, urllib3 and fsspec, matched by name so that this pure module imports none of them.
_TRANSIENT_NAMES = frozenset(
    {
        "EndpointConnectionError",
        "ConnectionClosedError",
        "ConnectTimeoutError",
        "ReadTimeoutError",
        "HTTPClientError",
        "ClientConnectorError",
        "ClientOSError",
        "ServerDisconnectedError",
        "ClientPayloadError",
        "IncompleteRead",
        "FSTimeoutError",
        "ResponseParserError",
        "ProtocolError",
    }
)
_TRANSIENT_ERRNOS = frozenset({errno.ECONNREFUSED, errno.ECONNRESET, errno.ETIMEDOUT, errno.EPIPE})
# S3 error codes that mean "the service is busy or failed this once": throttling, 5xx, a request
# that timed out, a conflicting operation still in progress. Read from the answer botocore
# attaches to its ClientError (`response["Error"]["Code"]`), which s3fs keeps as the cause of
# the OSError it raises; never from message text, which holds keys such as `it-503abc`.
_TRANSIENT_S3_CODES = frozenset(
    {
        "SlowDown",
        "ServiceUnavailable",
        "InternalError",
        "RequestTimeout",
        "RequestTimeoutException",
        "OperationAborted",
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottled",
        "RequestLimitExceeded",
        "TooManyRequestsException",
        "BandwidthLimitExceeded",
        "PriorRequestNotComplete",
        "500",
        "502",
        "503",
        "504",
    }
)
# HTTP statuses of an S3 answer that mean the same when the code says nothing more.
_TRANSIENT_HTTP_STATUSES = frozenset({429, 500, 502, 503, 504})


def _s3_answer(exc: BaseException) -> tuple[str | None, int | None] | None:
    """The error code and HTTP status of the S3 answer `exc` carries (a botocore ClientError,
    duck-typed), or None when it carries none."""
    response = getattr(exc, "response", None)
    if not isinstance(response, dict):
        return None
    error = response.get("Error")
    code = error.get("Code") if isinstance(error, dict) else None
    metadata = response.get("ResponseMetadata")
    status = metadata.get("HTTPStatusCode") if isinstance(metadata, dict) else None
    if code is None and status is None:
        return None
    return (None if code is None else str(code)), status


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _s3_answer_is_transient(exc: BaseException) -> bool | None:
    """True for a transient code or status, False for any other answer, None for no answer."""
    answer = _s3_answer(exc)
    if answer is None:
        return None
    code, status = answer
    return code in _TRANSIENT_S3_CODES or status in _TRANSIENT_HTTP_STATUSES


def is_precondition_failed(exc: BaseException) -> bool:
    """The object store refused a create-if-absent because the object exists (412), judged by
    the answer's code like every other S3 error, never by message text."""
    for cause in _causes(exc):
        answer = _s3_answer(cause)
        if answer is not None:
            return answer[0] == "PreconditionFailed" or answer[1] == 412
    return False


def s3_client_options(url: str, options: dict[str, Any]) -> dict[str, Any]:
    """`options` for an `s3://` URL with botocore's own retries switched off.

    One retry layer per concern: `with_storage_retry` repeats a transient call; botocore's
    default (5 tries per request) under it made one failing write 9 x 5 requests.
    """
    if fsspec.core.split_protocol(url)[0] not in ("s3", "s3a"):
        return options
    config = dict(options.get("config_kwargs") or {})
    config.setdefault("retries", {"total_max_attempts": 1, "mode": "standard"})
    return {**options, "config_kwargs": config}


def is_transient_storage_error(exc: BaseException) -> bool:
    """True when the same storage call may succeed if repeated in a moment."""
    if isinstance(exc, (FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError)):
        return False
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    if isinstance(exc, OSError) and exc.errno in _TRANSIENT_ERRNOS:
        return True
    for current in _causes(exc):
        answer = _s3_answer_is_transient(current)
        if answer is not None:
            return answer  # the server answered: its code decides, whatever wraps it
        if any(cls.__name__ in _TRANSIENT_NAMES for cls in type(current).__mro__):
            return True
    return False


def with_storage_retry(
    call: Callable[[], T],
    *,
    delays: tuple[float, ...] = RETRY_DELAYS_SECONDS,
    on_retry: Callable[[BaseException, float], None] | None = None,
) -> T:
    """Run `call`, repeating it after each delay while it fails with a transient storage error."""
    for delay in delays:
        try:
            return call()
        except Exception as exc:
            if not is_transient_storage_error(exc):
                raise
            if on_retry is not None:
                on_retry(exc, delay)
            time.sleep(delay)
    return call()
