"""Mutants of the recording's own writes: wrong attempts the checker generator did not choose.

The golden's mutants can only test writes the golden kept; a write the generator dropped is never
mutated there. These start from the recording itself (its strays left out) and, for every write a
rubric covers, make the wrong attempts an agent makes: the write left out, aimed at another entity
of its kind (one the recording shows, else a fresh id), replaced by another operation on the same
endpoint (another GraphQL mutation, another method or form action, another tool), or answered with
its protocol's error. Each must lose points.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from rlauto_core.evidence.classify import WRITE_VERBS, name_tokens
from rlauto_core.evidence.models import EntityRef, Evidence
from rlauto_core.judging.accounting import repeated
from rlauto_core.judging.grounding import clauses
from rlauto_core.judging.mutation import rebuilt, retarget
from rlauto_core.package.calls import attempt_from_calls
from rlauto_core.package.dataflow import input_locations, scalars
from rlauto_core.package.golden import call_target
from rlauto_core.package.models import CoveredWrite, ExcludedWrite, RecordingMutantKind
from rlauto_core.package.reach import listed_with
from rlauto_core.protocols import operation_of
from rlauto_core.recording import Call, HttpCall, Recording, ToolCall

_OPPOSITES = {
    "create": "delete", "add": "remove", "close": "reopen", "open": "close", "archive": "unarchive",
    "publish": "unpublish", "approve": "reject", "lock": "unlock", "enable": "disable", "assign": "unassign",
    "follow": "unfollow", "star": "unstar", "pin": "unpin", "merge": "close", "revoke": "restore",
    "send": "delete", "post": "delete", "update": "delete", "set": "clear", "mark": "unmark", "rotate": "revoke",
    "invite": "remove", "move": "copy", "submit": "withdraw", "cancel": "confirm", "book": "cancel",
}  # fmt: skip
_OTHER_METHOD = {"POST": "PUT", "PUT": "DELETE", "PATCH": "DELETE", "DELETE": "PATCH"}

Mutant = tuple[RecordingMutantKind, str, list[str], Recording]


def _opposite(word: str) -> str:
    """`closeIssue` -> `reopenIssue`, `create_note` -> `delete_note`: the same thing undone."""
    tokens = name_tokens(word)
    verb = next((t for t in tokens if t in _OPPOSITES), None)
    if verb is None:
        return f"delete{word[:1].upper()}{word[1:]}"
    start = word.lower().find(verb)
    swapped = _OPPOSITES[verb]
    if word[start : start + 1].isupper():
        swapped = swapped[:1].upper() + swapped[1:]
    return word[:start] + swapped + word[start + len(verb) :]


def _json_object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _other_graphql(call: HttpCall, calls: list[Call]) -> Call | None:
    operation = operation_of(call)
    if operation is None or not operation.writes:
        return None
    body = _json_object(call.request_body)
    for other in calls:  # another mutation of this endpoint the recording used, with this call's variables
        theirs = operation_of(other) if isinstance(other, HttpCall) and other.path == call.path else None
        if isinstance(other, HttpCall) and theirs is not None and theirs.writes and theirs.label != operation.label:
            payload = _json_object(other.request_body)
            if payload:
                payload["variables"] = body.get("variables", {})
                return rebuilt(call, request_body=json.dumps(payload), id=f"{call.id}-other")
    document = body.get("query")
    label = operation.label
    renamed = _opposite(label)
    if isinstance(document, str) and label in document:
        body["query"] = re.sub(rf"\b{re.escape(label)}\b", renamed, document, count=2)
    if body.get("operationName"):
        body["operationName"] = _opposite(str(body["operationName"]))
    return rebuilt(call, request_body=json.dumps(body), id=f"{call.id}-other")


def other_operation(call: Call, calls: list[Call], recording: Recording) -> tuple[Call, str] | None:
    """The same request, asking the endpoint for something else."""
    if isinstance(call, ToolCall):
        tools = [t.name for s in (recording.session.servers if recording.session else []) for t in s.tools]
        used = [c.tool for c in calls if isinstance(c, ToolCall)]
        others = [t for t in dict.fromkeys([*used, *tools]) if t != call.tool and set(name_tokens(t)) & WRITE_VERBS]
        name = others[0] if others else _opposite(call.tool)
        return rebuilt(call, tool=name, id=f"{call.id}-other"), f"{name} instead of {call.tool}"
    graphql = _other_graphql(call, calls)
    if graphql is not None:
        found = operation_of(graphql) if isinstance(graphql, HttpCall) else None
        return graphql, f"{found.label if found else 'another operation'} instead of {call.name}"
    if operation_of(call) is not None:
        return None
    segments = call.path.rstrip("/").split("/")
    if segments and segments[-1].lower() in _OPPOSITES:  # an action route: `/tickets/88/close`
        segments[-1] = _OPPOSITES[segments[-1].lower()]
        url = call.url.replace(call.path, "/".join(segments), 1)
        return rebuilt(call, url=url, id=f"{call.id}-other"), f"{segments[-1]} instead of {call.name}"
    method = _OTHER_METHOD.get(call.method.upper())
    if method is None:
        return None
    return rebuilt(call, method=method, id=f"{call.id}-other"), f"{method} instead of {call.name}"


def protocol_error(call: Call) -> Call:
    """The call answered as its protocol says a failure: a GraphQL error with a null payload, a
    JSON-RPC error, `ok: false`, a 422, a tool error."""
    if isinstance(call, ToolCall):
        return rebuilt(call, is_error=True, result={"content": [{"type": "text", "text": "failed"}], "isError": True})
    operation = operation_of(call)
    answer: Any = None
    try:
        answer = json.loads(call.response_body or "null") if call.response_body_encoding == "text" else None
    except (ValueError, RecursionError):
        answer = None
    request = (call.request_body or "").lstrip()
    if operation is not None:
        errors = [{"message": "failed", "extensions": {"code": "INTERNAL"}}]
        return rebuilt(call, status=200, response_body=json.dumps({"errors": errors, "data": {operation.label: None}}))
    if request.startswith("{") and '"jsonrpc"' in request:
        error = {"code": -32000, "message": "failed"}
        return rebuilt(call, status=200, response_body=json.dumps({"jsonrpc": "2.0", "id": 1, "error": error}))
    if isinstance(answer, dict) and ("ok" in answer or "success" in answer):
        key = "ok" if "ok" in answer else "success"
        return rebuilt(call, status=200, response_body=json.dumps({key: False, "error": "failed"}))
    return rebuilt(call, status=422, response_body=json.dumps({"error": "failed"}))


def _siblings(target: EntityRef, evidence: Evidence, recording: Recording) -> list[str]:
    """Other ids of the target's kind the recording shows (another key, another issue): listed beside
    it in an answer, else sent by another call under the same key."""
    sent = sorted({e.value for info in evidence.calls for e in info.entities if e.key == target.key} - {target.value})
    return [*listed_with(target.value, recording), *sent]


def recording_mutants(
    recording: Recording,
    evidence: Evidence,
    covered: list[CoveredWrite],
    excluded: list[ExcludedWrite],
) -> tuple[Recording, list[Mutant]]:
    """The recording as a good attempt (its strays left out), and the mutants of its covered writes."""
    strays = {w.call_id for w in excluded if w.rule == "stray"}
    calls = [c for c in recording.calls if c.id not in strays]
    base = attempt_from_calls(recording, calls, "recording", recording.mode)
    return base, list(_Mutator(recording, calls, repeated(excluded)).mutants(evidence, covered))


class _Mutator:
    """Changes one covered write of the recording, and its duplicate retries alike: one retry left
    as recorded would still do the task."""

    def __init__(self, recording: Recording, calls: list[Call], repeats: dict[str, list[str]]) -> None:
        self.recording, self.calls, self.repeats = recording, calls, repeats

    def attempt(self, write: str, change: Callable[[Call], Call | None]) -> Recording:
        same = {write, *self.repeats.get(write, [])}
        changed = [c if c.id not in same else change(c) for c in self.calls]
        kept = [c for c in changed if c is not None]
        return attempt_from_calls(self.recording, kept, "recording-mutant", self.recording.mode)

    def mutants(self, evidence: Evidence, covered: list[CoveredWrite]) -> Iterator[Mutant]:
        position = {c.id: n for n, c in enumerate(self.calls)}
        infos = {c.id: c for c in evidence.calls}
        for write in covered:
            n, info = position.get(write.call_id), infos.get(write.call_id)
            if n is None or info is None:
                continue
            call, ids, what = (
                self.calls[n],
                [write.call_id, *self.repeats.get(write.call_id, [])],
                f"{write.call_id} ({write.name})",
            )
            yield "drop", f"drop recorded write {what}", ids, self.attempt(write.call_id, lambda c: None)
            target = call_target(info, evidence.main_entity, call)
            if target is not None:
                options = _siblings(target, evidence, self.recording)
                to = options[0] if options else None
                if retarget(call, target.value, to) is not None:
                    where = f"{target.key} {to}" if to else f"a fresh {target.key}"
                    aimed = self.attempt(write.call_id, partial(_aimed, value=target.value, to=to))
                    yield "retarget", f"{what} aimed at {where}", ids, aimed
            other = other_operation(call, self.calls, self.recording)
            if other is not None:
                replaced = self.attempt(write.call_id, partial(_replaced, calls=self.calls, recording=self.recording))
                yield "other_operation", f"{write.call_id}: {other[1]}", ids, replaced
            failed = self.attempt(write.call_id, protocol_error)
            yield "protocol_error", f"{what} answered with its protocol's error", ids, failed
            stated = _stated(call, self.recording.task.instruction, target.value if target else None)
            if stated:  # what the instruction says this write sends ('Fixed in 2.4', SKU ECS-01), sent otherwise
                changed = self.attempt(write.call_id, partial(_restated, values=stated))
                shown = ", ".join(repr(v) for v in stated[:3])
                yield "wrong_content", f"{what} sends other values than the instruction's {shown}", ids, changed


def _stated(call: Call, instruction: str, target: str | None) -> list[str]:
    """The instruction's quoted strings and named values this write sends (not what it acts on)."""
    sent = {str(v) for loc in input_locations(call) for v in scalars(loc.value) if v is not None}
    return [c for c in clauses(instruction) if c in sent and c != target]


def _restated(call: Call, values: list[str]) -> Call:
    for value in values:
        call = retarget(call, value, _otherwise(value)) or call
    return call


def _otherwise(value: str) -> str:
    return str(int(value) + 1) if value.isdigit() else f"{value} (other)"


def _aimed(call: Call, value: str, to: str | None) -> Call:
    return retarget(call, value, to) or call


def _replaced(call: Call, calls: list[Call], recording: Recording) -> Call:
    found = other_operation(call, calls, recording)
    return found[0] if found is not None else call
