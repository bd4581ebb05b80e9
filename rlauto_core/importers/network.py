"""`network.json`: an echo object {"requests": [...]}, a bare array of requests, or a HAR object."""

from __future__ import annotations

from typing import Any

from rlauto_core.errors import RecordingError
from rlauto_core.importers.har import import_har, is_har
from rlauto_core.importers.http_fields import build_call, check_url, read_body, read_headers
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
    if type(item) is not dict:
        expect_dict(item, file, f"request {number}")
    get = item.get
    raw_id = get("id")
    if type(raw_id) is not str or not raw_id:
        raw_id = optional_str(raw_id, file, f"request {number}.id") or str(number)
    call_id: str = raw_id
    where = f"request {call_id}" if "id" in item else f"request {number}"
    url = get("url")
    if type(url) is not str or not url:
        raise RecordingError(file, f'{where} has no "url"' if url is None else f'{where}: "url" must be a string')
    method = get("method")
    if type(method) is not str or not method:
        method = optional_str(method, file, f"{where}.method") or "GET"
    request_headers = read_headers(get("requestHeaders"), file, where, "requestHeaders")
    response_headers = read_headers(get("responseHeaders"), file, where, "responseHeaders")
    request_body, request_encoding = read_body(
        get("requestBody"), get("requestBodyEncoding"), request_headers, file, where, "requestBody"
    )
    response_body, response_encoding = read_body(
        get("responseBody"), get("responseBodyEncoding"), response_headers, file, where, "responseBody"
    )
    status = get("status")
    if type(status) is not int:
        status = optional_number(status, file, f"{where}.status")
    duration = get("durationMs")
    if type(duration) is not float:
        duration = optional_number(duration, file, f"{where}.durationMs")
    resource_type = get("resourceType")
    if type(resource_type) is not str:
        resource_type = optional_str(resource_type, file, f"{where}.resourceType")
    page_url = get("pageUrl")
    if page_url is not None and type(page_url) is not str:
        page_url = optional_str(page_url, file, f"{where}.pageUrl")
    extra = {} if item.keys() <= _KNOWN else {k: v for k, v in item.items() if k not in _KNOWN}
    if extra:
        check_shape(extra, file, where)
    return build_call(
        {
            "id": call_id,
            "started_at": parse_timestamp(get("startedAt"), file, f"{where}.startedAt"),
            "duration_ms": duration,
            "method": method.upper(),
            "url": check_url(url, file, where),
            "resource_type": resource_type or None,
            "request_headers": request_headers,
            "request_body": request_body,
            "request_body_encoding": request_encoding,
            "status": int(status) if status is not None and status > 0 else None,
            "response_headers": response_headers,
            "response_body": response_body,
            "response_body_encoding": response_encoding,
            "page_url": page_url,
            "extra": extra,
        }
    )


def _check_unique_ids(calls: list[HttpCall], file: str) -> None:
    seen: set[str] = set()
    for call in calls:
        if call.id in seen:
            raise RecordingError(file, f"request id {call.id!r} appears twice; ids must point at one request")
        seen.add(call.id)
