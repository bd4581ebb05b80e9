"""OpenAI-compatible model access: the `ModelClient` protocol, the httpx client, JSON answers,
and the streamed tool-calling client of the phone agent."""

from rlauto_core.llm.endpoints import EndpointConfig, normalize_base_url, resolve_endpoint
from rlauto_core.llm.errors import (
    ContextTooLongError,
    InvalidAnswerError,
    ModelError,
    ModelNotConfiguredError,
    PermanentModelError,
    TransientModelError,
)
from rlauto_core.llm.factory import (
    Gate,
    ModelClients,
    analyzer_configured,
    http_client,
    open_clients,
    process_gate,
)
from rlauto_core.llm.http_client import HttpModelClient
from rlauto_core.llm.json_answers import JsonAnswer, extract_json, request_json
from rlauto_core.llm.retry import RetryPolicy, parse_retry_after
from rlauto_core.llm.stream_parse import OnDelta
from rlauto_core.llm.streaming import ToolCallingClient
from rlauto_core.llm.tool_types import (
    AssistantItem,
    ChatItem,
    ImagePart,
    StreamDelta,
    SystemItem,
    ToolCall,
    ToolResultItem,
    ToolSpec,
    TurnReply,
    UserItem,
)
from rlauto_core.llm.types import Message, ModelClient, ModelReply, Role, TokenUsage, UsageLedger

__all__ = [
    "AssistantItem",
    "ChatItem",
    "ContextTooLongError",
    "EndpointConfig",
    "Gate",
    "HttpModelClient",
    "ImagePart",
    "InvalidAnswerError",
    "JsonAnswer",
    "Message",
    "ModelClient",
    "ModelClients",
    "ModelError",
    "ModelNotConfiguredError",
    "ModelReply",
    "OnDelta",
    "PermanentModelError",
    "RetryPolicy",
    "Role",
    "StreamDelta",
    "SystemItem",
    "TokenUsage",
    "ToolCall",
    "ToolCallingClient",
    "ToolResultItem",
    "ToolSpec",
    "TransientModelError",
    "TurnReply",
    "UsageLedger",
    "UserItem",
    "analyzer_configured",
    "extract_json",
    "http_client",
    "normalize_base_url",
    "open_clients",
    "parse_retry_after",
    "process_gate",
    "request_json",
    "resolve_endpoint",
]
