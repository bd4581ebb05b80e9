"""Deployment settings from the environment and `.env` (the seed's backend `.env` names).

Keys are `SecretStr`: they print as `**********` and only the model client reads their value.
Run options (options.py) may override some of these per run; see `rlauto_core.llm.endpoints`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ApiMode = Literal["chat", "responses"]
LogLevel = Literal["debug", "info", "warning", "error", "critical"]


def default_storage_url() -> str:
    """`file://<repo>/.data/storage` in a source checkout, `file://<cwd>/.data/storage` otherwise."""
    repo = Path(__file__).resolve().parents[2]
    root = repo if (repo / "pyproject.toml").is_file() else Path.cwd()
    return (root / ".data" / "storage").as_uri()


class Settings(BaseSettings):
    """Everything a deployment sets once; `Settings()` reads the environment, then `.env`."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    default_model: str = "deepseek-v4-pro"
    default_base_url: str = "https://api.deepseek.com"
    default_api_key: SecretStr | None = None
    default_api_mode: ApiMode = "chat"

    judge_model: str = "gpt-5.5"
    judge_base_url: str = "https://app-hk.ppapi.ai/v1/chat/completions"
    judge_api_key: SecretStr | None = None
    judge_api_mode: ApiMode = "chat"

    rubric_gen_model: str = "gpt-5.5"
    rubric_gen_base_url: str = "https://app-hk.ppapi.ai/v1/chat/completions"
    rubric_gen_api_key: SecretStr | None = None
    rubric_gen_api_mode: ApiMode = "chat"

    # 0 means no limit beyond the batch concurrency (seed semantics)
    global_llm_concurrency: int = Field(default=0, ge=0)
    item_max_attempts: int = Field(default=3, ge=1, le=10)
    llm_timeout_seconds: float = Field(default=120.0, gt=0)
    max_upload_mb: int = Field(default=100, ge=1)
    max_batch_files: int = Field(default=20, ge=1)
    upstream_proxy: str | None = None
    log_level: LogLevel = "info"
    rlauto_storage_url: str = Field(default_factory=default_storage_url)

    @field_validator("default_api_key", "judge_api_key", "rubric_gen_api_key", mode="before")
    @classmethod
    def _blank_key_is_none(cls, value: object) -> object:
        # `KEY=` in .env.example style files means "not set", not "the empty key"
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("upstream_proxy", mode="before")
    @classmethod
    def _blank_proxy_is_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("upstream_proxy")
    @classmethod
    def _proxy_scheme(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://", "socks5://", "socks5h://")):
            raise ValueError("UPSTREAM_PROXY must start with http://, https://, socks5:// or socks5h://")
        return value

    @field_validator("rlauto_storage_url", mode="before")
    @classmethod
    def _blank_storage_is_default(cls, value: object) -> object:
        if value is None or (isinstance(value, str) and not value.strip()):
            return default_storage_url()
        return value

    @field_validator("log_level", "default_api_mode", "judge_api_mode", "rubric_gen_api_mode", mode="before")
    @classmethod
    def _lower_level(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value
