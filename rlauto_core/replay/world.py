"""What the recording knows, read once per environment: the recorded exchanges by route, the ids
the server made and which call made them, the ids that exist, the writes, the app's error shape.

A route is an HTTP method and path with its id segments generalised (`POST /v2/projects/web/
issues/{}`), or an MCP tool. Each route keeps its recorded exchanges in order; a session answers a
call from the exchange of its route whose inputs it matches best (session.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.checkers.outputs import input_locations, output_locations, scalars
from rlauto_core.checkers.views import split_path
from rlauto_core.evidence import Evidence, build_evidence
from rlauto_core.package.dataflow import Origin, id_like, invented_values
from rlauto_core.package.models import TaskPackage
from rlauto_core.package.volatile import handed_out, volatile_kind
from rlauto_core.protocols import graphql
from rlauto_core.recording import Call, Mode, Recording, ToolCall

SLOT = "{}"


def route_of(call: Call, known: set[str]) -> str:
    """`METHOD /path` with id-like or known-id segments as `{}`, and a GraphQL operation's root
    field after it (`POST /graphql issueUpdate`: one endpoint, many actions); an MCP call's route
    is its tool."""
    if isinstance(call, ToolCall):
        return call.tool
    route = route_for(call.method, call.path, known)
    operation = graphql.operation_of(call)
    return f"{route} {operation.label}" if operation is not None else route


_API_VERSION = re.compile(r"^v\d+(\.\d+)?$")  # `/v2/...`: part of the route, not an id
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def route_for(method: str, path: str, known: set[str]) -> str:
    segments = [SLOT if not _API_VERSION.match(s) and (s in known or id_like(s)) else s for s in split_path(path)]
    return f"{method.upper()} /{'/'.join(segments)}"


@dataclass
class Exchange:
    """One recorded call and its answer; `inputs` are the values it sent, by (root, path)."""

    call: Call
    position: int
    route: str
    inputs: dict[tuple[str, str], Any]
    write: bool  # a successful state-changing call
    succeeded: bool

    @property
    def id(self) -> str:
        return self.call.id


def _succeeded(call: Call) -> bool:
    if isinstance(call, ToolCall):
        return call.answered and not call.is_error
    return call.status is not None and 100 <= call.status < 400 and call.status != 101


@dataclass
class World:
    """The recording as an environment sees it (built by `World.of`)."""

    package: TaskPackage
    recording: Recording
    evidence: Evidence
    exchanges: list[Exchange]
    routes: dict[str, list[Exchange]]
    made: dict[str, Origin]  # server-made value -> the call whose answer made it
    known: set[str]  # every id-like value the recording shows (answers and requests)
    shown: set[str]  # every scalar the recording shows, as text: fresh values avoid them
    writes: list[Exchange] = field(default_factory=list)
    error_keys: list[str] = field(default_factory=list)  # the app's own error body keys
    hosts: list[str] = field(default_factory=list)

    @property
    def mode(self) -> Mode:
        return self.recording.mode

    @classmethod
    def of(cls, package: TaskPackage, recording: Recording) -> World:
        evidence = build_evidence(recording)
        golden = {step.call_id for step in package.golden_trajectory}
        made = {**handed_out(recording, evidence, golden), **invented_values(recording, evidence)}
        # a total the server computed is first seen in a write's answer too, but it is no id
        # URLs a write answered (`"url": ".../issues/128"`) are made of ids: renamed where the ids are
        made = {
            v: o
            for v, o in made.items()
            if "total" not in {volatile_kind(p, v) for p in o.path.split(".")}
            and "/" not in v
            and not _ISO_TIME.match(v)
            and not _http_status(o.path, v)
        }
        infos = {c.id: c for c in evidence.calls}
        known: set[str] = set(made)
        shown: set[str] = set()
        for call in recording.calls:
            for _, _, value in output_locations(call):
                for single in scalars(value):
                    shown.add(str(single))
                    if id_like(single):
                        known.add(str(single))
            for loc in input_locations(call):
                shown.update(str(v) for v in scalars(loc.value))
        exchanges: list[Exchange] = []
        for position, call in enumerate(recording.calls):
            if isinstance(call, ToolCall) and not call.answered:
                continue  # a call nobody answered tells nothing about the answer
            info = infos.get(call.id)
            ok = _succeeded(call)
            inputs = {(loc.root, loc.path): loc.value for loc in input_locations(call)}
            write = bool(info is not None and info.state_changing and ok)
            exchanges.append(Exchange(call, position, route_of(call, known), inputs, write, ok))
        routes: dict[str, list[Exchange]] = {}
        for exchange in exchanges:
            routes.setdefault(exchange.route, []).append(exchange)
        hosts = _hosts(recording, golden)
        return cls(package, recording, evidence, exchanges, routes, made, known, shown,
                   [e for e in exchanges if e.write], _error_keys(recording), hosts)  # fmt: skip

    def creator(self, value: Any) -> str | None:
        origin = self.made.get(str(value))
        return origin.call_id if origin is not None else None

    def endpoint(self, route: str) -> list[Exchange]:
        """The exchanges of every operation of a GraphQL endpoint (`POST /graphql`): its routes
        are `POST /graphql OPERATION`."""
        return [e for e in self.exchanges if e.route.startswith(route + " ")]

    def exchange(self, call_id: str) -> Exchange | None:
        return next((e for e in self.exchanges if e.id == call_id), None)


_STATUS_KEYS = frozenset({"status", "statuscode", "status_code", "httpstatus"})


def _http_status(path: str, value: str) -> bool:
    """An HTTP status in an answer's body (a bulk item's `"status": 200`): protocol, never an id."""
    return path.rsplit(".", 1)[-1].lower() in _STATUS_KEYS and value.isdigit() and 100 <= int(value) <= 599


def _hosts(recording: Recording, golden: set[str]) -> list[str]:
    """The hosts of the recording, those of the golden trajectory first (where the API lives)."""
    ordered: dict[str, int] = {}
    for call in recording.http_calls:
        ordered.setdefault(call.host, 0)
        if call.id in golden:
            ordered[call.host] += 1
    return sorted(ordered, key=lambda h: -ordered[h])


def _error_keys(recording: Recording) -> list[str]:
    """The keys of the app's own JSON error answers (`{"error", "message", "traceId"}`), first seen."""
    for call in recording.http_calls:
        if call.status is not None and call.status >= 400 and call.response_body:
            try:
                body = json.loads(call.response_body)
            except ValueError:
                continue
            if isinstance(body, dict) and body:
                return [str(k) for k in body]
    return []
