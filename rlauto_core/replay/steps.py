"""A call as an agent makes it (a tool call: a name and its arguments, as an OpenAI-compatible
model writes them), and the answer it gets back from a session."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.recording import Header, Mode
from rlauto_core.replay.session import EnvSession, HttpAnswer
from rlauto_core.replay.tools import HTTP_TOOL


class EnvCall(BaseModel):
    """One tool call: an MCP tool and its arguments, or `http_request` {method, path, body, headers}."""

    name: str
    arguments: Any = Field(default_factory=dict)


def parse_call(call: Any, mode: Mode) -> EnvCall:
    """An `EnvCall` from what a caller hands `step`: an EnvCall, a model's tool call (arguments as
    JSON text), `{"name"|"tool", "arguments"}`, or for an API package `{"method", "path", ...}`."""
    if isinstance(call, EnvCall) and not isinstance(call.arguments, str):
        return call
    if isinstance(call, dict):
        if mode is Mode.API and "method" in call and "name" not in call:
            return EnvCall(name=HTTP_TOOL, arguments=call)
        name, arguments = call.get("name") or call.get("tool") or "", call.get("arguments", {})
    else:
        name, arguments = getattr(call, "name", ""), getattr(call, "arguments", {})
    if isinstance(arguments, str):
        # broken JSON is kept as text: the session answers that arguments must be an object
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    return EnvCall(name=str(name), arguments=arguments)


def answer_of(session: EnvSession, call: EnvCall) -> Any:
    if session.world.mode is Mode.MCP or call.name != HTTP_TOOL:
        return session.tool(call.name, call.arguments)
    args = call.arguments if isinstance(call.arguments, dict) else {}
    method, path = str(args.get("method") or ""), str(args.get("path") or args.get("url") or "")
    headers: list[Header] = [(str(k), str(v)) for k, v in (args.get("headers") or {}).items()] if isinstance(
        args.get("headers"), dict) else []  # fmt: skip
    body = args.get("body")
    if isinstance(body, dict | list):
        text: str | None = json.dumps(body, ensure_ascii=False)
        headers.append(("content-type", "application/json"))
    else:
        text = None if body is None else str(body)
        if text and "=" in text and not any(k.lower() == "content-type" for k, _ in headers):
            headers.append(("content-type", "application/x-www-form-urlencoded"))
    if not method or not path:
        answer = session.http(method or "GET", path or "/__missing_path__", headers, text)
    else:
        answer = session.http(method, path, headers, text)
    return http_answer_json(answer)


def http_answer_json(answer: HttpAnswer) -> dict[str, Any]:
    body: Any = answer.body
    if isinstance(body, str) and body.lstrip()[:1] in ("{", "["):
        with contextlib.suppress(ValueError):
            body = json.loads(body)
    return {"status": answer.status, "headers": dict(answer.headers), "body": body}
