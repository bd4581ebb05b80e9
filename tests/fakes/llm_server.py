"""A real OpenAI-compatible HTTP server on loopback for tests: scripted answers and faults.

Speaks `POST <any prefix>/chat/completions` and `POST <any prefix>/responses`. The ROLE of a
request is its `model` name (tests name their models `analyzer`, `judge`, `rubric`, `polish`),
or what `models` maps that name to. Each role has a list of steps consumed one per request;
the last step repeats once the list is used up. A step is a dict (JSON-ready, usable from a
script file) or, in-process only, a callable taking the `RecordedRequest` and returning a dict:

  {"json": VALUE}                 answer with VALUE serialized
  {"fenced": VALUE}               VALUE in a ```json fence between chatty sentences
  {"text": "..."}                 answer with this exact text (chatty, broken JSON...)
  {"broken": VALUE}               VALUE serialized, then truncated and given a trailing comma
  {"refusal": "..."}              a refusal (chat `message.refusal`, responses `refusal` part)
  {"echo_draft": true}            an analyzer that agrees with the draft package in its prompt
                                  (answers the draft as an AnalyzerResult; works out of process)
  {"status": 429, "retry_after": "2", "error": "..."}   an error status (any code)
  {"context_too_long": true}      400 with code context_length_exceeded
  {"drop": true}                  close the connection without answering
  {"delay": SECONDS, ...}         wait first (slower than the client's timeout), then the rest
  {"usage": {...}}                override the reported token usage
  {"tool_calls": [...], "reasoning": "..."}   tool calls and reasoning (see `llm_answers`)
  {"cut_stream": true}            a streamed answer that stops halfway (the connection closes)
  {"echo_auth": true, "status": N}  an error whose message repeats the Authorization header

A request with `"stream": true` is answered with server-sent events (chat chunks ending in
`data: [DONE]`, or Responses API events ending in `response.completed`); chat chunks carry usage
only when the request asks for it with `stream_options.include_usage`.

`reject_json_mode: [roles]` makes those roles answer 400 to any request carrying
`response_format` (chat) or `text.format` (responses), without consuming a step.
`reject_stream_options: {role: status}` makes those roles answer that status (400, 422) to any
request carrying `stream_options`, without consuming a step and without naming the parameter.

Every request is logged (path, headers, body, role, via_proxy) and counted per role. Control
endpoints for use from another process: GET /_fake/health, GET /_fake/requests,
GET /_fake/counts, GET /_fake/stats (max_in_flight), PUT /_fake/script (a script JSON), POST /_fake/reset.

Standalone: `python -m tests.fakes.llm_server --port P --script FILE` prints
`READY http://127.0.0.1:P` on stdout once it listens; the script file is
`{"roles": {ROLE: [STEP, ...]}, "models": {NAME: ROLE}, "reject_json_mode": [ROLE],
"reject_stream_options": {ROLE: STATUS}}`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.llm_answers import (
    chat_body,
    content_of,
    responses_body,
    stream_events,
    tool_calls_of,
    write_events,
)
from tests.fakes.llm_requests import RecordedRequest, analyzer_answer, draft_in

__all__ = ["FakeLlmServer", "RecordedRequest", "Step", "analyzer_answer", "draft_in"]

Step = dict[str, Any] | Callable[["RecordedRequest"], dict[str, Any]]


class _Script:
    def __init__(self) -> None:
        self.roles: dict[str, list[Step]] = {}
        self.models: dict[str, str] = {}
        self.reject_json_mode: set[str] = set()
        self.reject_stream_options: dict[str, int] = {}
        self.positions: dict[str, int] = {}

    def load(self, data: dict[str, Any]) -> None:
        self.roles = {role: list(steps) for role, steps in (data.get("roles") or {}).items()}
        self.models = dict(data.get("models") or {})
        self.reject_json_mode = set(data.get("reject_json_mode") or [])
        self.reject_stream_options = {r: int(s) for r, s in (data.get("reject_stream_options") or {}).items()}
        self.positions = {}

    def next_step(self, role: str, request: RecordedRequest) -> dict[str, Any]:
        steps = self.roles.get(role)
        if not steps:
            return {"status": 404, "error": f"fake server: no script for role/model {role!r}"}
        index = self.positions.get(role, 0)
        self.positions[role] = index + 1
        step = steps[min(index, len(steps) - 1)]
        return step(request) if callable(step) else dict(step)


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that hangs up (a cancelled run, a timed-out call) is normal here, not news
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class FakeLlmServer:
    """Start with `with FakeLlmServer() as fake:`; `fake.base_url()` is the API root."""

    def __init__(self, script: dict[str, Any] | None = None, port: int = 0) -> None:
        self._lock = threading.RLock()
        self._script = _Script()
        self._script.load(script or {})
        self._log: list[RecordedRequest] = []
        self._counts: dict[str, int] = {}
        self._in_flight = 0
        self._max_in_flight = 0
        self._generation = 0  # bumped by reset(): requests still served from before do not count
        self._stopping = threading.Event()
        self._httpd = _QuietServer(("127.0.0.1", port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def base_url(self, suffix: str = "/v1") -> str:
        return self.url + suffix

    def start(self) -> FakeLlmServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-llm", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeLlmServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection -----------------------------------------------------------
    def script(self, role: str, *steps: Step) -> None:
        with self._lock:
            self._script.roles[role] = list(steps)
            self._script.positions[role] = 0

    def load_script(self, data: dict[str, Any]) -> None:
        with self._lock:
            self._script.load(data)

    def reject_json_mode(self, *roles: str) -> None:
        with self._lock:
            self._script.reject_json_mode = set(roles)

    def reject_stream_options(self, *roles: str, status: int = 400) -> None:
        with self._lock:
            self._script.reject_stream_options = dict.fromkeys(roles, status)

    def requests(self, role: str | None = None) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._log if role is None or r.role == role]

    def calls(self, role: str) -> int:
        with self._lock:
            return self._counts.get(role, 0)

    def max_in_flight(self) -> int:
        """The most model requests this server has handled at the same time since the last reset."""
        with self._lock:
            return self._max_in_flight

    def reset(self) -> None:
        with self._lock:
            self._log.clear()
            self._counts.clear()
            self._script.positions.clear()
            self._max_in_flight = 0
            self._in_flight = 0
            self._generation += 1

    def _enter(self) -> int:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            return self._generation

    def _leave(self, generation: int) -> None:
        with self._lock:
            if generation == self._generation:  # an earlier test's slow answer ending now is not ours
                self._in_flight -= 1

    # -- serving ------------------------------------------------------------------------------
    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._log.append(request)
            self._counts[request.role] = self._counts.get(request.role, 0) + 1

    def _role_of(self, body: Any) -> str:
        model = str(body.get("model", "")) if isinstance(body, dict) else ""
        with self._lock:
            return self._script.models.get(model, model)

    def _step(self, role: str, request: RecordedRequest) -> dict[str, Any]:
        with self._lock:
            rejects = role in self._script.reject_json_mode
            stream_status = self._script.reject_stream_options.get(role)
        body = request.body if isinstance(request.body, dict) else {}
        if stream_status is not None and "stream_options" in body:
            return {"status": stream_status, "error": "Unrecognized request argument supplied"}
        asks_json = "response_format" in body or "format" in (body.get("text") or {})
        if rejects and asks_json:
            param = "response_format" if request.api == "chat" else "text.format"
            return {
                "status": 400,
                "error": f"Unsupported parameter: '{param}' is not supported",
                "param": param,
            }
        with self._lock:
            step = self._script.next_step(role, request)
        return step

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError, OSError):
                    self.close_connection = True

            def _path(self) -> tuple[str, bool]:
                if self.path.startswith(("http://", "https://")):  # absolute form: we are a proxy
                    return urlsplit(self.path).path, True
                return urlsplit(self.path).path, False

            def do_GET(self) -> None:
                path, _ = self._path()
                if path == "/_fake/health":
                    self._send_json(200, {"ok": True})
                elif path == "/_fake/requests":
                    self._send_json(200, [asdict(r) for r in server.requests()])
                elif path == "/_fake/counts":
                    with server._lock:
                        self._send_json(200, dict(server._counts))
                elif path == "/_fake/stats":
                    self._send_json(200, {"max_in_flight": server.max_in_flight()})
                else:
                    self._send_json(404, {"error": {"message": f"no route {path}"}})

            def do_PUT(self) -> None:
                path, _ = self._path()
                body = self._body()
                if path == "/_fake/script" and isinstance(body, dict):
                    server.load_script(body)
                    self._send_json(200, {"ok": True})
                else:
                    self._send_json(404, {"error": {"message": f"no route {path}"}})

            def _body(self) -> Any:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    return json.loads(raw or b"null")
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def do_POST(self) -> None:
                path, via_proxy = self._path()
                body = self._body()
                if path == "/_fake/reset":
                    server.reset()
                    self._send_json(200, {"ok": True})
                    return
                if path.endswith("/chat/completions"):
                    api = "chat"
                elif path.endswith("/responses"):
                    api = "responses"
                else:
                    self._send_json(404, {"error": {"message": f"no route {path}"}})
                    return
                request = RecordedRequest(
                    role=server._role_of(body),
                    api=api,
                    path=path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    via_proxy=via_proxy,
                )
                server._record(request)
                self._serve(api, request)

            def _serve(self, api: str, request: RecordedRequest) -> None:
                step = server._step(request.role, request)
                # In flight means thinking: the count drops before the answer is written, because a
                # client that has read its answer may send its next request before this thread
                # would get back here (a gate of 1 was seen as 2 under load).
                generation = server._enter()
                try:
                    if step.get("delay") and server._stopping.wait(float(step["delay"])):
                        return
                finally:
                    server._leave(generation)
                if step.get("drop"):
                    self.close_connection = True
                    with contextlib.suppress(OSError):
                        self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self._answer(api, request, step)

            def _answer(self, api: str, request: RecordedRequest, step: dict[str, Any]) -> None:
                if step.get("context_too_long"):
                    self._send_json(
                        400,
                        {
                            "error": {
                                "message": "This model's maximum context length is 8192 tokens",
                                "type": "invalid_request_error",
                                "code": "context_length_exceeded",
                            }
                        },
                    )
                    return
                if "status" in step:
                    headers = {"Retry-After": str(step["retry_after"])} if "retry_after" in step else {}
                    message = step.get("error", f"fake error {step['status']}")
                    if step.get("echo_auth"):  # a careless gateway repeating what it was sent
                        message += f" (received Authorization: {request.headers.get('authorization', '')})"
                    error = {"message": message, "type": "fake_error", "param": step.get("param")}
                    self._send_json(int(step["status"]), {"error": error}, headers)
                    return
                if step.get("echo_draft"):
                    try:
                        step = {"json": analyzer_answer(draft_in(request))}
                    except (ValueError, KeyError) as exc:
                        self._send_json(400, {"error": {"message": f"fake server: echo_draft: {exc}"}})
                        return
                text, refusal = content_of(step)
                usage = step.get("usage") or {
                    "prompt_tokens": len(request.prompt_text()) // 4 + 1,
                    "completion_tokens": len(text) // 4 + 1,
                }
                body = request.body if isinstance(request.body, dict) else {}
                model = str(body.get("model", ""))
                calls = tool_calls_of(step, f"call_{server.calls(request.role)}")
                if body.get("stream"):
                    events = stream_events(api, model, text, step, usage, calls, body)
                    if not write_events(self, events, cut=bool(step.get("cut_stream"))):
                        self.close_connection = True
                    return
                make = chat_body if api == "chat" else responses_body
                self._send_json(200, make(model, text, refusal, usage, calls))

        return Handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible server for tests")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--script", help="JSON script file", default=None)
    args = parser.parse_args(argv)
    script = None
    if args.script:
        with open(args.script, encoding="utf-8") as handle:
            script = json.load(handle)
    server = FakeLlmServer(script, port=args.port)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server.start()
    sys.stdout.write(f"READY {server.url}\n")
    sys.stdout.flush()
    stop.wait()
    server.stop()


if __name__ == "__main__":
    main()
