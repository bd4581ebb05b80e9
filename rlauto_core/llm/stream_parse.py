"""Assemble a streamed answer (server-sent events) into a `TurnReply`, for both API modes.

chat: `data: {chunk}` lines, `delta.content`, `delta.reasoning_content` (or `reasoning`),
`delta.tool_calls[]` in fragments keyed by `index`, usage in a late chunk, `data: [DONE]`.
responses: typed events (`response.output_text.delta`, `response.function_call_arguments.delta`,
`response.reasoning_summary_text.delta`, ... `response.completed` with the usage), no [DONE].
Anything that is not such a stream raises `MalformedAnswer` (the client retries it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rlauto_core.llm.tool_types import StreamDelta, ToolCall, TurnReply
from rlauto_core.llm.types import TokenUsage
from rlauto_core.llm.wire import MalformedAnswer

OnDelta = Callable[[StreamDelta], None]
_REASONING_KEYS = ("reasoning_content", "reasoning")


def sse_data(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(event name, data) per `data:` line; comments and keep-alives skipped.

    One event per data line: OpenAI-compatible servers never split a chunk over several data
    lines, and this way a server that omits the blank separator line still parses.
    """
    event = ""
    for line in lines:
        if not line:
            event = ""
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value.strip()
        elif name == "data":
            yield event, value


def _object(data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except json.JSONDecodeError as exc:
        raise MalformedAnswer(f"stream event is not JSON ({exc.msg}): {data[:120]!r}") from None
    if not isinstance(value, dict):
        raise MalformedAnswer(f"stream event is not a JSON object: {data[:120]!r}")
    return value


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _usage(data: dict[str, Any], prompt_key: str, completion_key: str) -> TokenUsage:
    prompt, completion = _int(data.get(prompt_key)), _int(data.get(completion_key))
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=_int(data.get("total_tokens")) or prompt + completion,
        calls=1,
    )


class _Answer:
    """The parts of one answer as they arrive."""

    def __init__(self, on_delta: OnDelta | None, keep_reasoning: int) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.reasoning_chars = 0
        self.keep_reasoning = keep_reasoning
        self.calls: dict[Any, dict[str, str]] = {}
        self.usage: TokenUsage | None = None
        self.finish: str | None = None
        self.model = ""
        self.ended = False
        self.on_delta = on_delta

    def add_text(self, text: str) -> None:
        if text:
            self.text.append(text)
            if self.on_delta:
                self.on_delta(StreamDelta(kind="content", text=text))

    def add_reasoning(self, text: str) -> None:
        if not text:
            return
        # kept for display only, and bounded: a runaway reasoning stream must not fill memory
        room = self.keep_reasoning - self.reasoning_chars
        if room > 0:
            self.reasoning.append(text[:room])
            self.reasoning_chars += min(room, len(text))
        if self.on_delta:
            self.on_delta(StreamDelta(kind="reasoning", text=text))

    def call(self, key: Any) -> dict[str, str]:
        return self.calls.setdefault(key, {"id": "", "name": "", "arguments": ""})

    def reply(self) -> TurnReply:
        calls = [
            ToolCall(id=c["id"] or f"call_{n}", name=c["name"], arguments=c["arguments"])
            for n, c in enumerate(self.calls.values(), start=1)
            if c["name"] or c["arguments"]
        ]
        return TurnReply(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=calls,
            usage=self.usage or TokenUsage(calls=1),
            usage_reported=self.usage is not None,
            model=self.model,
            finish_reason=self.finish,
        )


def parse_stream(
    api_mode: str, lines: Iterable[str], on_delta: OnDelta | None = None, keep_reasoning: int = 6000
) -> TurnReply:
    answer = _Answer(on_delta, keep_reasoning)
    seen = False
    for event, data in sse_data(lines):
        if data.strip() == "[DONE]":
            answer.ended = True
            break
        seen = True
        chunk = _object(data)
        if api_mode == "responses":
            _responses_event(answer, chunk.get("type") or event, chunk)
        else:
            _chat_chunk(answer, chunk)
        if answer.ended and api_mode == "responses":
            break
    if not seen:
        raise MalformedAnswer("the stream carried no answer")
    if not answer.ended and answer.finish is None:
        raise MalformedAnswer("the stream ended before the answer was complete")
    return answer.reply()


