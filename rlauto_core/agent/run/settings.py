"""The phone agent's deployment settings: `AGENT_*` environment variables (and `.env`).

The key is a `SecretStr` read from the environment only; it never enters a run's parameters,
events, state or logs. A run may choose another model, base URL or API mode (`ModelChoice`), and
another key only by reference: the name of a Prefect Secret block holding it (`key_secret`),
which the flow loads on the worker. What a run runs on (`RunModel`) is part of its state, so a
resume goes on with the same model unless it names another.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rlauto_core.config.settings import ApiMode
from rlauto_core.errors import ConfigError
from rlauto_core.llm.endpoints import EndpointConfig, normalize_base_url
from rlauto_core.llm.types import Role

# Prefect's block names: lowercase letters, digits and dashes
SECRET_NAME = r"^[a-z0-9][a-z0-9-]{0,99}$"


class ModelChoice(BaseModel):
    """What a run may override (a flow parameter): never the key itself, only the name of the
    Prefect Secret block that holds it."""

    model: str | None = Field(default=None, min_length=1, max_length=200)
    base_url: str | None = Field(default=None, min_length=1, max_length=500)
    api_mode: ApiMode | None = None
    key_secret: str | None = Field(default=None, pattern=SECRET_NAME)

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.model, self.base_url, self.api_mode, self.key_secret))


class RunModel(BaseModel):
    """The model a run runs on, kept in its state: `key_secret` names the Prefect Secret block
    holding its key (None: the worker's AGENT_API_KEY). Never a key."""

    model: str
    base_url: str
    api_mode: ApiMode = "chat"
    key_secret: str | None = Field(default=None, pattern=SECRET_NAME)

    def describe(self) -> str:
        key = f"key from Secret block {self.key_secret!r}" if self.key_secret else "the worker's AGENT_API_KEY"
        return f"{self.model} at {self.base_url} ({self.api_mode}, {key})"

    def choice(self) -> ModelChoice:
        return ModelChoice(model=self.model, base_url=self.base_url, api_mode=self.api_mode, key_secret=self.key_secret)

    def resumed_with(self, choice: ModelChoice | None) -> RunModel:
        """What a resume goes on with: this model, with what `choice` names instead. Refused
        (ConfigError) when the new endpoint would get this run's key from a Secret block: a key
        goes only to the endpoint it was given for, so a new base URL needs its own key named."""
        if choice is None or not choice.given:
            return self
        base_url = normalize_base_url(choice.base_url) if choice.base_url else self.base_url
        if self.key_secret and base_url != self.base_url and not choice.key_secret:
            raise ConfigError(
                f"this run's key (Secret block {self.key_secret!r}) is for {self.base_url}: name the key for "
                f"{base_url} too (--key-secret), a key is never sent to another endpoint than its own"
            )
        return RunModel(model=choice.model or self.model, base_url=base_url, api_mode=choice.api_mode or self.api_mode,
                        key_secret=choice.key_secret or self.key_secret)  # fmt: skip


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

    @classmethod
    def from_environment(cls) -> AgentSettings:
        """`AgentSettings()`, with a ConfigError naming the variable that is wrong."""
        try:
            return cls()
        except ValidationError as exc:
            first = exc.errors()[0]
            name = "AGENT_" + ".".join(str(p) for p in first["loc"]).upper()
            raise ConfigError(f"configuration: {name}: {first['msg']}") from None

    def run_model(self, choice: ModelChoice | None = None) -> RunModel:
        """What a new run runs on: these settings with the run's choice applied."""
        endpoint = self.endpoint(choice)
        return RunModel(model=endpoint.model, base_url=endpoint.base_url, api_mode=endpoint.api_mode,
                        key_secret=choice.key_secret if choice else None)  # fmt: skip

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
