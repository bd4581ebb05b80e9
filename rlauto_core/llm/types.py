"""What crosses the model boundary: messages, replies, token usage, and the `ModelClient` protocol."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from rlauto_core.llm.endpoints import EndpointConfig


class Role(StrEnum):
    """The model roles of the pipeline; polish uses the analyzer's endpoint; the phone agent its own."""

    ANALYZER = "analyzer"
    JUDGE = "judge"
    RUBRIC = "rubric"
    POLISH = "polish"
    AGENT = "agent"


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class TokenUsage(BaseModel):
    """Tokens as the endpoint reported them; `calls` counts HTTP requests that got an answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            calls=self.calls + other.calls,
        )


class UsageLedger(BaseModel):
    """Token usage of one item (or one iteration), per role."""

    by_role: dict[str, TokenUsage] = Field(default_factory=dict)

    def add(self, role: Role | str, usage: TokenUsage) -> None:
        key = str(role)
        self.by_role[key] = self.by_role.get(key, TokenUsage()) + usage

    def merge(self, other: UsageLedger) -> None:
        for role, usage in other.by_role.items():
            self.add(role, usage)

    @property
    def total(self) -> TokenUsage:
        out = TokenUsage()
        for usage in self.by_role.values():
            out = out + usage
        return out


class ModelReply(BaseModel):
    text: str
    usage: TokenUsage
    model: str
    finish_reason: str | None = None
    refusal: str | None = None
    attempts: int = 1


class ModelClient(Protocol):
    """One model role behind an OpenAI-compatible endpoint; the pipeline takes it as a parameter."""

    @property
    def role(self) -> Role: ...

    @property
    def endpoint_host(self) -> str: ...

    @property
    def endpoint(self) -> EndpointConfig:
        """Where and how it asks: what, besides the messages, decides an answer."""
        ...

    def complete(self, messages: list[Message], *, json_output: bool = False) -> ModelReply:
        """One answer; transient failures are retried inside, permanent ones raise at once."""
        ...
