"""The phone agent's deployment settings: `AGENT_*` environment variables (and `.env`).

The key is a `SecretStr` read from the environment only; it never enters a run's parameters,
events, state or logs. A run may choose another model, base URL or API mode (`ModelChoice`),
never another key.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rlauto_core.config.settings import ApiMode
from rlauto_core.llm.endpoints import EndpointConfig, normalize_base_url
from rlauto_core.llm.types import Role


class ModelChoice(BaseModel):
    """What a run may override (a flow parameter): never the key."""

    model: str | None = Field(default=None, min_length=1, max_length=200)
    base_url: str | None = Field(default=None, min_length=1, max_length=500)
    api_mode: ApiMode | None = None


class AgentSettings(BaseSettings):
    """`AgentSettings()` reads AGENT_MODEL, AGENT_BASE_URL, AGENT_API_KEY, AGENT_API_MODE,
    AGENT_CONTEXT_TOKENS, AGENT_SCREENSHOT_MAX_BYTES, AGENT_MAX_MODEL_CALLS, AGENT_TIMEOUT_SECONDS,
    AGENT_MAX_ATTEMPTS, AGENT_TEMPERATURE, and AGENT_UPSTREAM_PROXY (else UPSTREAM_PROXY)."""

    model_config = SettingsConfigDict(env_prefix="AGENT_", env_file=".env", env_file_encoding="utf-8", extra="ignore")

    model: str = "deepseek-v4-flash-vision-exp"  # needs vision: it reads screenshots
    base_url: str = "https://api.deepseek.com"
    api_key: SecretStr | None = None
    api_mode: ApiMode = "chat"
    # the model's context window in tokens; every request is kept under it (older screens shrink)
    context_tokens: int = Field(default=64_000, ge=8_000, le=2_000_000)
    screenshot_max_bytes: int = Field(default=200_000, ge=20_000, le=5_000_000)
    # the safety cap: model calls since the start or the last resume; then `budget_exhausted`
    max_model_calls: int = Field(default=200, ge=1, le=100_000)
    timeout_seconds: float = Field(default=120.0, gt=0)
    max_attempts: int = Field(default=3, ge=1, le=10)
    temperature: float | None = Field(default=None, ge=0, le=2)
    upstream_proxy: str | None = Field(
        default=None, validation_alias=AliasChoices("AGENT_UPSTREAM_PROXY", "UPSTREAM_PROXY")
    )

    @field_validator("api_key", "upstream_proxy", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("upstream_proxy")
    @classmethod
    def _proxy_scheme(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://", "socks5://", "socks5h://")):
            raise ValueError("the proxy must start with http://, https://, socks5:// or socks5h://")
        return value

    def endpoint(self, choice: ModelChoice | None = None) -> EndpointConfig:
        """The agent's endpoint, with a run's choice of model, base URL and API mode applied."""
        choice = choice or ModelChoice()
        return EndpointConfig(
            role=Role.AGENT,
            base_url=normalize_base_url(choice.base_url or self.base_url),
            model=choice.model or self.model,
            api_key=self.api_key,
            api_mode=choice.api_mode or self.api_mode,
            key_source="AGENT_API_KEY",
            temperature=self.temperature,
        )
