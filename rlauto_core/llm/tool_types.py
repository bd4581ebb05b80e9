"""What a tool-calling conversation is made of: tool specs, calls, images, turns and the reply.

The same items serve both API modes; `tool_wire` turns them into chat-completions messages or
Responses API input items.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from rlauto_core.llm.types import TokenUsage


class ToolSpec(BaseModel):
    """One tool the model may call: its name, what it does, and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


class ToolCall(BaseModel):
    """A call the model asked for; `arguments` is the JSON text exactly as the model sent it."""

    id: str
    name: str
    arguments: str = ""

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as an object; ValueError saying what is wrong when they are not one."""
        text = self.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments are not valid JSON ({exc.msg} at character {exc.pos})") from None
        if not isinstance(value, dict):
            raise ValueError(f"arguments must be a JSON object, got {type(value).__name__}")
        return value

    def wire_arguments(self) -> str:
        """What goes back to the endpoint in history: providers refuse broken JSON there too."""
        try:
            self.parsed_arguments()
        except ValueError:
            return "{}"
        return self.arguments.strip() or "{}"


class ImagePart(BaseModel):
    """An image shown to the model, base64 encoded."""

    media_type: str = "image/jpeg"
    data_b64: str

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data_b64}"


class SystemItem(BaseModel):
    role: Literal["system"] = "system"
    content: str


class UserItem(BaseModel):
    role: Literal["user"] = "user"
    content: str
    images: list[ImagePart] = Field(default_factory=list)


class AssistantItem(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)


class ToolResultItem(BaseModel):
    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str


ChatItem = Annotated[SystemItem | UserItem | AssistantItem | ToolResultItem, Field(discriminator="role")]


class StreamDelta(BaseModel):
    """A piece of a streamed answer: answer text or reasoning."""

    kind: Literal["content", "reasoning"]
    text: str


class TurnReply(BaseModel):
    """One streamed model answer, assembled.

    `usage_reported` is False when the endpoint sent no usage (a gateway that does not take
    `stream_options`): the call is still counted, with zero tokens.
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=lambda: TokenUsage(calls=1))
    usage_reported: bool = False
    model: str = ""
    finish_reason: str | None = None
    attempts: int = 1
