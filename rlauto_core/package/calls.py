"""Full call objects (`apiCalls[]`) from recorded calls, and back.

The way back lets a package alone replay its golden trajectory (`rlauto validate task.json`):
headers are redacted on the way in, which checkers never read anyway.
"""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.package.models import ApiCall
from rlauto_core.recording import AnnotatorTask, Call, Header, HttpCall, Mode, Recording, ToolCall
from rlauto_core.redact import redact_json

# A body larger than this is cut in the package (the recording keeps it whole).
MAX_BODY_CHARS = 256_000


def _body(text: str | None, encoding: str) -> Any:
    if text is None:
        return None
    if encoding == "text" and text.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            pass
    return text if len(text) <= MAX_BODY_CHARS else text[:MAX_BODY_CHARS] + "...[truncated]"


def _headers(headers: list[Header]) -> dict[str, str]:
    return dict(headers)


def api_call(call: Call, index: int) -> ApiCall:
    """The package's full call object for one recorded call, secrets redacted."""
    if isinstance(call, HttpCall):
        obj = ApiCall(
            id=call.id,
            name=call.name,
            type="http",
            input={
                "method": call.method.upper(),
                "url": call.url,
                "path": call.path,
                "query": dict(call.query),
                "headers": _headers(call.request_headers),
                "body": _body(call.request_body, call.request_body_encoding),
                "bodyEncoding": call.request_body_encoding,
            },
            output={
                "status": call.status,
                "headers": _headers(call.response_headers),
                "body": _body(call.response_body, call.response_body_encoding),
                "bodyEncoding": call.response_body_encoding,
            },
            metadata={
                "index": index,
                "host": call.host,
                "startedAt": call.started_at.isoformat() if call.started_at else None,
                "durationMs": call.duration_ms,
                "resourceType": call.resource_type,
                "pageUrl": call.page_url,
            },
        )
    else:
        obj = ApiCall(
            id=call.id,
            name=call.tool,
            type="mcp",
            input=dict(call.arguments),
            output=call.result,
            metadata={
                "index": index,
                "server": call.server,
                "startedAt": call.started_at.isoformat() if call.started_at else None,
                "durationMs": call.duration_ms,
                "isError": call.is_error,
                "answered": call.answered,
            },
        )
    return ApiCall.model_validate(redact_json(obj.model_dump(mode="json")))


def _text(body: Any) -> str | None:
    if body is None or isinstance(body, str):
        return body
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _header_list(value: Any) -> list[Header]:
    if not isinstance(value, dict):
        return []
    return [(str(k), str(v)) for k, v in value.items()]


def call_from_api_call(obj: ApiCall) -> Call:
    """A recorded call rebuilt from a package's call object (for replaying the golden trajectory)."""
    meta = obj.metadata
    if obj.type == "http":
        data = obj.input
        output = obj.output if isinstance(obj.output, dict) else {}
        return HttpCall(
            id=obj.id,
            method=str(data.get("method") or obj.name.split(" ", 1)[0]),
            url=str(data.get("url") or data.get("path") or obj.name.split(" ", 1)[-1]),
            request_headers=_header_list(data.get("headers")),
            request_body=_text(data.get("body")),
            request_body_encoding="base64" if data.get("bodyEncoding") == "base64" else "text",
            status=output.get("status") if isinstance(output.get("status"), int) else None,
            response_headers=_header_list(output.get("headers")),
            response_body=_text(output.get("body")),
            response_body_encoding="base64" if output.get("bodyEncoding") == "base64" else "text",
            started_at=meta.get("startedAt"),
            resource_type=meta.get("resourceType"),
            page_url=meta.get("pageUrl"),
        )
    return ToolCall(
        id=obj.id,
        server=meta.get("server"),
        tool=obj.name,
        arguments=dict(obj.input),
        result=obj.output,
        is_error=bool(meta.get("isError", False)),
        answered=bool(meta.get("answered", True)),
        started_at=meta.get("startedAt"),
    )


def attempt_from_calls(template: Recording | None, calls: list[Call], name: str, mode: Mode | str) -> Recording:
    """A synthetic attempt recording holding `calls` (golden replay, mutants, empty attempt)."""
    http = [c for c in calls if isinstance(c, HttpCall)]
    tools = [c for c in calls if isinstance(c, ToolCall)]
    return Recording(
        source_name=name,
        source_sha256="0" * 64,
        mode=Mode(mode),
        detected_mode=Mode(mode),
        # the template's task travels along: an answer task's golden answer, the instruction
        task=template.task.model_copy() if template is not None else AnnotatorTask(),
        http_calls=http,
        tool_calls=tools,
        dbdiff=template.dbdiff if template is not None else None,
        session=template.session if template is not None else None,
    )
