"""Run options: the seed's `optionsSnapshot`, chosen per batch or per run.

Accepts the seed's camelCase keys (`ruleProfile`, `strictFullMarks`, `judge.baseURL`...) and
snake_case. The judge's and rubric model's keys are never options: nested keys are forbidden.
"""

from __future__ import annotations

import hashlib
import json

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, field_validator

from rlauto_core.config.settings import ApiMode
from rlauto_core.package.judgement import PassPolicy
from rlauto_core.recording import Mode
from rlauto_core.rules.profiles import DEFAULT_PROFILE, RuleProfileName

MAX_ITERATIONS = 5
MAX_CONCURRENCY = 8  # model calls in flight for one batch (the seed's batch concurrency)
# Items in flight for one batch: parse, rules, Prefect bookkeeping and writes of some items
# overlap the model waits of others. Each holds its parsed recording, so memory bounds it.
MAX_ITEMS_IN_FLIGHT = 16


def default_items_in_flight(concurrency: int) -> int:
    """Twice the model calls in flight: an item spends about half its time off the model."""
    return min(2 * concurrency, MAX_ITEMS_IN_FLIGHT)


def _alias(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class JudgeOptions(BaseModel):
    """What a run may change about the judge; its key stays in the deployment settings."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    base_url: str | None = Field(default=None, validation_alias=_alias("base_url", "baseURL", "baseUrl"))
    model: str | None = None
    prompt_template: str | None = Field(default=None, validation_alias=_alias("prompt_template", "promptTemplate"))


class RubricGenerationOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    base_url: str | None = Field(default=None, validation_alias=_alias("base_url", "baseURL", "baseUrl"))
    model: str | None = None


class RunOptions(BaseModel):
    """One run's choices. `api_key` overrides the analyzer's key only and is never hashed or dumped."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    rule_profile: RuleProfileName = Field(
        default=DEFAULT_PROFILE, validation_alias=_alias("rule_profile", "ruleProfile")
    )
    requested_mode: Mode | None = Field(default=None, validation_alias=_alias("requested_mode", "requestedMode"))
    api_mode: ApiMode | None = Field(default=None, validation_alias=_alias("api_mode", "apiMode"))
    base_url: str | None = Field(default=None, validation_alias=_alias("base_url", "baseURL", "baseUrl"))
    api_key: SecretStr | None = Field(default=None, validation_alias=_alias("api_key", "apiKey"))
    # the name of a Prefect Secret block holding the analyzer key: what travels to workers in
    # place of the key itself (a flow-run parameter is stored and shown); the worker reads it
    api_key_secret: str | None = Field(
        default=None, validation_alias=_alias("api_key_secret", "apiKeySecret"), pattern=r"^[a-z0-9][a-z0-9-]*$"
    )
    model: str | None = Field(default=None, validation_alias=_alias("model", "customModel"))
    concurrency: int = Field(default=3, ge=1, le=MAX_CONCURRENCY)
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1, validation_alias=_alias("top_p", "topP"))
    max_tokens: int | None = Field(default=None, ge=1, validation_alias=_alias("max_tokens", "maxTokens"))
    enable_thinking: bool | None = Field(default=None, validation_alias=_alias("enable_thinking", "enableThinking"))
    clear_thinking: bool | None = Field(default=None, validation_alias=_alias("clear_thinking", "clearThinking"))
    # off unless asked: with a model it costs one more call per item (per distinct instruction)
    optimize_task: bool = Field(default=False, validation_alias=_alias("optimize_task", "optimizeTask"))
    feedback: str = ""
    strict_full_marks: bool = Field(default=False, validation_alias=_alias("strict_full_marks", "strictFullMarks"))
    ignore_task_complexity_for_full_marks: bool = Field(
        default=False,
        validation_alias=_alias("ignore_task_complexity_for_full_marks", "ignoreTaskComplexityForFullMarks"),
    )
    judge: JudgeOptions = Field(default_factory=JudgeOptions)
    rubric_generation: RubricGenerationOptions = Field(
        default_factory=RubricGenerationOptions,
        validation_alias=_alias("rubric_generation", "rubricGeneration"),
    )
    max_iterations: int = Field(
        default=MAX_ITERATIONS,
        ge=1,
        le=MAX_ITERATIONS,
        validation_alias=_alias("max_iterations", "maxIterations"),
    )
    redact_secrets: bool = Field(default=False, validation_alias=_alias("redact_secrets", "redactSecrets"))
    # the offline analyzer even when a model is configured (`rlauto package --offline`)
    offline: bool = False

    @field_validator("api_key", mode="before")
    @classmethod
    def _blank_key_is_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("api_key_secret", mode="before")
    @classmethod
    def _blank_secret_is_none(cls, value: object) -> object:
        if isinstance(value, str):
            return value.strip() or None
        return value

    @field_validator("base_url", mode="before")
    @classmethod
    def _blank_url_is_none(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @property
    def pass_policy(self) -> PassPolicy:
        return PassPolicy(
            strict_full_marks=self.strict_full_marks,
            ignore_task_complexity_for_full_marks=self.ignore_task_complexity_for_full_marks,
        )

    def snapshot(self) -> dict[str, object]:
        """JSON-ready options for persistence: the key is replaced by whether one was given."""
        data = self.model_dump(mode="json", exclude={"api_key"})
        data["api_key_set"] = self.api_key is not None
        return data

    def options_hash(self) -> str:
        """Stable hash of what changes a run's result; excludes the key (and where it is kept) and
        the concurrency."""
        data = self.model_dump(mode="json", exclude={"api_key", "api_key_secret", "concurrency"})
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
