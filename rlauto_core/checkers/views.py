"""What a checker sees of a call: plain JSON-like fields, bodies parsed, never headers (secrets)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.checkers.predicates import MISSING
from rlauto_core.forms import form_fields, location_fields
from rlauto_core.protocols import get_request, http_failures, operation_of, tool_failure
from rlauto_core.recording import HttpCall, Recording, ToolCall

# Bodies bigger than this are matched as text only: parsing them buys nothing for a checker.
MAX_PARSED_BODY = 2_000_000


def parse_body(body: str | None, encoding: str = "text", content_type: str | None = None) -> Any:
    """JSON when it parses, nested fields for form bodies (urlencoded or multipart), else the text
    (None stays MISSING)."""
    if body is None or body == "":
        return MISSING
    form = form_fields(body, encoding, content_type)
    if form is not None:
        return form
    if encoding == "base64":
        try:
            body = base64.b64decode(body, validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return body
    if len(body) <= MAX_PARSED_BODY:
        stripped = body.lstrip()
        if stripped[:1] in ("{", "["):
            try:
                return json.loads(body)
            except (ValueError, RecursionError):
                pass
    return body


def split_path(path: str) -> list[str]:
    return [segment for segment in path.split("/") if segment]


def match_template(template: str, path: str) -> dict[str, str] | None:
    """`/api/issues/{issueId}/comments` against a path: the named segments, or None when it differs."""
    want, got = split_path(template), split_path(path)
    if len(want) != len(got):
        return None
    params: dict[str, str] = {}
    for pattern, segment in zip(want, got, strict=True):
        if pattern.startswith("{") and pattern.endswith("}") and len(pattern) > 2:
            params[pattern[1:-1]] = segment
        elif pattern != segment:
            return None
    return params


def _query_dict(call: HttpCall) -> dict[str, Any]:
    query: dict[str, Any] = {}
    for key, value in call.query:
        if key in query:
            existing = query[key]
            query[key] = [*existing, value] if isinstance(existing, list) else [existing, value]
        else:
            query[key] = value
    return query


def result_view(result: Any) -> Any:
    """An MCP result as recorded, plus `json`: the first text content parsed, where tools put ids."""
    if not isinstance(result, dict):
        return result
    view = dict(result)
    content = result.get("content")
    if isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text" and isinstance(item.get("text"), str):
                parsed = parse_body(item["text"])
                if not isinstance(parsed, str) and parsed is not MISSING:
                    view.setdefault("json", parsed)
                    break
    return view


@dataclass
class CallView:
    """One attempt call as checker fields; `position` orders calls of both kinds in one timeline."""

    id: str
    kind: str
    name: str
    position: int
    fields: dict[str, Any] = field(default_factory=dict)

    def get(self, path: str) -> Any:
        return resolve(self.fields, path)


def request_fields(call: HttpCall) -> Any:
    """What the request sent: its parsed body, or a GraphQL GET's query as the body a POST sends."""
    graphql_get = get_request(call)
    if graphql_get is not None:
        return graphql_get
    return parse_body(call.request_body, call.request_body_encoding, call.header("content-type"))


def http_view(call: HttpCall, position: int, failure: str | None = None) -> CallView:
    """`succeeds` is the protocol's word (protocols.success), `operation` a GraphQL call's
    `{type, name}`."""
    operation = operation_of(call)
    return CallView(
        id=call.id,
        kind="http",
        name=call.name,
        position=position,
        fields={
            "method": call.method.upper(),
            "host": call.host,
            "path": call.path,
            "query": _query_dict(call),
            "request": request_fields(call),
            "status": call.status if call.status is not None else MISSING,
            "succeeds": failure is None and call.status is not None,
            "operation": operation.view() if operation is not None else MISSING,
            "response": parse_body(
                call.response_body, call.response_body_encoding, call.header("content-type", response=True)
            ),
            "location": location_fields(call) or MISSING,
        },
    )


def tool_view(call: ToolCall, position: int) -> CallView:
    return CallView(
        id=call.id,
        kind="mcp",
        name=call.tool,
        position=position,
        fields={
            "tool": call.tool,
            "server": call.server if call.server is not None else MISSING,
            "arguments": call.arguments,
            "result": result_view(call.result) if call.answered else MISSING,
            "is_error": call.is_error,
            "succeeds": tool_failure(call) is None,
        },
    )


def recording_views(recording: Recording) -> list[CallView]:
    """Every call of the attempt, HTTP and MCP, in one timeline (mode's calls first, in order)."""
    views: list[CallView] = []
    failures = http_failures(recording.http_calls)
    for call in recording.http_calls:
        views.append(http_view(call, len(views), failures.get(call.id)))
    for tool_call in recording.tool_calls:
        views.append(tool_view(tool_call, len(views)))
    return views


def resolve(value: Any, path: str) -> Any:
    """Dotted path into JSON (`message.text`, `items.0.id`); `$` or "" is the value itself.

    A key that itself holds dots (`a.b`) is found by trying the longest key first.
    """
    if path in ("", "$"):
        return value
    return _resolve(value, path.split("."))


def _resolve(value: Any, parts: list[str]) -> Any:
    if not parts:
        return value
    if isinstance(value, dict):
        for size in range(len(parts), 0, -1):
            key = ".".join(parts[:size])
            if key in value:
                found = _resolve(value[key], parts[size:])
                if found is not MISSING:
                    return found
        return MISSING
    if isinstance(value, list) and parts[0].lstrip("-").isdigit():
        index = int(parts[0])
        if -len(value) <= index < len(value):
            return _resolve(value[index], parts[1:])
    return MISSING
