"""Streamed tool-calling requests for the two OpenAI-compatible APIs.

chat: `messages` with `tool_calls` / `tool` messages and `image_url` parts, `stream: true`, and
the optional `stream_options.include_usage` (some gateways refuse it; the client drops it once).
responses: `input` items (`function_call`, `function_call_output`, `input_image`), flat
function tools, `stream: true`; usage always comes with `response.completed`.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.llm.endpoints import EndpointConfig
from rlauto_core.llm.tool_types import AssistantItem, ChatItem, SystemItem, ToolResultItem, ToolSpec, UserItem
from rlauto_core.llm.wire import WireRequest

STREAM_OPTIONS = "stream_options"


def build_tool_request(endpoint: EndpointConfig, items: list[ChatItem], tools: list[ToolSpec]) -> WireRequest:
    if endpoint.api_mode == "responses":
        return _responses(endpoint, items, tools)
    return _chat(endpoint, items, tools)


def _sampling(endpoint: EndpointConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if endpoint.temperature is not None:
        out["temperature"] = endpoint.temperature
    if endpoint.top_p is not None:
        out["top_p"] = endpoint.top_p
    return out


def _chat_message(item: ChatItem) -> dict[str, Any]:
    if isinstance(item, SystemItem):
        return {"role": "system", "content": item.content}
    if isinstance(item, UserItem):
        if not item.images:
            return {"role": "user", "content": item.content}
        parts: list[dict[str, Any]] = [{"type": "text", "text": item.content}] if item.content else []
        parts += [{"type": "image_url", "image_url": {"url": image.data_url}} for image in item.images]
        return {"role": "user", "content": parts}
    if isinstance(item, AssistantItem):
        message: dict[str, Any] = {"role": "assistant", "content": item.content or None}
        if item.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.wire_arguments()}}
                for c in item.tool_calls
            ]
        elif not item.content:
            message["content"] = ""
        return message
    return {"role": "tool", "tool_call_id": item.call_id, "content": item.content}


def _chat(endpoint: EndpointConfig, items: list[ChatItem], tools: list[ToolSpec]) -> WireRequest:
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [_chat_message(item) for item in items],
        "stream": True,
        **_sampling(endpoint),
    }
    if tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools
        ]
        body["tool_choice"] = "auto"
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    optional: dict[str, Any] = {STREAM_OPTIONS: {"include_usage": True}}
    if endpoint.enable_thinking is not None:
        optional["enable_thinking"] = endpoint.enable_thinking
        optional["thinking"] = {"type": "enabled" if endpoint.enable_thinking else "disabled"}
    return WireRequest(path="/chat/completions", body=body, optional=optional)


def _responses_input(item: ChatItem) -> list[dict[str, Any]]:
    if isinstance(item, UserItem):
        if not item.images:
            return [{"role": "user", "content": item.content}]
        parts: list[dict[str, Any]] = [{"type": "input_text", "text": item.content}] if item.content else []
        parts += [{"type": "input_image", "image_url": image.data_url} for image in item.images]
        return [{"role": "user", "content": parts}]
    if isinstance(item, AssistantItem):
        out: list[dict[str, Any]] = [{"role": "assistant", "content": item.content}] if item.content else []
        out += [
            {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.wire_arguments()}
            for c in item.tool_calls
        ]
        return out
    if isinstance(item, ToolResultItem):
        return [{"type": "function_call_output", "call_id": item.call_id, "output": item.content}]
    return []  # system items become `instructions`


def _responses(endpoint: EndpointConfig, items: list[ChatItem], tools: list[ToolSpec]) -> WireRequest:
    system = "\n\n".join(item.content for item in items if isinstance(item, SystemItem))
    body: dict[str, Any] = {
        "model": endpoint.model,
        "input": [part for item in items for part in _responses_input(item)],
        "stream": True,
        "store": False,
        **_sampling(endpoint),
    }
    if system:
        body["instructions"] = system
    if tools:
        body["tools"] = [
            {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
            for t in tools
        ]
    if endpoint.max_tokens is not None:
        body["max_output_tokens"] = endpoint.max_tokens
    optional: dict[str, Any] = {}
    if endpoint.enable_thinking is not None:
        optional["reasoning"] = {"effort": "medium" if endpoint.enable_thinking else "minimal"}
    return WireRequest(path="/responses", body=body, optional=optional)
