"""One session of a replay environment: calls in, answers out, state kept.

A call is answered from the recorded exchange of its route whose inputs it matches best, read in
the recording's terms (the session's ids mapped back). Performing a recorded write gives the
values that write's answer made fresh ones of the same shape; content the call wrote instead of
the recorded one shows in its answer and in later answers; a delete makes the entity missing.
A call naming an entity the session does not have (the recorded id of something the session
created anew, an id nobody showed, a deleted one) is answered as the app answers a missing one;
a call no route knows is answered as the app's unknown route or tool, and logged.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from rlauto_core.checkers.outputs import input_locations
from rlauto_core.evidence.classify import tool_is_state_changing
from rlauto_core.evidence.entities import canonical_key
from rlauto_core.package.volatile import volatile_kind
from rlauto_core.protocols import graphql
from rlauto_core.recording import Call, Header, HttpCall, ToolCall
from rlauto_core.redact import redact_body, redact_json, redact_url
from rlauto_core.replay.batches import (
    MAX_PARTS,
    PartAnswer,
    SplitRequest,
    answer_in_turn,
    is_unsplittable_bulk,
    joined_answer,
    split_request,
)
from rlauto_core.replay.fresh import FreshValues
from rlauto_core.replay.render import Renderer
from rlauto_core.replay.tools import argument_problem, tool_schemas
from rlauto_core.replay.values import SessionValues, quotable
from rlauto_core.replay.world import Exchange, World, route_for, route_of

log = logging.getLogger("rlauto.replay")

Outcome = Literal["answered", "recorded_error", "unknown", "missing", "invalid", "conflict"]
_DELETES = re.compile(r"(?i)(^|[_\s/-])(delete|remove|destroy|archive|trash)")


@dataclass
class SessionCall:
    """One call of the session as its attempt records it, and how the environment answered it."""

    call: Call
    outcome: Outcome
    exchange: str | None = None  # the recorded call it was answered from
    note: str = ""
    parts: list[Outcome] = field(default_factory=list)  # a batch's or bulk's calls, each answered alone

    @property
    def unknown(self) -> int:
        """Calls nobody recorded: this one, or the parts of a batch that are."""
        return self.parts.count("unknown") if self.parts else int(self.outcome == "unknown")


@dataclass
class HttpAnswer:
    status: int
    headers: list[Header]
    body: str | None
    encoding: Literal["text", "base64"] = "text"  # base64: binary, as the recording kept it


_Answered = tuple[HttpAnswer, Outcome, str | None, str]  # the answer, its outcome, the exchange, a note


@dataclass
class _Match:
    exchange: Exchange
    subs: dict[str, Any]  # recorded value -> the value the call sent instead (session terms)


class EnvSession:
    """The state of one session; not thread-safe (the servers hold a lock per session)."""

    def __init__(self, world: World, number: int, seed: int = 0) -> None:
        self.world = world
        self.number = number
        self.started = datetime.now(UTC)
        self.token = uuid.uuid4().hex[:6]  # names its attempt apart from any other process's session
        self.values = SessionValues()
        self.fresh = FreshValues(seed * 7919 + number, world.shown | world.known)
        self.calls: list[SessionCall] = []
        self.performed: dict[str, dict[str, Any]] = {}  # recorded write id -> what the call sent instead
        self.deleted: set[str] = set()  # recorded ids (or session-only ids) the session deleted
        self.schemas = {s.name: s for s in tool_schemas(world.recording)}

    # -- entities ------------------------------------------------------------------------------
    def has(self, recorded: Any, raw: Any) -> bool:
        """Does this session have the entity a call names? `recorded`: the value read back."""
        text = str(recorded)
        if text in self.deleted or str(raw) in self.deleted:
            return False
        if str(raw) in self.values.back:
            return True  # one the session made
        if text in self.world.made:
            return False  # the recording's own new id: this session made its own, or none
        return text in self.world.known

    def ghost(self, recorded: str) -> bool:
        """A recorded value of an entity this session never made, or deleted: not shown in lists."""
        if recorded in self.deleted:
            return True
        return recorded in self.world.made and recorded not in self.values.ids

    # -- calls ---------------------------------------------------------------------------------
    def http(self, method: str, target: str, headers: list[Header], body: str | None) -> HttpAnswer:
        started = time.perf_counter()
        method = method.upper()
        parts = urlsplit(target)
        path = parts.path or "/"
        host = self._host(parts.netloc, method, path)
        content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
        url = f"https://{host}{path}" + (f"?{parts.query}" if parts.query else "")

        def call(url: str, body: str | None) -> HttpCall:
            return HttpCall(id=f"s{len(self.calls) + 1}", method=method, url=url, request_body=body or None,
                            request_headers=[("content-type", content_type)] if content_type else [],
                            started_at=datetime.now(UTC), resource_type="fetch")  # fmt: skip

        # answered from what the agent sent (a token it sends back is checked against the one this
        # session handed out), kept as a package keeps calls: no credential reaches the attempt
        (answer, outcome, exchange, note), pieces = self._answer_request(call(url, body), headers, started)
        sent = call(redact_url(url), redact_body(body))
        sent.status, sent.response_headers, sent.response_body = answer.status, answer.headers, answer.body
        sent.response_body_encoding = answer.encoding
        sent.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self._log(sent, outcome, exchange, note, pieces)
        return answer

    def tool(self, name: str, arguments: Any) -> dict[str, Any]:
        started = time.perf_counter()
        server = self.world.recording.tool_calls[0].server if self.world.recording.tool_calls else None
        given = arguments if isinstance(arguments, dict) else {}
        asked = ToolCall(id=f"s{len(self.calls) + 1}", server=server, tool=name, arguments=given,
                         started_at=datetime.now(UTC))  # fmt: skip
        result, outcome, exchange, note = self._answer_tool(asked, arguments)
        sent = asked.model_copy(update={"arguments": redact_json(given)})  # no credential reaches the attempt
        sent.result, sent.is_error = result, bool(result.get("isError"))
        sent.duration_ms = round((time.perf_counter() - started) * 1000, 3)
        self._log(sent, outcome, exchange, note)
        return result

    def _log(
        self, call: Call, outcome: Outcome, exchange: str | None, note: str, parts: list[Outcome] | None = None
    ) -> None:
        self.calls.append(SessionCall(call, outcome, exchange, note, parts or []))
        if outcome in ("unknown", "invalid"):
            log.warning("replay session %d: %s call %s: %s", self.number, outcome, call.name, note)

    def _host(self, given: str, method: str, path: str) -> str:
        """The recorded host a path belongs to (a call to the loopback server names none)."""
        route = route_for(method, path, self.world.known)
        for exchange in self.world.routes.get(route) or self.world.endpoint(route):
            if isinstance(exchange.call, HttpCall):
                return exchange.call.host
        return given or (self.world.hosts[0] if self.world.hosts else "localhost")

    def _answer_request(self, sent: HttpCall, headers: list[Header], started: float) -> tuple[_Answered, list[Outcome]]:
        """A single call, or a batch / bulk answered part by part (batches.py), with its parts' outcomes."""
        split = split_request(sent)
        if split is not None and len(split.parts) > MAX_PARTS:
            message = f"{len(split.parts)} calls in one request: at most {MAX_PARTS}"
            return (self._http_error(413, "too_large", message), "invalid", None, message), []
        if split is not None:
            return self._answer_batch(split, headers, started)
        if is_unsplittable_bulk(sent) and any("bulk" in e.call.extra for e in self.world.exchanges):
            message = f"malformed bulk body for {sent.method} {sent.path}: NDJSON action lines expected"
            return (self._http_error(400, "bad_request", message), "invalid", None, message), []
        return self._answer_http(sent, headers), []

    def _answer_http(self, sent: HttpCall, headers: list[Header]) -> tuple[HttpAnswer, Outcome, str | None, str]:
        route = route_of(sent, self.world.known | set(self.values.back))
        candidates = self.world.routes.get(route)
        if not candidates:
            return self._unknown_http(sent, route)
        if _malformed_json(sent.request_body, candidates):
            message = f"malformed JSON body for {sent.method} {sent.path}"
            return self._http_error(400, "bad_request", message), "invalid", None, message
        match, problem = self._choose(sent, candidates)
        if problem is not None:
            status, code = (409, "conflict") if problem.startswith("stale") else (404, "not_found")
            outcome: Outcome = "conflict" if status == 409 else "missing"
            return self._http_error(status, code, problem), outcome, match.exchange.id, problem
        if_match = next((v for k, v in headers if k.lower() == "if-match"), None)
        if if_match is not None and if_match in self.values.volatile:
            message = f"precondition failed: {if_match} is not the current version"
            return self._http_error(412, "precondition_failed", message), "conflict", match.exchange.id, message
        recorded = match.exchange.call
        assert isinstance(recorded, HttpCall)
        renderer = self._perform(match)
        answer = HttpAnswer(
            status=recorded.status or 200,
            headers=renderer.headers(recorded.response_headers),
            body=renderer.body(recorded.response_body, recorded.response_body_encoding),
            encoding=recorded.response_body_encoding,
        )
        outcome = "answered" if match.exchange.succeeded else "recorded_error"
        return answer, outcome, match.exchange.id, ""

    def _unknown_http(self, sent: HttpCall, route: str) -> tuple[HttpAnswer, Outcome, str | None, str]:
        """No recorded exchange of this route: the app's unknown route, or on a GraphQL endpoint
        (whose other operations were recorded) GraphQL's own validation error."""
        endpoint = self.world.endpoint(route_for(sent.method, sent.path, self.world.known | set(self.values.back)))
        if not endpoint:
            return self._http_error(404, "not_found", f"no route {sent.method} {sent.path}"), "unknown", None, route
        if _malformed_json(sent.request_body, endpoint):
            message = f"malformed JSON body for {sent.method} {sent.path}"
            return self._http_error(400, "bad_request", message), "invalid", None, message
        operation = graphql.operation_of(sent)
        if operation is None:
            message = "no GraphQL operation in the request (a query, or a persisted query's name and hash)"
        else:
            kind = {"mutation": "Mutation", "subscription": "Subscription"}.get(operation.type or "", "Query")
            message = f'Cannot query field "{operation.label}" on type "{kind}".'
        body = {"errors": [{"message": message, "extensions": {"code": "GRAPHQL_VALIDATION_FAILED"}}], "data": None}
        answer = HttpAnswer(200, [("content-type", "application/json")], json.dumps(body, ensure_ascii=False))
        return answer, "unknown", None, route

    def _answer_batch(
        self, split: SplitRequest, headers: list[Header], started: float
    ) -> tuple[_Answered, list[Outcome]]:
        """Each call of a batch or bulk answered as if sent alone, the answers joined as the app
        joins them; the worst outcome of its parts is the request's (docs/replay.md)."""
        answered = answer_in_turn(split, lambda part: self._answer_http(part, headers), lambda got: got[0].body)
        took = round((time.perf_counter() - started) * 1000)
        parts = [PartAnswer(a.status, a.headers, a.body, note) for a, _, _, note in answered]
        joined = joined_answer(split, parts, took)
        outcomes = [outcome for _, outcome, _, _ in answered]
        outcome: Outcome = next((o for o in outcomes if o != "answered"), "answered")
        exchanges = ",".join(e or "-" for _, _, e, _ in answered)
        notes = "; ".join(
            f"part {n}: {o} {note}".rstrip() for n, (_, o, _, note) in enumerate(answered, 1) if o != "answered"
        )
        return (HttpAnswer(joined.status, joined.headers, joined.body), outcome, exchanges, notes), outcomes

    def _answer_tool(self, sent: ToolCall, arguments: Any) -> tuple[dict[str, Any], Outcome, str | None, str]:
        candidates = self.world.routes.get(sent.tool)
        if not candidates:
            return _tool_error(f"Unknown tool: {sent.tool}"), "unknown", None, sent.tool
        problem = argument_problem(self.schemas.get(sent.tool), arguments)
        if problem is not None:
            return _tool_error(f"invalid arguments for {sent.tool}: {problem}"), "invalid", None, problem
        match, missing = self._choose(sent, candidates)
        if missing is not None:
            return _tool_error(missing), "conflict" if missing.startswith("stale") else "missing", None, missing
        recorded = match.exchange.call
        assert isinstance(recorded, ToolCall)
        renderer = self._perform(match)
        result = recorded.result if isinstance(recorded.result, dict) else {"content": []}
        if "code" in result and "message" in result and "content" not in result:  # a JSON-RPC error
            result = {"content": [{"type": "text", "text": str(result["message"])}], "isError": True}
        rendered = renderer.json_value(result)
        outcome: Outcome = "answered" if match.exchange.succeeded else "recorded_error"
        return rendered, outcome, match.exchange.id, ""

    # -- matching ------------------------------------------------------------------------------
    def _choose(self, sent: Call, candidates: list[Exchange]) -> tuple[_Match, str | None]:
        """The exchange that answers `sent`, what the call sent instead of its inputs, and why the
        call cannot be answered as a success (a missing entity, a stale version), if it cannot."""
        got = {(loc.root, loc.path): loc.value for loc in input_locations(sent)}
        back = {where: self.values.recorded(value) for where, value in got.items()}
        done = set(self.performed)

        def rank(exchange: Exchange) -> tuple[int, int, int, int]:
            agree = 0
            for where in set(exchange.inputs) | set(back):
                want, have = exchange.inputs.get(where), back.get(where)
                if volatile_kind(where[1], want) is not None:
                    continue
                agree += 2 if _same(want, have) else -1
            ready = all(w.id in done for w in self.world.writes if w.position < exchange.position)
            return (agree, int(exchange.succeeded), int(ready), exchange.position if ready else -exchange.position)

        best = max(candidates, key=rank)
        subs: dict[str, Any] = {}
        problem: str | None = None
        for where, want in best.inputs.items():
            have, raw = back.get(where), got.get(where)
            if where not in back or isinstance(want, dict | list):
                continue
            kind = volatile_kind(where[1], want)
            if kind is not None and str(want) not in self.world.made:
                if kind in ("lock", "csrf") and str(raw) in self.values.volatile:
                    problem = f"stale {where[1]}: {quotable(where[1], raw)} is not the current one"
                continue
            last = where[1].rsplit(".", 1)[-1]
            # a read by a bare `id` (`issue(id: $id)`) names an entity too; a write's may be one the client made
            bare = last.lower() in ("id", "_id", "uuid") and _reads(sent)
            named = where[0] == "segment" or canonical_key(last) is not None or bare
            named_id = str(want) in self.world.known and (named or str(want) in self.world.made)
            if named_id and not self.has(have, raw):
                problem = (
                    problem
                    or f"not found: no {where[1] if where[0] != 'segment' else 'entity'} {quotable(where[1], raw)}"
                )
            if not _same(want, have):
                subs[str(want)] = raw
        return _Match(best, subs), problem

    def _perform(self, match: _Match) -> Renderer:
        """Carry out a matched exchange: its made values become the session's, its writes count."""
        exchange = match.exchange
        if exchange.succeeded:
            for value, origin in self.world.made.items():
                if origin.call_id != exchange.id:
                    continue
                if exchange.write or value not in self.values.ids:  # a handed-out cart stays the same
                    self.values.give(value, self.fresh.identifier(_typed_made(exchange, value)))
            if exchange.write:
                self.performed[exchange.id] = dict(match.subs)
                for recorded, sent in match.subs.items():
                    for (root, path), want in exchange.inputs.items():
                        if str(want) == recorded and root in ("request", "arguments"):
                            self.values.content[(path.rsplit(".", 1)[-1], recorded)] = sent
                if _DELETES.search(exchange.route.split(" ")[0] + " " + exchange.route):
                    self._delete(exchange, match.subs)
        return Renderer(self.values, self.fresh, self.ghost, set(self.world.made), dict(match.subs))

    def _delete(self, exchange: Exchange, subs: dict[str, Any]) -> None:
        for value in exchange.inputs.values():
            if str(value) in self.world.known:
                self.deleted.add(str(subs.get(str(value), value)))
                self.deleted.add(str(self.values.ids.get(str(value), value)))

    # -- errors --------------------------------------------------------------------------------
    def _http_error(self, status: int, code: str, message: str) -> HttpAnswer:
        keys = self.world.error_keys or ["error", "message"]
        body: dict[str, Any] = {}
        for key in keys:
            lowered = key.lower()
            if lowered in ("error", "code", "type"):
                body[key] = code
            elif lowered in ("message", "detail", "title", "description"):
                body[key] = message
            elif lowered in ("status", "statuscode"):
                body[key] = status
        body = body or {"error": code, "message": message}
        return HttpAnswer(status, [("content-type", "application/json")], json.dumps(body, ensure_ascii=False))


