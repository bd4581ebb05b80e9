"""The HTTP replay server: a package's recorded API answered on loopback by its environment.

Same paths, methods, status codes and the headers an agent acts on (content type, Location,
ETag, Link). A session starts with the server and again at `POST /__env/reset`; `POST /__env/end`
ends it (its attempt and reward.json in `--out`) and answers its reward. Concurrent sessions:
`POST /__env/sessions` opens one more and answers its number; a call naming it in the
`X-Env-Session` header is that session's, a call naming none is the default session's.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from rlauto_core.replay import Environment, EnvSession

SESSION_HEADER = "x-env-session"
MAX_BODY = 10 * 1024 * 1024  # a request body beyond this is refused (413), never read whole
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


class HttpSessions:
    """The sessions of one server: a default one, and any opened beside it."""

    def __init__(self, environment: Environment, out_dir: Path | None) -> None:
        self.environment = environment
        self.out_dir = out_dir
        self.default: EnvSession | None = environment.new_session()
        self.others: dict[int, EnvSession] = {}

    def pick(self, request: Request) -> EnvSession | None:
        named = request.headers.get(SESSION_HEADER)
        if named is None:
            if self.default is None:
                self.default = self.environment.new_session()
            return self.default
        try:
            number = int(named)
        except ValueError:
            return None
        if self.default is not None and self.default.number == number:
            return self.default
        return self.others.get(number)

    def end(self, session: EnvSession, answer: Any = None) -> dict[str, Any]:
        if session is self.default:
            self.default = None
        self.others.pop(session.number, None)
        return self.environment.end(session, answer=answer, out_dir=self.out_dir).reward_json()

    def end_all(self) -> None:
        """At shutdown: every session that did something leaves its attempt."""
        for session in [s for s in [self.default, *self.others.values()] if s is not None and s.calls]:
            self.end(session)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> bytes | None:
    """The request body, or None past MAX_BODY (read a chunk at a time: never held past it)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
        return None
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            return None
    return bytes(data)


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await _body(request)
    try:
        value = json.loads(raw or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def http_app(environment: Environment, out_dir: Path | None) -> Starlette:
    sessions = HttpSessions(environment, out_dir)

    async def reset(request: Request) -> Response:
        if sessions.default is not None:
            sessions.end(sessions.default)
        sessions.default = environment.new_session()
        return JSONResponse(environment.observation(sessions.default).model_dump(mode="json"))

    async def open_session(request: Request) -> Response:
        session = environment.new_session()
        sessions.others[session.number] = session
        return JSONResponse(environment.observation(session).model_dump(mode="json"))

    async def end(request: Request) -> Response:
        session = sessions.pick(request)
        if session is None:
            return _error(404, f"no open session {request.headers.get(SESSION_HEADER)!r}")
        answer = (await _json_body(request)).get("answer")
        return JSONResponse(sessions.end(session, answer))

    async def coverage(request: Request) -> Response:
        return JSONResponse(environment.coverage.model_dump(mode="json"))

    async def call(request: Request) -> Response:
        session = sessions.pick(request)
        if session is None:
            return _error(404, f"no open session {request.headers.get(SESSION_HEADER)!r}: POST /__env/sessions")
        raw = await _body(request)
        if raw is None:
            return _error(413, f"request body over {MAX_BODY} bytes")
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        headers = [(k, v) for k, v in request.headers.items() if k.lower() != SESSION_HEADER]
        text = raw.decode("utf-8", "replace") if raw else None
        answer = session.http(request.method, target, headers, text)
        content: bytes = (answer.body or "").encode("utf-8")
        if answer.encoding == "base64" and answer.body:
            try:
                content = base64.b64decode(answer.body)
            except (binascii.Error, ValueError):
                content = answer.body.encode("utf-8")
        kept = {k: v for k, v in answer.headers if k.lower() != "content-length"}
        return Response(content=content, status_code=answer.status, headers=kept)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        sessions.end_all()

    return Starlette(
        routes=[
            Route("/__env/reset", reset, methods=["POST"]),
            Route("/__env/sessions", open_session, methods=["POST"]),
            Route("/__env/end", end, methods=["POST"]),
            Route("/__env/coverage", coverage, methods=["GET"]),
            Route("/{path:path}", call, methods=METHODS),
        ],
        lifespan=lifespan,
    )