def _chat_chunk(answer: _Answer, chunk: dict[str, Any]) -> None:
    error = chunk.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else error
        raise MalformedAnswer(f"the endpoint reported an error mid-stream: {str(message)[:200]}")
    if isinstance(chunk.get("model"), str) and chunk["model"]:
        answer.model = chunk["model"]
    if isinstance(chunk.get("usage"), dict):
        answer.usage = _usage(chunk["usage"], "prompt_tokens", "completion_tokens")
    choices = chunk.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return
    choice = choices[0]
    if isinstance(choice.get("finish_reason"), str):
        answer.finish = choice["finish_reason"]
    delta = _dict(choice.get("delta"))
    content = delta.get("content")
    if isinstance(content, str):
        answer.add_text(content)
    for key in _REASONING_KEYS:
        if isinstance(delta.get(key), str):
            answer.add_reasoning(delta[key])
            break
    for fragment in delta.get("tool_calls") or []:
        if isinstance(fragment, dict):
            _chat_tool_fragment(answer, fragment)


def _chat_tool_fragment(answer: _Answer, fragment: dict[str, Any]) -> None:
    index = fragment.get("index")
    if not isinstance(index, int):
        # gateways that omit `index`: a new id starts a call, a fragment without one continues the last
        given = fragment.get("id")
        match = next((k for k, c in answer.calls.items() if given and c["id"] == given), None)
        if match is not None:
            index = match
        elif given or not answer.calls:
            index = len(answer.calls)
        else:
            index = list(answer.calls)[-1]
    call = answer.call(index)
    if isinstance(fragment.get("id"), str) and fragment["id"]:
        call["id"] = fragment["id"]
    function = _dict(fragment.get("function"))
    if isinstance(function.get("name"), str):
        call["name"] += function["name"]
    if isinstance(function.get("arguments"), str):
        call["arguments"] += function["arguments"]


def _responses_event(answer: _Answer, kind: str, event: dict[str, Any]) -> None:
    if kind == "response.output_text.delta":
        answer.add_text(str(event.get("delta") or ""))
    elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
        answer.add_reasoning(str(event.get("delta") or ""))
    elif kind in ("response.output_item.added", "response.output_item.done"):
        item = _dict(event.get("item"))
        if item.get("type") == "function_call":
            call = answer.call(event.get("output_index", item.get("id")))
            call["id"] = str(item.get("call_id") or item.get("id") or call["id"])
            call["name"] = str(item.get("name") or call["name"])
            if kind.endswith(".done") or item.get("arguments"):
                call["arguments"] = str(item.get("arguments") or call["arguments"])
    elif kind == "response.function_call_arguments.delta":
        answer.call(event.get("output_index", event.get("item_id")))["arguments"] += str(event.get("delta") or "")
    elif kind == "response.function_call_arguments.done":
        answer.call(event.get("output_index", event.get("item_id")))["arguments"] = str(event.get("arguments") or "")
    elif kind in ("response.completed", "response.incomplete"):
        response = _dict(event.get("response"))
        if isinstance(response.get("usage"), dict):
            answer.usage = _usage(response["usage"], "input_tokens", "output_tokens")
        answer.model = str(response.get("model") or answer.model)
        answer.finish = str(response.get("status") or kind.rsplit(".", 1)[1])
        answer.ended = True
    elif kind in ("response.failed", "error"):
        response = _dict(event.get("response"))
        error = response.get("error") or event.get("error") or event.get("message") or "unknown error"
        message = error.get("message") if isinstance(error, dict) else error
        raise MalformedAnswer(f"the endpoint reported a failed response: {str(message)[:200]}")
