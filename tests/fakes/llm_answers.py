"""Answer bodies of the fake model server: whole JSON answers and streamed (SSE) ones.

A step may carry, besides its text (see `llm_server`):
  {"tool_calls": [{"name": N, "arguments": {...}} | {"name": N, "arguments_raw": "{broken"}]}
  {"reasoning": "..."}            reasoning deltas (chat `reasoning_content`, responses summary)
Streamed answers split text, reasoning and tool arguments into several events, as real
endpoints do, so the client's assembly is exercised.
"""

from __future__ import annotations

import json
import socket
from http.server import BaseHTTPRequestHandler
from typing import Any


def content_of(step: dict[str, Any]) -> tuple[str, str | None]:
    if "json" in step:
        return json.dumps(step["json"], ensure_ascii=False), None
    if "fenced" in step:
        body = json.dumps(step["fenced"], ensure_ascii=False, indent=2)
        return (
            f"Sure! Here is the result you asked for:\n```json\n{body}\n```\nLet me know if you need more.",
            None,
        )
    if "broken" in step:
        whole = json.dumps(step["broken"], ensure_ascii=False)
        return whole[:-1].rstrip() + ",", None  # drop the last bracket, leave a trailing comma
    if "refusal" in step:
        return "", str(step["refusal"])
    return str(step.get("text", "")), None


def tool_calls_of(step: dict[str, Any], prefix: str) -> list[tuple[str, str, str]]:
    """(id, name, arguments text) of each scripted call."""
    out = []
    for n, call in enumerate(step.get("tool_calls") or [], start=1):
        raw = call["arguments_raw"] if "arguments_raw" in call else json.dumps(call.get("arguments", {}))
        out.append((str(call.get("id") or f"{prefix}_{n}"), str(call["name"]), str(raw)))
    return out


def _numbers(usage: dict[str, Any]) -> tuple[int, int]:
    return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))


def chat_body(
    model: str, text: str, refusal: str | None, usage: dict[str, Any], calls: list[tuple[str, str, str]]
) -> dict[str, Any]:
    prompt, completion = _numbers(usage)
    message: dict[str, Any] = {"role": "assistant", "content": None if refusal else text, "refusal": refusal}
    if calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def responses_body(
    model: str, text: str, refusal: str | None, usage: dict[str, Any], calls: list[tuple[str, str, str]]
) -> dict[str, Any]:
    prompt, completion = _numbers(usage)
    part = {"type": "refusal", "refusal": refusal} if refusal else {"type": "output_text", "text": text}
    output: list[dict[str, Any]] = [
        {"type": "reasoning", "summary": []},
        {"type": "message", "role": "assistant", "content": [part]},
    ]
    output += [{"type": "function_call", "call_id": i, "name": n, "arguments": a} for i, n, a in calls]
    return {
        "id": "resp-fake",
        "object": "response",
        "status": "completed",
        "model": model,
        "output": output,
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion},
    }


def _pieces(text: str, parts: int = 3) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // parts))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def chat_stream(
    model: str,
    text: str,
    reasoning: str,
    usage: dict[str, Any] | None,
    calls: list[tuple[str, str, str]],
) -> list[bytes]:
    """Chunks of a streamed chat completion; `usage` is None when the request did not ask for it."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _sse({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": piece}) for piece in _pieces(reasoning)]
    out += [chunk({"content": piece}) for piece in _pieces(text)]
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        out.append(chunk({"tool_calls": [first]}))
        out += [chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]}) for p in _pieces(arguments, 2)]
    out.append(chunk({}, "tool_calls" if calls else "stop"))
    if usage is not None:
        prompt, completion = _numbers(usage)
        totals = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        out.append(_sse({"id": "chatcmpl-fake", "model": model, "choices": [], "usage": totals}))
    out.append(b"data: [DONE]\n\n")
    return out


def responses_stream(
    model: str, text: str, reasoning: str, usage: dict[str, Any], calls: list[tuple[str, str, str]]
) -> list[bytes]:
    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, **fields}, kind)

    base = {"id": "resp-fake", "object": "response", "model": model, "status": "in_progress"}
    out = [event("response.created", response=base)]
    out += [event("response.reasoning_summary_text.delta", delta=p, output_index=0) for p in _pieces(reasoning)]
    out += [event("response.output_text.delta", delta=p, output_index=1) for p in _pieces(text)]
    for offset, (call_id, name, arguments) in enumerate(calls):
        index = 2 + offset
        item = {"type": "function_call", "id": f"fc_{index}", "call_id": call_id, "name": name, "arguments": ""}
        out.append(event("response.output_item.added", output_index=index, item=item))
        out += [
            event("response.function_call_arguments.delta", output_index=index, item_id=item["id"], delta=p)
            for p in _pieces(arguments, 2)
        ]
        out.append(event("response.function_call_arguments.done", output_index=index, arguments=arguments))
        out.append(event("response.output_item.done", output_index=index, item={**item, "arguments": arguments}))
    prompt, completion = _numbers(usage)
    done = {
        **base,
        "status": "completed",
        "usage": {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion},
    }
    out.append(event("response.completed", response=done))
    return out


def stream_events(
    api: str,
    model: str,
    text: str,
    step: dict[str, Any],
    usage: dict[str, Any],
    calls: list[tuple[str, str, str]],
    body: dict[str, Any],
) -> list[bytes]:
    reasoning = str(step.get("reasoning", ""))
    if api == "chat":
        wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return chat_stream(model, text, reasoning, usage if wants_usage else None, calls)
    return responses_stream(model, text, reasoning, usage, calls)


def write_events(handler: BaseHTTPRequestHandler, events: list[bytes], *, cut: bool) -> bool:
    """Send `events` as a chunked 200 event stream; with `cut`, half of them, then hang up.
    False when the connection must close."""
    if cut:
        events = events[: max(1, len(events) // 2)]
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for data in events:
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        if cut:
            handler.connection.shutdown(socket.SHUT_RDWR)
            return False
        handler.wfile.write(b"0\r\n\r\n")
    except OSError:
        return False
    return True
