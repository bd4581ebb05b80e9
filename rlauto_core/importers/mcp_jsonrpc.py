"""JSON-RPC 2.0 `tools/call` requests paired with their responses, whatever wrote them.

One `Pairing` serves every capture that carries JSON-RPC messages: plain message logs and
{direction, timestamp, message} envelopes, recorder cassettes, Inspector exports and client log
lines. Call ids are the request's `id` as a string (formats.md section 5); an id reused after
its call was answered (a reconnect) becomes `7~2`. Requests are matched per server, since a
client log of several servers repeats ids, and per side when the capture says who sent each
message (`sender`): the server's own requests (roots/list, sampling) number from 0 as well.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from rlauto_core.errors import RecordingError
from rlauto_core.importers.jsonload import check_shape, expect_dict, optional_str, type_name
from rlauto_core.importers.timestamps import parse_timestamp
from rlauto_core.recording import ImportNote, ToolCall

Sender = Literal["client", "server"] | None
_Scope = tuple[str, str, str]  # (server, who sent the request, request id)
_OTHER_SIDE: dict[Sender, str] = {"client": "server", "server": "client", None: ""}


def _requester(sender: Sender) -> str:
    return sender or ""


class Pairing:
    """Feed messages in recorded order; read `calls` and `notes()` at the end."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.calls: list[ToolCall] = []
        self._pending: dict[_Scope, tuple[ToolCall, datetime | None]] = {}
        self._other: set[_Scope] = set()
        self._used: set[str] = set()
        self._orphans: list[str] = []
        self._cut: list[str] = []

    def message(
        self,
        message: Any,
        where: str,
        *,
        server: str | None = None,
        timestamp: datetime | None = None,
        duration_ms: float | None = None,
        sender: Sender = None,
    ) -> ToolCall | None:
        """One JSON-RPC message (request, notification or response); returns the call it opened."""
        message = expect_dict(message, self.file, where)
        key = self._key(message.get("id"), where)
        method = message.get("method")
        if method is not None:
            if not isinstance(method, str):
                raise RecordingError(self.file, f"{where}: method must be a string, got {type_name(method)}")
            if key is None:
                return None  # a notification: nothing answers it
            return self.request(method, key, message.get("params"), where, server, timestamp, sender)
        if "result" in message or "error" in message:
            self.response(key, message, where, server, timestamp, duration_ms, sender)
            return None
        raise RecordingError(self.file, f"{where}: neither a request nor a response: {json.dumps(message)[:80]}")

    def request(
        self,
        method: str,
        key: str,
        params: Any,
        where: str,
        server: str | None,
        timestamp: datetime | None,
        sender: Sender = None,
    ) -> ToolCall | None:
        scope = (server or "", _requester(sender), key)
        if method != "tools/call" or sender == "server":
            self._other.add(scope)
            return None
        params = expect_dict(params or {}, self.file, f"{where}.params")
        tool = params.get("name")
        if not isinstance(tool, str) or not tool:
            raise RecordingError(self.file, f'{where}: tools/call request {key} has no "name"')
        arguments = expect_dict(params.get("arguments") or {}, self.file, f"{where}.params.arguments")
        check_shape(arguments, self.file, f"{where}.params.arguments")
        call = ToolCall(
            id=unique_id(key, self._used),
            server=server,
            tool=tool,
            arguments=arguments,
            answered=False,
            started_at=timestamp,
        )
        self.calls.append(call)
        self._pending[scope] = (call, timestamp)
        return call

    def response(
        self,
        key: str | None,
        message: dict[str, Any],
        where: str,
        server: str | None = None,
        timestamp: datetime | None = None,
        duration_ms: float | None = None,
        sender: Sender = None,
    ) -> None:
        if key is None:
            if "error" in message:
                # JSON-RPC answers a request it could not read with `"id": null`
                self._orphans.append("null")
                return
            raise RecordingError(self.file, f"{where}: a response without an id")
        scope = (server or "", _OTHER_SIDE[sender], key)
        if scope in self._other:
            self._other.discard(scope)
            return
        if scope not in self._pending:
            self._orphans.append(key)  # the capture began after the request was sent
            return
        call, started = self._pending.pop(scope)
        is_error = "error" in message
        result = message.get("error") if is_error else message.get("result")
        check_shape(result, self.file, f"{where}.result")
        call.result = result
        call.answered = True
        call.is_error = is_error or (isinstance(result, dict) and bool(result.get("isError")))
        if duration_ms is not None:
            call.duration_ms = duration_ms
        elif started is not None and timestamp is not None:
            call.duration_ms = (timestamp - started).total_seconds() * 1000

    def cut_response(
        self, key: str | None, server: str | None, timestamp: datetime | None, sender: Sender = "server"
    ) -> None:
        """A response whose text the client's logger cut: the call stays, its result is unknown."""
        scope = (server or "", _OTHER_SIDE[sender], key or "")
        if key is None or scope in self._other or scope not in self._pending:
            self._other.discard(scope)
            return
        call, started = self._pending.pop(scope)
        call.answered = True
        call.extra["result_cut"] = True
        if started is not None and timestamp is not None:
            call.duration_ms = (timestamp - started).total_seconds() * 1000
        self._cut.append(call.id)

    def other_request(self, key: str | None, server: str | None, sender: Sender = "client") -> None:
        """A request that is not a tools/call (read from a cut line): its response is expected."""
        if key is not None:
            self._other.add((server or "", _requester(sender), key))

    def notes(self) -> list[ImportNote]:
        notes = [orphan_note(self.file, self._orphans)] if self._orphans else []
        if self._cut:
            notes.append(
                ImportNote(
                    code="results_cut",
                    file=self.file,
                    message=(
                        f"the client's log cut the result of {len(self._cut)} call(s) "
                        f"({', '.join(self._cut[:20])}): their results are unknown"
                    ),
                    ids=list(self._cut),
                )
            )
        return notes

    def _key(self, raw_id: Any, where: str) -> str | None:
        if raw_id is None:
            return None
        if isinstance(raw_id, (bool, dict, list, float)):
            raise RecordingError(self.file, f"{where}: id must be a string or an integer, got {type_name(raw_id)}")
        return str(raw_id)


