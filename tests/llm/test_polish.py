"""`rlauto polish` and polish_task against the fake model server."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from rlauto_core.analysis.polish import polish_task
from rlauto_core.errors import ConfigError
from tests.fakes.llm_server import FakeLlmServer
from tests.llm.conftest import MakeClient
from tests.llm.test_config import ENV_NAMES

POLISHED = {
    "zh": "在 #general 频道回复 Alice 的最新消息“got it”，然后将该频道标记为已读。",
    "en": "Reply 'got it' to Alice's latest message in #general, then mark the channel as read.",
    "notes": ["kept the quoted reply text exactly"],
}


@pytest.fixture
def polish_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_llm: FakeLlmServer) -> FakeLlmServer:
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEFAULT_BASE_URL", fake_llm.url + "/v1/chat/completions")
    monkeypatch.setenv("DEFAULT_MODEL", "polish")
    return fake_llm


def test_polish_task_returns_zh_en_notes(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("polish", {"fenced": POLISHED})
    outcome = polish_task("reply got it to alice in general and mark read", make_client(model="polish"))
    assert outcome.result.en.startswith("Reply 'got it'") and outcome.result.zh.startswith("在")
    assert outcome.result.notes == "- kept the quoted reply text exactly"
    assert outcome.usage.calls == 1
    assert "reply got it to alice" in fake_llm.requests("polish")[0].prompt_text()


def test_polish_refuses_empty_text_before_calling(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    with pytest.raises(ConfigError, match="empty"):
        polish_task("   ", make_client(model="polish"))
    assert fake_llm.calls("polish") == 0


def test_cli_polish_reads_stdin_and_prints_json(polish_env: FakeLlmServer, monkeypatch: pytest.MonkeyPatch) -> None:
    polish_env.script("polish", {"json": POLISHED})
    monkeypatch.setenv("DEFAULT_API_KEY", "sk-CANARY-polish")
    result = CliRunner().invoke(app, ["polish", "-", "--json"], input="raw task from stdin")
    assert result.exit_code == 0, result.output
    assert '"en": "Reply \'got it\'' in result.stdout
    [sent] = polish_env.requests("polish")
    assert "raw task from stdin" in sent.prompt_text()
    assert sent.headers["authorization"] == "Bearer sk-CANARY-polish"
    assert "CANARY" not in result.output


def test_cli_polish_without_a_model_exits_2_with_a_clear_message(polish_env: FakeLlmServer) -> None:
    result = CliRunner().invoke(app, ["polish", "make it nice"])
    assert result.exit_code == 2
    assert "no model configured for polish: set DEFAULT_API_KEY" in result.output
    assert polish_env.calls("polish") == 0


def test_cli_polish_reports_a_permanent_model_error_in_one_line(
    polish_env: FakeLlmServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    polish_env.script("polish", {"status": 401, "error": "bad key sk-CANARY-polish"})
    monkeypatch.setenv("DEFAULT_API_KEY", "sk-CANARY-polish")
    result = CliRunner().invoke(app, ["polish", "make it nice"])
    assert result.exit_code == 2
    assert "error: polish model at 127.0.0.1" in result.output and "DEFAULT_API_KEY" in result.output
    assert "CANARY" not in result.output and "Traceback" not in result.output
