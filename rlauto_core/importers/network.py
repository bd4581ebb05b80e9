"""`network.json`: an echo object {"requests": [...]}, a bare array of requests, or a HAR object."""

from __future__ import annotations

from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.har import import_har, is_har
from rlauto_core.importers.http_fields import build_call, check_url, content_type, read_body, read_headers
from rlauto_core.importers.jsonload import check_shape, expect_dict, optional_number, optional_str, type_name
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import HttpCall

_KNOWN = {
    "id", "startedAt", "durationMs", "method", "url", "resourceType", "requestHeaders", "requestBody",
    "requestBodyEncoding", "status", "responseHeaders", "responseBody", "responseBodyEncoding", "pageUrl",
}  # fmt: skip


def import_network(document: Any, file: str) -> list[HttpCall]:
    if is_har(document):
        return import_har(document, file)
    if isinstance(document, dict):
        if "requests" not in document:
            raise RecordingError(file, 'expected {"requests": [...]}, a list of requests, or a HAR object')
        document = document["requests"]
    if not isinstance(document, list):
        raise RecordingError(file, f"requests must be an array, got {type_name(document)}")
    calls = [_request(item, number, file) for number, item in enumerate(document)]
    _check_unique_ids(calls, file)
    return calls


def _request(item: Any, number: int, file: str) -> HttpCall:
    where = f"request {number}"
    item = expect_dict(item, file, where)
    call_id = optional_str(item.get("id"), file, f"{where}.id") or str(number)
    where = f"request {call_id}" if "id" in item else where
    url = item.get("url")
    if not isinstance(url, str) or not url:
        raise RecordingError(file, f'{where} has no "url"' if url is None else f'{where}: "url" must be a string')
    method = optional_str(item.get("method"), file, f"{where}.method") or "GET"
    request_headers = read_headers(item.get("requestHeaders"), file, f"{where}.requestHeaders")
    response_headers = read_headers(item.get("responseHeaders"), file, f"{where}.responseHeaders")
    request_body, request_encoding = read_body(
        item.get("requestBody"), item.get("requestBodyEncoding"), content_type(request_headers), file,
        f"{where}.requestBody",
    )  # fmt: skip
    response_body, response_encoding = read_body(
        item.get("responseBody"), item.get("responseBodyEncoding"), content_type(response_headers), file,
        f"{where}.responseBody",
    )  # fmt: skip
    status = optional_number(item.get("status"), file, f"{where}.status")
    extra = {k: v for k, v in item.items() if k not in _KNOWN}
    check_shape(extra, file, where)
    return build_call(
        dict(
            id=call_id,
            started_at=parse_timestamp(item.get("startedAt"), file, f"{where}.startedAt"),
            duration_ms=optional_number(item.get("durationMs"), file, f"{where}.durationMs"),
            method=method.upper(),
            url=check_url(url, file, where),
            resource_type=(optional_str(item.get("resourceType"), file, f"{where}.resourceType") or None),
            request_headers=request_headers,
            request_body=request_body,
            request_body_encoding=request_encoding,
            status=int(status) if status is not None and status > 0 else None,
            response_headers=response_headers,
            response_body=response_body,
            response_body_encoding=response_encoding,
            page_url=optional_str(item.get("pageUrl"), file, f"{where}.pageUrl"),
            extra=extra,
        )
    )


def _check_unique_ids(calls: list[HttpCall], file: str) -> None:
    seen: set[str] = set()
    for call in calls:
        if call.id in seen:
            raise RecordingError(file, f"request id {call.id!r} appears twice; ids must point at one request")
        seen.add(call.id)
