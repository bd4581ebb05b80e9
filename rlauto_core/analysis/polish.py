"""Task polishing: a raw task text -> a polished Chinese and English instruction plus notes."""

from __future__ import annotations

from pydantic import BaseModel

from rlauto_core.errors import ConfigError
from rlauto_core.llm.json_answers import request_json
from rlauto_core.llm.types import ModelClient, TokenUsage
from rlauto_core.prompts.answers import PolishedTask
from rlauto_core.prompts.polish import polish_messages

MAX_RAW_CHARS = 20_000


class PolishOutcome(BaseModel):
    result: PolishedTask
    usage: TokenUsage


def polish_task(raw: str, client: ModelClient) -> PolishOutcome:
    text = raw.strip()
    if not text:
        raise ConfigError("polish: the task text is empty")
    if len(text) > MAX_RAW_CHARS:
        raise ConfigError(f"polish: the task text has {len(text)} characters; at most {MAX_RAW_CHARS}")
    answer = request_json(client, polish_messages(text), PolishedTask)
    return PolishOutcome(result=answer.value, usage=answer.usage)
