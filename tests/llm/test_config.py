"""Settings from the environment and `.env`, run options, and which endpoint/key each role uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from rlauto_core.config.options import RunOptions
from rlauto_core.config.settings import Settings
from rlauto_core.errors import ConfigError
from rlauto_core.llm import ModelNotConfiguredError, Role, http_client, normalize_base_url, resolve_endpoint

ENV_NAMES = [
    "DEFAULT_MODEL",
    "DEFAULT_BASE_URL",
    "DEFAULT_API_KEY",
    "DEFAULT_API_MODE",
    "JUDGE_MODEL",
    "JUDGE_BASE_URL",
    "JUDGE_API_KEY",
    "JUDGE_API_MODE",
    "RUBRIC_GEN_MODEL",
    "RUBRIC_GEN_BASE_URL",
    "RUBRIC_GEN_API_KEY",
    "RUBRIC_GEN_API_MODE",
    "GLOBAL_LLM_CONCURRENCY",
    "ITEM_MAX_ATTEMPTS",
    "MAX_UPLOAD_MB",
    "MAX_BATCH_FILES",
    "UPSTREAM_PROXY",
    "LOG_LEVEL",
    "RLAUTO_STORAGE_URL",
]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://api.deepseek.com", "https://api.deepseek.com/v1"),
        ("https://api.deepseek.com/", "https://api.deepseek.com/v1"),
        ("https://h.example/v1", "https://h.example/v1"),
        ("https://h.example/v1/", "https://h.example/v1"),
        ("https://app-hk.example/v1/chat/completions", "https://app-hk.example/v1"),
        ("https://h.example/v1/responses", "https://h.example/v1"),
        ("https://open.example/api/paas/v4", "https://open.example/api/paas/v4"),
        ("http://127.0.0.1:8000/chat/completions", "http://127.0.0.1:8000/v1"),
    ],
)
def test_base_urls_are_normalized(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected


def test_a_base_url_without_scheme_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="must be an http"):
        normalize_base_url("api.example.com/v1")


def test_settings_read_env_and_dotenv_with_seed_defaults(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (clean_env / ".env").write_text(
        "DEFAULT_API_KEY=sk-from-dotenv\nJUDGE_API_KEY=\nRLAUTO_STORAGE_URL=\nITEM_MAX_ATTEMPTS=5\nUPSTREAM_PROXY=socks5://127.0.0.1:1080\n"
    )
    monkeypatch.setenv("DEFAULT_MODEL", "env-model")
    settings = Settings()
    assert settings.default_model == "env-model"
    assert settings.default_api_key is not None and settings.default_api_key.get_secret_value() == "sk-from-dotenv"
    assert settings.judge_api_key is None  # blank means unset
    assert (settings.item_max_attempts, settings.max_upload_mb, settings.max_batch_files) == (5, 100, 20)
    assert settings.global_llm_concurrency == 0 and settings.upstream_proxy == "socks5://127.0.0.1:1080"
    assert settings.rlauto_storage_url.startswith("file://") and settings.rlauto_storage_url.endswith("/.data/storage")
    assert "sk-from-dotenv" not in repr(settings)


def test_a_bad_proxy_scheme_is_refused(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPSTREAM_PROXY", "ftp://proxy:21")
    with pytest.raises(ValidationError, match="UPSTREAM_PROXY"):
        Settings()


def _settings() -> Settings:
    return Settings(
        default_api_key=SecretStr("sk-default"),
        judge_api_key=SecretStr("sk-judge"),
        rubric_gen_api_key=None,
        _env_file=None,  # type: ignore[call-arg]
    )


def test_options_override_the_analyzer_endpoint_and_key(clean_env: Path) -> None:
    options = RunOptions.model_validate(
        {
            "baseURL": "https://mine.example",
            "apiKey": "sk-mine",
            "model": "m1",
            "apiMode": "responses",
            "temperature": 0.3,
            "enableThinking": True,
        }
    )
    analyzer = resolve_endpoint(Role.ANALYZER, _settings(), options)
    assert (analyzer.base_url, analyzer.model, analyzer.api_mode) == (
        "https://mine.example/v1",
        "m1",
        "responses",
    )
    assert analyzer.api_key is not None and analyzer.api_key.get_secret_value() == "sk-mine"
    assert analyzer.key_source == "options.api_key" and analyzer.temperature == 0.3


def test_options_move_the_judge_but_never_give_it_a_key(clean_env: Path) -> None:
    options = RunOptions.model_validate(
        {"apiKey": "sk-mine", "judge": {"baseURL": "https://judge.example/v1", "model": "j2"}}
    )
    judge = resolve_endpoint(Role.JUDGE, _settings(), options)
    assert (judge.base_url, judge.model) == ("https://judge.example/v1", "j2")
    assert judge.api_key is not None and judge.api_key.get_secret_value() == "sk-judge"
    assert judge.temperature is None  # sampling options belong to the analyzer
    with pytest.raises(ValidationError, match="apiKey"):
        RunOptions.model_validate({"judge": {"apiKey": "sk-smuggled"}})
    with pytest.raises(ValidationError):
        RunOptions.model_validate({"rubricGeneration": {"api_key": "sk-smuggled"}})


def test_a_role_without_a_key_is_not_configured(clean_env: Path) -> None:
    rubric = resolve_endpoint(Role.RUBRIC, _settings())
    assert not rubric.configured
    with pytest.raises(ModelNotConfiguredError, match="set RUBRIC_GEN_API_KEY"):
        http_client(Role.RUBRIC, _settings())


def test_run_options_bounds_and_seed_aliases() -> None:
    options = RunOptions.model_validate(
        {
            "ruleProfile": "rl-env-4.30",
            "strictFullMarks": True,
            "ignoreTaskComplexityForFullMarks": True,
            "requestedMode": "mcp",
            "concurrency": 8,
            "maxIterations": 2,
        }
    )
    assert options.pass_policy.name == "strict_full_marks+ignore_task_complexity"
    assert (options.rule_profile, options.requested_mode, options.max_iterations) == ("rl-env-4.30", "mcp", 2)
    assert RunOptions().max_iterations == 5 and RunOptions().concurrency == 3
    for bad in ({"concurrency": 9}, {"concurrency": 0}, {"maxIterations": 6}, {"ruleProfile": "other"}):
        with pytest.raises(ValidationError):
            RunOptions.model_validate(bad)


def test_options_hash_is_stable_and_never_holds_the_key() -> None:
    a = RunOptions(api_key=SecretStr("sk-one"), feedback="be brief", concurrency=2)
    b = RunOptions(api_key=SecretStr("sk-two"), feedback="be brief", concurrency=7)
    assert a.options_hash() == b.options_hash() == RunOptions(feedback="be brief").options_hash()
    assert a.options_hash() != RunOptions(feedback="be verbose").options_hash()
    snapshot = repr(a.snapshot()) + a.model_dump_json()
    assert "sk-one" not in snapshot and a.snapshot()["api_key_set"] is True


def test_api_modes_and_log_level_are_case_insensitive(clean_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_API_MODE", "Responses")
    monkeypatch.setenv("LOG_LEVEL", "DEBUG")
    settings = Settings()
    assert settings.judge_api_mode == "responses" and settings.log_level == "debug"
    monkeypatch.setenv("JUDGE_API_MODE", "completions")
    with pytest.raises(ValidationError):
        Settings()
