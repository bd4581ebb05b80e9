"""Small attempts and packages built from models, for checker tests."""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.package.models import Rubric, TaskPackage
from rlauto_core.recording import DbDiff, HttpCall, Mode, Recording, ToolCall


def http(cid: str, method: str, url: str, status: int = 200, body: Any = None, response: Any = None) -> HttpCall:
    return HttpCall(
        id=cid,
        method=method,
        url=url,
        status=status,
        request_headers=[("content-type", "application/json")],
        request_body=json.dumps(body) if isinstance(body, dict | list) else body,
        response_body=json.dumps(response) if isinstance(response, dict | list) else response,
    )


def tool(
    cid: str, name: str, arguments: dict[str, Any] | None = None, result: Any = None, error: bool = False
) -> ToolCall:
    return ToolCall(id=cid, tool=name, arguments=arguments or {}, result=result, is_error=error)


def changed(call: HttpCall | ToolCall, **update: Any) -> HttpCall | ToolCall:
    """A copy with fields changed, validated afresh (a model copy would keep cached url parts)."""
    return type(call).model_validate({**call.model_dump(), **update})


def attempt(*calls: HttpCall | ToolCall, dbdiff: dict[str, Any] | None = None) -> Recording:
    http_calls = [c for c in calls if isinstance(c, HttpCall)]
    tool_calls = [c for c in calls if isinstance(c, ToolCall)]
    mode = Mode.MCP if tool_calls and not http_calls else Mode.API
    return Recording(
        source_name="attempt",
        source_sha256="0" * 64,
        mode=mode,
        detected_mode=mode,
        http_calls=http_calls,
        tool_calls=tool_calls,
        dbdiff=DbDiff.model_validate(dbdiff) if dbdiff is not None else None,
    )


def package(checkers: dict[str, Any], points: dict[str, int] | None = None) -> TaskPackage:
    """One rubric per checker key (in order), each worth `points[key]` (default 1)."""
    rubrics = [
        Rubric(id=f"r{n}", title=key, max_score=(points or {}).get(key, 1), checker_key=key)
        for n, key in enumerate(checkers, start=1)
    ]
    built = TaskPackage(rubric_checkers=checkers)
    built.task.rubrics = rubrics
    return built