def _reads(call: Call) -> bool:
    """Is this call a read: a GET, a GraphQL query, a tool whose name or annotation says so?"""
    if isinstance(call, ToolCall):
        return not tool_is_state_changing(call)
    operations = graphql.operations(call)
    if operations:
        return not any(op.writes for op in operations)
    return call.method.upper() in ("GET", "HEAD")


def _tool_error(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return sorted(map(str, a)) == sorted(map(str, b))
    return a is not None and b is not None and str(a) == str(b)


def _typed_made(exchange: Exchange, value: str) -> Any:
    """The made value as its answer held it (an int id stays an int)."""
    from rlauto_core.checkers.outputs import output_locations

    for _, _, held in output_locations(exchange.call):
        if str(held) == value:
            return held
    return value


def _malformed_json(body: str | None, candidates: list[Exchange]) -> bool:
    """A body that is broken JSON, or plain text where the app was sent JSON."""
    if not body or not body.strip():
        return False
    if body.lstrip()[:1] in ("{", "["):
        try:
            json.loads(body)
        except (ValueError, RecursionError):
            return True
        return False
    sent_json = any(
        isinstance(e.call, HttpCall) and (e.call.request_body or "").lstrip()[:1] in ("{", "[") for e in candidates
    )
    return sent_json and "=" not in body
