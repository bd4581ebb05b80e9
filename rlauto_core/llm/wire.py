"""Request bodies and answer parsing for the two OpenAI-compatible APIs (`chat`, `responses`).

Optional parameters (JSON output, thinking switches) are kept apart from the core body so the
client can drop one an endpoint rejects and ask again.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from rlauto_core.llm.endpoints import EndpointConfig
from rlauto_core.llm.types import Message, TokenUsage

# The optional parameter an endpoint may reject, by API mode: (body key, how it is recognised).
JSON_PARAM = {"chat": "response_format", "responses": "text"}
THINKING_PARAMS = {"chat": ("enable_thinking", "thinking"), "responses": ("reasoning",)}


class WireRequest(BaseModel):
    path: str
    body: dict[str, Any]
    optional: dict[str, Any]

    def payload(self, dropped: set[str]) -> dict[str, Any]:
        return {**self.body, **{k: v for k, v in self.optional.items() if k not in dropped}}


class WireAnswer(BaseModel):
    text: str
    usage: TokenUsage
    model: str
    finish_reason: str | None = None
    refusal: str | None = None


def build_request(endpoint: EndpointConfig, messages: list[Message], *, json_output: bool) -> WireRequest:
    if endpoint.api_mode == "responses":
        return _responses_request(endpoint, messages, json_output=json_output)
    return _chat_request(endpoint, messages, json_output=json_output)


def _sampling(endpoint: EndpointConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if endpoint.temperature is not None:
        out["temperature"] = endpoint.temperature
    if endpoint.top_p is not None:
        out["top_p"] = endpoint.top_p
    return out


def _chat_request(endpoint: EndpointConfig, messages: list[Message], *, json_output: bool) -> WireRequest:
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": [m.model_dump() for m in messages],
        "stream": False,
        **_sampling(endpoint),
    }
    if endpoint.max_tokens is not None:
        body["max_tokens"] = endpoint.max_tokens
    optional: dict[str, Any] = {}
    if json_output:
        optional["response_format"] = {"type": "json_object"}
    if endpoint.enable_thinking is not None:
        # Qwen-style flag and the DeepSeek/GLM-style object; only sent when the user chose
        optional["enable_thinking"] = endpoint.enable_thinking
        optional["thinking"] = {"type": "enabled" if endpoint.enable_thinking else "disabled"}
    if endpoint.clear_thinking is not None:
        thinking = dict(optional.get("thinking", {"type": "enabled"}))
        thinking["clear_thinking"] = endpoint.clear_thinking
        optional["thinking"] = thinking
    return WireRequest(path="/chat/completions", body=body, optional=optional)


def _responses_request(endpoint: EndpointConfig, messages: list[Message], *, json_output: bool) -> WireRequest:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    body: dict[str, Any] = {
        "model": endpoint.model,
        "input": [{"role": m.role, "content": m.content} for m in messages if m.role != "system"],
        "store": False,
        **_sampling(endpoint),
    }
    if system:
        body["instructions"] = system
    if endpoint.max_tokens is not None:
        body["max_output_tokens"] = endpoint.max_tokens
    optional: dict[str, Any] = {}
    if json_output:
        optional["text"] = {"format": {"type": "json_object"}}
    if endpoint.enable_thinking is not None:
        optional["reasoning"] = {"effort": "medium" if endpoint.enable_thinking else "minimal"}
    return WireRequest(path="/responses", body=body, optional=optional)


class MalformedAnswer(ValueError):
    """The endpoint answered 200 with something that is not an OpenAI-compatible answer."""


def parse_answer(api_mode: str, data: Any) -> WireAnswer:
    if not isinstance(data, dict):
        raise MalformedAnswer("answer is not a JSON object")
    if api_mode == "responses":
        return _parse_responses(data)
    return _parse_chat(data)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _parse_chat(data: dict[str, Any]) -> WireAnswer:
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise MalformedAnswer("answer has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise MalformedAnswer("first choice has no message")
    content = message.get("content")
    if isinstance(content, list):  # some gateways send content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    refusal = message.get("refusal")
    usage = _dict(data.get("usage"))
    prompt, completion = _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
    return WireAnswer(
        text=content if isinstance(content, str) else "",
        usage=TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=_int(usage.get("total_tokens")) or prompt + completion,
            calls=1,
        ),
        model=str(data.get("model") or ""),
        finish_reason=choices[0].get("finish_reason"),
        refusal=refusal if isinstance(refusal, str) and refusal else None,
    )


def _parse_responses(data: dict[str, Any]) -> WireAnswer:
    output = data.get("output")
    if not isinstance(output, list):
        raise MalformedAnswer("answer has no output list")
    texts: list[str] = []
    refusal: str | None = None
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue  # reasoning items and tool calls carry no answer text
        for part in item.get("content") or []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                refusal = part["refusal"]
    if not texts and isinstance(data.get("output_text"), str):
        texts.append(data["output_text"])  # gateways that send only the SDK's convenience field
    usage = _dict(data.get("usage"))
    prompt, completion = _int(usage.get("input_tokens")), _int(usage.get("output_tokens"))
    status = data.get("status")
    return WireAnswer(
        text="".join(texts),
        usage=TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=_int(usage.get("total_tokens")) or prompt + completion,
            calls=1,
        ),
        model=str(data.get("model") or ""),
        finish_reason=status if isinstance(status, str) else None,
        refusal=refusal,
    )
