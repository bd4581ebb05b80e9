"""HAR 1.2 as browsers and proxies export it (Chrome, Firefox, Safari, Playwright, Charles,
mitmproxy, Insomnia). Call ids are the 0-based positions in `log.entries`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote_plus

from rlauto_core.errors import RecordingError
from rlauto_core.importers.http_fields import build_call, check_url, read_body, read_headers
from rlauto_core.importers.jsonload import check_shape, expect_dict, expect_list, optional_number, type_name
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import HttpCall

_KNOWN_ENTRY_KEYS = {"request", "response", "startedDateTime", "time", "_resourceType", "timings"}


def is_har(document: Any) -> bool:
    return isinstance(document, dict) and isinstance(document.get("log"), dict)


def import_har(document: Any, file: str) -> list[HttpCall]:
    log = expect_dict(expect_dict(document, file, "the HAR document").get("log"), file, "log")
    entries = expect_list(log.get("entries", []), file, "log.entries")
    return [_entry(entry, number, file) for number, entry in enumerate(entries)]


def _entry(entry: Any, number: int, file: str) -> HttpCall:
    where = f"entry {number}"
    entry = expect_dict(entry, file, where)
    request = entry.get("request")
    if request is None:
        raise RecordingError(file, f"{where} has no request")
    request = expect_dict(request, file, f"{where}.request")
    response = entry.get("response") or {}
    response = expect_dict(response, file, f"{where}.response")
    url = request.get("url")
    if not isinstance(url, str) or not url:
        raise RecordingError(file, f'{where}.request has no "url"')
    method = request.get("method") or "GET"
    if not isinstance(method, str):
        raise RecordingError(file, f"{where}.request.method must be a string, got {type_name(method)}")
    post = request.get("postData")
    body: str | None = None
    body_encoding: Any = None
    mime: str | None = None
    if isinstance(post, dict):
        mime = post.get("mimeType") if isinstance(post.get("mimeType"), str) else None
        body_encoding = post.get("encoding")
        if post.get("text") is not None:
            body = post.get("text")
        elif isinstance(post.get("params"), list):
            body = _params_body(post["params"], file, f"{where}.request.postData.params")
    elif post is not None:
        raise RecordingError(file, f"{where}.request.postData must be an object, got {type_name(post)}")
    request_body, request_encoding = read_body(body, body_encoding, mime, file, where, "request.postData")
    content = response.get("content") or {}
    content = expect_dict(content, file, f"{where}.response.content")
    response_mime = content.get("mimeType") if isinstance(content.get("mimeType"), str) else None
    response_body, response_encoding = read_body(
        content.get("text"), content.get("encoding"), response_mime, file, where, "response.content.text"
    )
    status = response.get("status")
    status_code = int(status) if isinstance(status, (int, float)) and not isinstance(status, bool) else None
    # 0 is how browsers record aborted or blocked requests: no response
    if status_code is not None and status_code <= 0:
        status_code = None
    duration = optional_number(entry.get("time"), file, f"{where}.time")
    extra = {k: v for k, v in entry.items() if k not in _KNOWN_ENTRY_KEYS}
    redirect = response.get("redirectURL")
    if isinstance(redirect, str) and redirect:
        extra["redirectURL"] = check_url(redirect, file, f"{where}.response.redirectURL")  # a Location's stand-in
    check_shape(extra, file, where)
    return build_call(
        dict(
            page_url=None,
            id=str(number),
            started_at=parse_timestamp(entry.get("startedDateTime"), file, f"{where}.startedDateTime"),
            duration_ms=duration if duration is None or duration >= 0 else None,
            method=method.upper(),
            url=check_url(url, file, where),
            resource_type=_resource_type(entry),
            request_headers=read_headers(request.get("headers"), file, where, "request.headers"),
            request_body=request_body,
            request_body_encoding=request_encoding,
            status=status_code,
            response_headers=read_headers(response.get("headers"), file, where, "response.headers"),
            response_body=response_body,
            response_body_encoding=response_encoding,
            extra=extra,
        )
    )


def _params_body(params: list[Any], file: str, where: str) -> str:
    """Rebuild a form body from HAR `postData.params` when the exporter left `text` out."""
    pairs: list[str] = []
    for number, param in enumerate(params):
        if not isinstance(param, dict) or "name" not in param:
            raise RecordingError(file, f'{where}[{number}] must be an object with a "name"')
        value = param.get("value")
        if value is None and param.get("fileName"):
            value = f"<file {param['fileName']}>"
        pairs.append(f"{quote_plus(str(param['name']))}={quote_plus(str(value or ''))}")
    return "&".join(pairs)


def _resource_type(entry: dict[str, Any]) -> str | None:
    value = entry.get("_resourceType") or entry.get("_type")
    return value.lower() if isinstance(value, str) else None
