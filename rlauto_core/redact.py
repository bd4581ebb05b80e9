"""Secret redaction: Authorization, Cookie, API-key headers, token-like query parameters and keys.

Used for everything a model sees and for every `task.json` we write.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"

SECRET_HEADERS = frozenset(
    {
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "apikey",
        "x-auth-token", "x-access-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
        "x-goog-api-key", "openai-api-key", "x-session-token", "x-refresh-token",
    }
)  # fmt: skip
# Parameter and JSON key names whose values are credentials (matched on lowercase, `-`/`_` removed).
_SECRET_KEY_RE = re.compile(
    r"(token|secret|password|passwd|apikey|accesskey|privatekey|authorization|cookie|sessionid|"
    r"signature|sig$|^sig|credential|^auth$|^key$|^code$|clientsecret|otp$)"
)
_BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}")
_JWT_RE = re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}")
_KEYLIKE_RE = re.compile(r"\b(sk|pk|rk|xox[abprs]|ghp|gho|glpat|AKIA)[-_][A-Za-z0-9_-]{12,}")


def is_secret_header(name: str) -> bool:
    return name.lower() in SECRET_HEADERS


def is_secret_key(name: str) -> bool:
    normalized = name.lower().replace("-", "").replace("_", "")
    return bool(_SECRET_KEY_RE.search(normalized))


def redact_text(text: str) -> str:
    """Scrub bearer tokens, JWTs and well-known key formats from free text."""
    text = _BEARER_RE.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _JWT_RE.sub(REDACTED, text)
    return _KEYLIKE_RE.sub(REDACTED, text)


def redact_url(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc
    if "@" in netloc:  # credentials in the authority
        netloc = f"{REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_key(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if is_secret_key(k) else v) for k, v in pairs], safe="[]")
    return redact_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)))


def redact_json(value: Any, _depth: int = 0) -> Any:
    """A copy of a JSON value with secret keys, header pairs, URLs and tokens redacted."""
    if _depth > 64:
        return value
    if isinstance(value, dict):
        if "name" in value and "value" in value and isinstance(value.get("name"), str):
            name = value["name"]
            if is_secret_header(name) or is_secret_key(name):
                return {**value, "value": REDACTED}
        out: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(key, str) and (is_secret_header(key) or is_secret_key(key)) and _is_scalar(item):
                out[key] = REDACTED if item not in (None, "") else item
            else:
                out[key] = redact_json(item, _depth + 1)
        return out
    if isinstance(value, list):
        return [redact_json(item, _depth + 1) for item in value]
    if isinstance(value, str):
        if value.startswith(("http://", "https://", "ws://", "wss://")):
            return redact_url(value)
        return redact_text(value)
    return value


def _is_scalar(value: Any) -> bool:
    # numbers are never credentials ("max_tokens": 100 stays); strings are
    return value is None or isinstance(value, str)


def redact_body(body: str | None) -> str | None:
    """Redact a request/response body: JSON and form bodies by key, anything else as text."""
    if not body:
        return body
    stripped = body.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            parsed = json.loads(body)
        except ValueError:
            return redact_text(body)
        return json.dumps(redact_json(parsed), ensure_ascii=False, separators=(",", ":"))
    if "=" in body and " " not in body.strip() and "\n" not in body:
        pairs = parse_qsl(body, keep_blank_values=True)
        if pairs and any(is_secret_key(k) for k, _ in pairs):
            return urlencode([(k, REDACTED if is_secret_key(k) else v) for k, v in pairs], safe="[]")
    return redact_text(body)


def redact_headers(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, REDACTED if is_secret_header(name) else redact_text(value)) for name, value in headers]