def orphan_note(file: str, ids: list[str]) -> ImportNote:
    shown = ", ".join(ids[:20]) + (" …" if len(ids) > 20 else "")
    return ImportNote(
        code="orphan_responses",
        file=file,
        message=(
            f"{len(ids)} response(s) answer no request in the capture (ids {shown}): "
            "it began mid-session; the calls before it are not in the recording"
        ),
        ids=list(ids),
    )


def unique_id(key: str, used: set[str]) -> str:
    """`key`, or `key~2`, `key~3`... when a reconnect (or an appended log) reused it."""
    call_id = key
    suffix = 2
    while call_id in used:
        call_id = f"{key}~{suffix}"
        suffix += 1
    used.add(call_id)
    return call_id


def import_jsonrpc_log(items: list[Any], file: str) -> tuple[list[ToolCall], list[ImportNote]]:
    """Bare messages, or envelopes {direction, timestamp, server?, message, response?, duration?}.

    An envelope holding both `message` and `response` (the MCP Inspector's history export) is a
    request answered in place; its `duration` (ms) is used when present."""
    pairing = Pairing(file)
    for number, item in enumerate(items):
        where = f"message {number}"
        item = expect_dict(item, file, where)
        if "message" not in item or "jsonrpc" in item:
            pairing.message(item, where)
            continue
        timestamp = parse_timestamp(item.get("timestamp"), file, f"{where}.timestamp")
        server = optional_str(item.get("server"), file, f"{where}.server")
        origin = item.get("origin")
        sender: Sender = origin if origin == "client" or origin == "server" else None
        call = pairing.message(item["message"], f"{where}.message", server=server, timestamp=timestamp, sender=sender)
        answer = item.get("response")
        if answer is not None:
            answer = expect_dict(answer, file, f"{where}.response")
            duration = _duration(item.get("duration"), file, f"{where}.duration")
            answerer: Sender = None if sender is None else ("server" if sender == "client" else "client")
            pairing.message(
                answer, f"{where}.response", server=server, timestamp=timestamp, duration_ms=duration, sender=answerer
            )
        if call is not None and item.get("clientError"):
            # the Inspector's client refused a well-formed response: the call failed for the agent
            call.is_error = True
            call.extra["clientError"] = optional_str(item.get("clientError"), file, f"{where}.clientError")
    return pairing.calls, pairing.notes()


def looks_like_jsonrpc_log(items: list[Any]) -> bool:
    return any(isinstance(item, dict) and ("jsonrpc" in item or "message" in item) for item in items[:50])


def _duration(value: Any, file: str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordingError(file, f"{where} must be a number of milliseconds, got {type_name(value)}")
    return float(value)
