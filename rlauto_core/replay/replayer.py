"""Recorded calls played through a session as an agent that knew the task would play them: each
call's ids are the session's (learned from the session's own answers, where the recording's answer
showed the recorded id), never the recording's. Plays the golden trajectory (the scripted model,
the tests, the bench) and any recorded attempt."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlencode

from rlauto_core.checkers.outputs import output_locations
from rlauto_core.package.dataflow import id_like
from rlauto_core.recording import Call, HttpCall, Recording, ToolCall
from rlauto_core.replay.steps import EnvCall
from rlauto_core.replay.tools import HTTP_TOOL
from rlauto_core.replay.values import walk


class Replayer:
    """Translates recorded calls into a session's terms, learning its ids as answers come back."""

    def __init__(self, calls: list[Call]) -> None:
        self.calls = calls
        self.learned: dict[str, Any] = {}  # recorded value -> the session's

    def _swap(self, value: Any) -> Any:
        return walk(value, lambda _path, v: self.learned.get(str(v), v) if v is not None else v, lambda _: False)

    def call(self, index: int) -> EnvCall:
        recorded = self.calls[index]
        if isinstance(recorded, ToolCall):
            return EnvCall(name=recorded.tool, arguments=self._swap(recorded.arguments))
        path = "/".join(str(self.learned.get(s, s)) for s in recorded.path.split("/"))
        if recorded.query_string:
            pairs = parse_qsl(recorded.query_string, keep_blank_values=True)
            path += "?" + urlencode([(k, str(self.learned.get(v, v))) for k, v in pairs])
        arguments: dict[str, Any] = {"method": recorded.method, "path": path}
        body = recorded.request_body
        if body and recorded.request_body_encoding == "text":
            try:
                arguments["body"] = self._swap(json.loads(body))
            except ValueError:
                arguments["body"] = self._ndjson(body) or self._form(body)
        return EnvCall(name=HTTP_TOOL, arguments=arguments)

    def _ndjson(self, body: str) -> str | None:
        """A bulk's NDJSON (one JSON object a line) with the session's ids, or None for other text."""
        lines = [line for line in body.splitlines() if line.strip()]
        try:
            values = [json.loads(line) for line in lines]
        except ValueError:
            return None
        if not values or not all(isinstance(v, dict) for v in values):
            return None
        return "".join(json.dumps(self._swap(v), ensure_ascii=False) + "\n" for v in values)

    def _form(self, body: str) -> str:
        if "=" not in body:
            return body  # plain text: kept as sent
        pairs = parse_qsl(body, keep_blank_values=True)
        return urlencode([(k, str(self.learned.get(v, v))) for k, v in pairs]) if pairs else body

    def learn(self, index: int, answer: Any) -> None:
        """What the session's answer to call `index` shows where the recorded answer showed an id."""
        recorded = self.calls[index]
        seen = answered_call(recorded, answer)
        if seen is None:
            return
        mine = {(root, path): value for root, path, value in output_locations(seen)}
        for root, path, value in output_locations(recorded):
            theirs = mine.get((root, path))
            if theirs is None or isinstance(value, list) or str(theirs) == str(value) or not id_like(value):
                continue
            self.learned.setdefault(str(value), theirs)


def answered_call(recorded: Call, answer: Any) -> Call | None:
    """The recorded call with the session's answer in place of the recorded one."""
    if isinstance(recorded, ToolCall):
        return recorded.model_copy(update={"result": answer}) if isinstance(answer, dict) else None
    if not isinstance(answer, dict):
        return None
    body = answer.get("body")
    text = body if isinstance(body, str) or body is None else json.dumps(body)
    headers = [(str(k), str(v)) for k, v in (answer.get("headers") or {}).items()]
    return HttpCall(id=recorded.id, method=recorded.method, url=recorded.url, status=answer.get("status"),
                    response_body=text, response_headers=headers)  # fmt: skip


def golden_calls(recording: Recording, call_ids: list[str]) -> list[Call]:
    """The golden trajectory's calls, in its order, from the recording the package was made from."""
    found = {c.id: c for c in recording.calls}
    return [found[i] for i in call_ids if i in found]
