"""Which endpoint, model and key each role uses, from deployment settings and run options.

Options may override the analyzer's base URL, model and key, and the judge's and rubric model's
base URL and model, never their keys (those live only in the deployment settings).
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, SecretStr

from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import ApiMode, Settings
from rlauto_core.errors import ConfigError
from rlauto_core.llm.types import Role

_API_SUFFIXES = ("/chat/completions", "/responses", "/completions")


def normalize_base_url(url: str) -> str:
    """The API root: `https://h` -> `https://h/v1`; `.../v1/chat/completions` -> `.../v1`.

    A trailing slash is dropped; any other path is kept (`/api/paas/v4`, `/compatible-mode/v1`).
    """
    raw = url.strip()
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"model base URL {raw!r} must be an http(s) URL with a host")
    path = parts.path.rstrip("/")
    for suffix in _API_SUFFIXES:
        if path.endswith(suffix):
            path = path[: -len(suffix)].rstrip("/")
            break
    if not path:
        path = "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


class EndpointConfig(BaseModel):
    """One role's endpoint; `key_source` names where the key came from, for error messages."""

    role: Role
    base_url: str
    model: str
    api_key: SecretStr | None = None
    api_mode: ApiMode = "chat"
    key_source: str
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    enable_thinking: bool | None = None
    clear_thinking: bool | None = None

    @property
    def host(self) -> str:
        return urlsplit(self.base_url).netloc

    @property
    def configured(self) -> bool:
        return self.api_key is not None

    def answer_key(self) -> str:
        """Everything of the endpoint that changes an answer (never the key): part of the cache key
        of every model call, so another model, endpoint, API mode or sampling is asked afresh."""
        return self.model_dump_json(exclude={"api_key", "key_source", "role"})


def resolve_endpoint(role: Role, settings: Settings, options: RunOptions | None = None) -> EndpointConfig:
    opts = options or RunOptions()
    if role in (Role.ANALYZER, Role.POLISH):
        key_source = "options.api_key" if opts.api_key is not None else "DEFAULT_API_KEY"
        if opts.api_key_secret is not None and opts.api_key is not None:
            key_source = f"Secret block {opts.api_key_secret!r}"
        return EndpointConfig(
            role=role,
            base_url=normalize_base_url(opts.base_url or settings.default_base_url),
            model=opts.model or settings.default_model,
            api_key=opts.api_key if opts.api_key is not None else settings.default_api_key,
            api_mode=opts.api_mode or settings.default_api_mode,
            key_source=key_source,
            temperature=opts.temperature,
            top_p=opts.top_p,
            max_tokens=opts.max_tokens,
            enable_thinking=opts.enable_thinking,
            clear_thinking=opts.clear_thinking,
        )
    if role is Role.JUDGE:
        return EndpointConfig(
            role=role,
            base_url=normalize_base_url(opts.judge.base_url or settings.judge_base_url),
            model=opts.judge.model or settings.judge_model,
            api_key=settings.judge_api_key,
            api_mode=settings.judge_api_mode,
            key_source="JUDGE_API_KEY",
        )
    return EndpointConfig(
        role=role,
        base_url=normalize_base_url(opts.rubric_generation.base_url or settings.rubric_gen_base_url),
        model=opts.rubric_generation.model or settings.rubric_gen_model,
        api_key=settings.rubric_gen_api_key,
        api_mode=settings.rubric_gen_api_mode,
        key_source="RUBRIC_GEN_API_KEY",
    )
