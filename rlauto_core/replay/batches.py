"""Requests an agent sends that carry several calls: a batched GraphQL POST (a JSON array of
operations), a search engine's `_bulk` (NDJSON action lines) and a JSON batch of HTTP
sub-requests (Salesforce composite, Graph `$batch`), whose later parts name the ids earlier ones
made (`@{newAccount.id}`), so its parts are answered in turn.

The recording was split on import into the calls such a request stands for
(`rlauto_core.protocols.batches`), so the environment knows the single operations and document
calls, not the batch. A batch is split the same way, each part answered by the session as if sent
alone, and the answers joined the way the app joins them: a GraphQL batch answers the array of
its operations' answers, a bulk answers `{"took", "errors", "items"}` with one item per action.
The session keeps the request whole in its attempt, so the attempt is what the agent sent, and
importing it splits it again into calls with their own answers, as a live recording would be.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from rlauto_core.protocols import bulk, graphql, subrequests
from rlauto_core.protocols.jsontext import json_value
from rlauto_core.recording import HttpCall

BatchKind = Literal["graphql", "bulk", "subrequests"]
T = TypeVar("T")
# each part is a call of its own to answer: a request carrying more is refused (413), as servers
# cap batch sizes; the recording's own batches are far below it
MAX_PARTS = 1000


@dataclass
class SplitRequest:
    """A request that carries several calls, as the calls it stands for."""

    kind: BatchKind
    parts: list[HttpCall]


@dataclass
class PartAnswer:
    status: int
    headers: list[tuple[str, str]]
    body: str | None
    note: str = ""  # why the session could not do it, when it could not


def split_request(call: HttpCall) -> SplitRequest | None:
    """The calls a batched GraphQL POST or a bulk request stands for; None for any other call."""
    if graphql.is_batch(call):
        parts = graphql.split_call(call)
        return SplitRequest("graphql", parts) if len(parts) > 1 else None
    if bulk.is_bulk(call):
        parts = bulk.split_call(call)
        if len(parts) > 1 or (len(parts) == 1 and parts[0] is not call):
            return SplitRequest("bulk", parts)
    if subrequests.is_subrequest_batch(call):
        return SplitRequest("subrequests", subrequests.split_call(call))
    return None


def answer_in_turn(split: SplitRequest, answer: Callable[[HttpCall], T], body_of: Callable[[T], str | None]) -> list[T]:
    """Each part answered as if sent alone, in order; a sub-request's `@{reference.id}` filled from
    what the earlier parts were answered."""
    if split.kind != "subrequests":
        return [answer(part) for part in split.parts]
    made: dict[str, Any] = {}
    answered: list[T] = []
    for part in split.parts:
        got = answer(subrequests.with_references(part, made))
        reference = part.extra.get("subrequests", {}).get("reference")
        if reference is not None:
            made[str(reference)] = json_value(body_of(got))
        answered.append(got)
    return answered


def joined_answer(split: SplitRequest, answers: list[PartAnswer], took_ms: int) -> PartAnswer:
    if split.kind == "graphql":
        return _graphql_answer(answers)
    if split.kind == "subrequests":
        return _subrequests_answer(split.parts, answers)
    return _bulk_answer(split.parts, answers, took_ms)


def _subrequests_answer(parts: list[HttpCall], answers: list[PartAnswer]) -> PartAnswer:
    """200 with one result per sub-request, in the app's own shape, each with its own status."""
    items: list[dict[str, Any]] = []
    key = str(parts[0].extra.get("subrequests", {}).get("answers") or "compositeResponse")
    for part, answer in zip(parts, answers, strict=True):
        reference = part.extra.get("subrequests", {}).get("reference")
        headers = dict(answer.headers)
        if key == "responses":  # Graph: by the request's id
            items.append(
                {"id": reference, "status": answer.status, "headers": headers, "body": json_value(answer.body)}
            )
        elif key == "results":  # Salesforce composite batch
            items.append({"statusCode": answer.status, "result": json_value(answer.body)})
        else:
            items.append({"body": json_value(answer.body), "httpHeaders": headers, "httpStatusCode": answer.status,
                          "referenceId": reference})  # fmt: skip
    body: dict[str, Any] = {key: items}
    if key == "results":
        body = {"hasErrors": any(a.status >= 400 for a in answers), **body}
    return PartAnswer(200, [("content-type", "application/json")], json.dumps(body, ensure_ascii=False))


def _graphql_answer(answers: list[PartAnswer]) -> PartAnswer:
    """The array of the operations' answers; an answer that is no JSON becomes a GraphQL error."""
    items: list[Any] = []
    for answer in answers:
        parsed = json_value(answer.body)
        items.append(parsed if parsed is not None else {"errors": [{"message": (answer.body or "")[:500]}]})
    statuses = {a.status for a in answers}
    status = statuses.pop() if len(statuses) == 1 else 200  # mixed outcomes: the batch itself was served
    headers = [(k, v) for k, v in answers[0].headers if k.lower() == "content-type"] or [
        ("content-type", "application/json")
    ]
    return PartAnswer(status, headers, json.dumps(items, ensure_ascii=False, separators=(",", ":")))


def _action(part: HttpCall) -> str:
    path = part.path
    if part.method.upper() == "DELETE":
        return "delete"
    if "/_update/" in path:
        return "update"
    if "/_create/" in path:
        return "create"
    return "index"


def _target(part: HttpCall) -> tuple[str | None, str | None]:
    """(index, document id) of a document call `bulk.split_call` made."""
    segments = [s for s in part.path.split("/") if s]
    for marker in ("_update", "_create", "_doc"):
        if marker in segments:
            at = segments.index(marker)
            index = segments[at - 1] if at > 0 else None
            doc_id = segments[at + 1] if at + 1 < len(segments) else None
            return index, doc_id
    return None, None


def _bulk_item(part: HttpCall, answer: PartAnswer) -> dict[str, Any]:
    """`{action: result}`: the recorded item as it was (it carries its `status`), or the document
    API's answer made an item (`_index`, `_id`, `status`, and `error` when it failed)."""
    parsed = json_value(answer.body)
    index, doc_id = _target(part)
    if isinstance(parsed, dict) and isinstance(parsed.get("status"), int) and ("_id" in parsed or "_index" in parsed):
        result: dict[str, Any] = parsed  # a recorded bulk item
    elif answer.status < 300:
        result = {
            "_index": index,
            "_id": doc_id,
            **(parsed if isinstance(parsed, dict) else {}),
            "status": answer.status,
        }
    else:
        error: Any = parsed.get("error") if isinstance(parsed, dict) and "error" in parsed else parsed
        if not isinstance(error, dict):
            reason = (parsed.get("message") if isinstance(parsed, dict) else None) or answer.note or answer.body
            error = {"type": str(error or "error"), "reason": str(reason or "")[:500]}
        result = {"_index": index, "_id": doc_id, "status": answer.status, "error": error}
    return {_action(part): result}


def _bulk_answer(parts: list[HttpCall], answers: list[PartAnswer], took_ms: int) -> PartAnswer:
    items = [_bulk_item(p, a) for p, a in zip(parts, answers, strict=True)]
    failed = any(int(next(iter(i.values())).get("status") or 0) >= 300 for i in items)
    body = {"took": took_ms, "errors": failed, "items": items}
    return PartAnswer(200, [("content-type", "application/json")], json.dumps(body, ensure_ascii=False))


def is_unsplittable_bulk(call: HttpCall) -> bool:
    """A bulk request whose body is no well-formed NDJSON of action lines (the app answers 400)."""
    return bulk.is_bulk(call) and split_request(call) is None
