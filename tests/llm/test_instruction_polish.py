"""`optimizeTask` polishes the instruction into both languages in the package: offline a
deterministic tidy that leaves a language empty rather than fill it with the wrong one; with a
model, one more call with the polish prompt (the fake server answers it), its tokens counted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from rlauto_core.analysis import OfflineAnalyzer, tidy_instruction
from rlauto_core.config.options import RunOptions
from rlauto_core.dataset import instruction_languages
from rlauto_core.importers import import_path
from rlauto_core.judging.judges import ValidatorJudge
from rlauto_core.llm import EndpointConfig, HttpModelClient, ModelClients, RetryPolicy, Role
from rlauto_core.pipeline import analysis_for, run_item
from rlauto_core.prompts.polish import POLISH_SYSTEM
from rlauto_core.recording import Recording
from tests.conftest import EXAMPLES
from tests.fakes.llm_requests import RecordedRequest
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer

POLISHED = {"zh": "在 #general 频道回复 Alice“got it”，然后将频道标为已读。", "en": "Reply 'got it' to Alice in #general.",
            "notes": "named the channel"}  # fmt: skip


@pytest.fixture(scope="module")
def discord() -> Recording:
    return import_path(EXAMPLES / "discord_reply.zip")


@pytest.mark.parametrize(
    ("raw", "tidy"),
    [
        (
            "  reply  'got it'\n to Alice ,then   mark #general read ",
            "Reply 'got it' to Alice,then mark #general read.",
        ),
        ("iPhone 15: add to cart!", "iPhone 15: add to cart!"),
        ("在 #产品 频道 回复 张伟 ，然后标为已读", "在 #产品 频道 回复 张伟，然后标为已读。"),
        ('Rename board "Q3"', 'Rename board "Q3"'),
    ],
)
def test_the_offline_tidy_is_deterministic(raw: str, tidy: str) -> None:
    assert tidy_instruction(raw) == tidy
    assert tidy_instruction(tidy) == tidy  # polishing twice changes nothing more


def test_offline_optimize_task_puts_both_language_fields_in_the_package(discord: Recording) -> None:
    plain = run_item(discord, RunOptions(), OfflineAnalyzer(), ValidatorJudge()).package
    assert "instructions" not in plain.task.model_dump(by_alias=True)  # off: nothing but the hash

    done = run_item(discord, RunOptions(optimize_task=True), OfflineAnalyzer(), ValidatorJudge())
    task = done.package.task.model_dump(by_alias=True)
    instruction = done.package.task.instruction
    zh, en = task["instructions"]["zh"], task["instructions"]["en"]
    assert en == tidy_instruction(instruction) and zh is None  # an English recording: no Chinese invented
    assert "no zh text" in task["instructionPolish"]["notes"] and task["instructionPolish"]["by"] == "offline"
    assert instruction_languages(task) == (None, en)  # the dataset reads the polished pair
    assert task["instruction"] == plain.task.instruction  # the judged instruction is kept as is


def _polish_or(analyze: Any) -> Any:
    def step(request: RecordedRequest) -> dict[str, Any]:
        if POLISH_SYSTEM.strip()[:60] in request.prompt_text():
            return {"json": POLISHED}
        return analyze(request)  # type: ignore[no-any-return]

    return step


def _clients(server: FakeLlmServer) -> list[HttpModelClient]:
    return [
        HttpModelClient(
            EndpointConfig(
                role=role,
                base_url=server.base_url(),
                model=str(role),
                api_key=SecretStr("sk-test-1"),
                api_mode="chat",
                key_source="TEST",
            ),
            retry=RetryPolicy(max_attempts=2, base_seconds=0.01),
        )
        for role in (Role.ANALYZER, Role.JUDGE)
    ]


def test_the_model_analyzer_polishes_with_one_more_call(fake_llm: FakeLlmServer, discord: Recording) -> None:
    # the judge asks for another iteration once; the analyzer keeps its instruction, so the
    # polish is asked once for two iterations
    fake_llm.script("analyzer", _polish_or(faithful_analyzer()))
    fake_llm.script("judge", judge_answer(TASK_COMPLEXITY=0), judge_answer())
    analyzer_client, judge_client = _clients(fake_llm)
    options = RunOptions(optimize_task=True, max_iterations=3)
    with analyzer_client, judge_client:
        clients = ModelClients(analyzer=analyzer_client, judge=judge_client, rubric=None)
        done = run_item(discord, options, *analysis_for(clients, options, model="analyzer"))
    polish_requests = [r for r in fake_llm.requests("analyzer") if POLISH_SYSTEM.strip()[:60] in r.prompt_text()]
    assert len(polish_requests) == 1
    assert done.package.task.instruction in polish_requests[0].prompt_text()
    task = done.package.task.model_dump(by_alias=True)
    assert task["instructions"] == {"zh": POLISHED["zh"], "en": POLISHED["en"]}
    assert task["instructionPolish"] == {"by": "analyzer", "notes": "named the channel"}
    assert len(done.snapshots) == 2
    assert done.snapshots[0].usage.by_role["polish"].calls == 1 and "polish" not in done.snapshots[1].usage.by_role
    # every iteration's snapshot (what the Item page and the best copies show) holds the pair
    for snapshot in done.snapshots:
        assert snapshot.package.task.model_dump(by_alias=True)["instructions"]["en"] == POLISHED["en"]


def test_a_failing_model_polish_falls_back_to_the_offline_tidy(fake_llm: FakeLlmServer, discord: Recording) -> None:
    def analyze(request: RecordedRequest) -> dict[str, Any]:
        if POLISH_SYSTEM.strip()[:60] in request.prompt_text():
            return {"status": 400, "error": "model does not polish"}
        return faithful_analyzer()(request)

    fake_llm.script("analyzer", analyze)
    fake_llm.script("judge", judge_answer())
    analyzer_client, judge_client = _clients(fake_llm)
    options = RunOptions(optimize_task=True)
    with analyzer_client, judge_client:
        clients = ModelClients(analyzer=analyzer_client, judge=judge_client, rubric=None)
        done = run_item(discord, options, *analysis_for(clients, options, model="analyzer"))
    assert done.outcome.status == "completed"
    polish = done.package.task.model_dump(by_alias=True)["instructionPolish"]
    assert polish["by"] == "offline" and "model polish failed" in polish["notes"]
