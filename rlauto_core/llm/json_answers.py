"""JSON answers: pulled out of fenced or chatty text, repaired, validated, re-asked once.

`request_json` is the one way the pipeline asks a model for structured output: the model's
answer is parsed, validated against a pydantic model (plus an optional semantic check), and
on failure the model is asked once more with the validation error; then it is a permanent error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from rlauto_core.llm.errors import InvalidAnswerError
from rlauto_core.llm.types import Message, ModelClient, TokenUsage

T = TypeVar("T", bound=BaseModel)

# Longer answers are not parsed: no analyzer or judge answer is near this, and repair is slow.
MAX_ANSWER_CHARS = 1_000_000
_THINK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\n?(.*?)```", re.DOTALL)


class NoJsonFound(ValueError):
    pass


def _balanced_span(text: str) -> str | None:
    """The first `{...}` (or `[...]`) span with balanced brackets outside strings, else the tail."""
    start = next((i for i, ch in enumerate(text) if ch in "{["), None)
    if start is None:
        return None
    opening = text[start]
    closing = "}" if opening == "{" else "]"
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]  # truncated answer: let the repairer close it


def extract_json(text: str) -> Any:
    """The JSON value in a model answer: plain, fenced, inside chatter, or broken but repairable."""
    if len(text) > MAX_ANSWER_CHARS:
        raise NoJsonFound(f"the answer has {len(text)} characters; at most {MAX_ANSWER_CHARS} are read")
    cleaned = _THINK.sub("", text).strip()
    if not cleaned:
        raise NoJsonFound("the answer is empty")
    candidates: list[str] = [cleaned]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(cleaned)]
    span = _balanced_span(cleaned)
    if span is not None:
        candidates.append(span)
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            continue
    for candidate in candidates[1:] or candidates:
        if not candidate.lstrip().startswith(("{", "[")):
            continue
        try:
            repaired = json_repair.loads(candidate)
        except (ValueError, RecursionError, TypeError, IndexError):
            continue  # a hostile answer may break the repairer; it is then simply invalid
        if isinstance(repaired, (dict, list)) and repaired:
            return repaired
    raise NoJsonFound("the answer holds no JSON object")


class JsonAnswer(BaseModel, Generic[T]):
    value: T
    usage: TokenUsage
    text: str
    reasked: bool = False


def _problem(
    text: str, refusal: str | None, answer_type: type[T], check: Callable[[T], None] | None
) -> tuple[T | None, str]:
    if refusal:
        return None, f"the model refused: {refusal[:200]}"
    try:
        data = extract_json(text)
    except NoJsonFound as exc:
        return None, str(exc)
    try:
        value = answer_type.model_validate(data)
    except ValidationError as exc:
        return None, _short_validation_error(exc)
    if check is not None:
        try:
            check(value)
        except ValueError as exc:
            return None, str(exc)
    return value, ""


def _short_validation_error(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors()[:8]:
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        lines.append(f"{where}: {err['msg']}")
    more = len(exc.errors()) - len(lines)
    return "; ".join(lines) + (f"; and {more} more" if more > 0 else "")


def request_json(
    client: ModelClient,
    messages: list[Message],
    answer_type: type[T],
    *,
    check: Callable[[T], None] | None = None,
) -> JsonAnswer[T]:
    """Ask for JSON matching `answer_type`; one re-ask carrying the error; then InvalidAnswerError."""
    reply = client.complete(messages, json_output=True)
    usage = reply.usage
    value, problem = _problem(reply.text, reply.refusal, answer_type, check)
    if value is not None:
        return JsonAnswer[T](value=value, usage=usage, text=reply.text)
    reask = [
        *messages,
        Message(role="assistant", content=reply.text or (reply.refusal or "")),
        Message(
            role="user",
            content=(
                "Your previous answer could not be used: "
                f"{problem}\nAnswer again with ONLY one JSON object that follows the schema "
                "given above: no prose, no code fence."
            ),
        ),
    ]
    second = client.complete(reask, json_output=True)
    usage = usage + second.usage
    value, problem2 = _problem(second.text, second.refusal, answer_type, check)
    if value is not None:
        return JsonAnswer[T](value=value, usage=usage, text=second.text, reasked=True)
    error = InvalidAnswerError(
        str(client.role),
        client.endpoint_host,
        f"answer still invalid after one re-ask: {problem2} (first answer: {problem})",
    )
    error.usage = usage
    raise error
