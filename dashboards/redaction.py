"""Secret redaction for everything the dashboard displays.

Packages are redacted by the pipeline already (formats.md section 2); this is the second lock:
sensitive header values, token-like query parameters, bearer tokens, and the literal values of
secret-looking environment variables are replaced before anything reaches the page.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "[REDACTED]"

# Header and field names whose values are credentials (compared lower-case, '_' read as '-').
SENSITIVE_NAMES = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "apikey",
        "x-auth-token",
        "x-access-token",
        "x-csrf-token",
        "x-xsrf-token",
        "x-amz-security-token",
        "access-token",
        "refresh-token",
        "password",
        "secret",
        "client-secret",
        "private-key",
    }
)
_SENSITIVE_QUERY = re.compile(
    r"(?i)([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|sig|signature|"
    r"password|secret|client_secret|auth|session|sessionid|x-amz-signature|x-amz-credential|"
    r"x-amz-security-token)=)[^&#\s\"']*"
)
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{8,}")
# OpenAI-style keys (sk-..., also rk-/pk-), whatever variable they came from
_KEY_STYLE = re.compile(r"\b(?:sk|rk|pk)-[A-Za-z0-9_-]{6,}")
_MARKDOWN_ACTIVE = re.compile(r"([\\`\[\]<>!])")
_SECRET_ENV_NAME = re.compile(r"(?i)(key|token|secret|password|passwd|credential|cookie)")
# identifiers that sit beside secrets (AWS_ACCESS_KEY_ID=rlauto would otherwise blank every "rlauto")
_PUBLIC_ENV_NAME = re.compile(r"(?i)(_ID|_USER|_USERNAME|_NAME|_FILE|_PATH|_URL|_MODE)$")
_MIN_SECRET_LENGTH = 8


def is_sensitive_name(name: str) -> bool:
    lowered = name.strip().lower().replace("_", "-")
    return lowered in SENSITIVE_NAMES or lowered.endswith(("-api-key", "-token", "-secret", "-password"))


def secret_environment_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables whose names look like credentials, longest first."""
    env = os.environ if environ is None else environ
    values = {
        v
        for k, v in env.items()
        if _SECRET_ENV_NAME.search(k) and not _PUBLIC_ENV_NAME.search(k) and len(v.strip()) >= _MIN_SECRET_LENGTH
    }
    return sorted(values, key=len, reverse=True)


class Redactor:
    """Applies every rule above; build one per page run so new environment values are seen."""

    def __init__(self, extra_secrets: Iterable[str] = ()) -> None:
        self._secrets = [*secret_environment_values(), *(s for s in extra_secrets if len(s) >= _MIN_SECRET_LENGTH)]

    def text(self, value: str) -> str:
        for secret in self._secrets:
            value = value.replace(secret, REDACTED)
        value = _KEY_STYLE.sub(REDACTED, value)
        value = _SENSITIVE_QUERY.sub(lambda m: m.group(1) + REDACTED, value)
        return _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", value)

    def markdown(self, value: str) -> str:
        """Redacted text safe inside Streamlit markdown (messages, headers, labels): no link,
        image, HTML or code span can be formed from recorded or model-written text."""
        return _MARKDOWN_ACTIVE.sub(r"\\\1", self.text(value))

    def value(self, value: Any) -> Any:
        """A deep copy of a JSON value with sensitive fields and strings redacted."""
        if isinstance(value, dict):
            if _is_header_pair(value) and is_sensitive_name(str(value["name"])):
                return {**{k: self.value(v) for k, v in value.items()}, "value": REDACTED}
            return {
                str(k): REDACTED if is_sensitive_name(str(k)) and v is not None else self.value(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        return value


def _is_header_pair(value: dict[str, Any]) -> bool:
    # HAR-style headers: {"name": "Authorization", "value": "Bearer ..."}
    return "name" in value and "value" in value and isinstance(value["name"], str)
