"""The judge loop end to end: real importer, builder, self-check and validator; fake model server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from rlauto_core.config.options import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.llm import (
    EndpointConfig,
    HttpModelClient,
    ModelClients,
    PermanentModelError,
    RetryPolicy,
    Role,
)
from rlauto_core.package.judgement import Dimension
from rlauto_core.pipeline import Finished, IterationSnapshot, analysis_for, run_item
from rlauto_core.recording import Recording
from tests.conftest import EXAMPLES
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer

KEYS = {
    Role.ANALYZER: "sk-ROLEKEY-analyzer-0001",
    Role.JUDGE: "sk-ROLEKEY-judge-0002",
    Role.RUBRIC: "sk-ROLEKEY-rubric-0003",
}
MakeClients = Callable[..., ModelClients]


def run_iterations(recording: Recording, options: RunOptions, clients: ModelClients, **hooks: Any) -> Finished:
    """The one loop with these clients: the analyzer and judge `analysis_for` picks."""
    seen = hooks.pop("on_iteration", None)

    def record(snapshot: IterationSnapshot) -> dict[str, str]:
        if seen is not None:
            seen(snapshot)
        return {}

    return run_item(recording, options, *analysis_for(clients, options), on_iteration=record, **hooks)


@pytest.fixture(scope="module")
def discord() -> Recording:
    return import_path(EXAMPLES / "discord_reply.zip")


@pytest.fixture(scope="module")
def tracker() -> Recording:
    return import_path(EXAMPLES / "issue_tracker.zip")


@pytest.fixture
def make_clients(fake_llm: FakeLlmServer) -> Iterator[MakeClients]:
    opened: list[HttpModelClient] = []

    def make(
        api_mode: str = "chat", roles: tuple[Role, ...] = (Role.ANALYZER, Role.JUDGE, Role.RUBRIC)
    ) -> ModelClients:
        made: dict[Role, HttpModelClient | None] = {}
        for role in (Role.ANALYZER, Role.JUDGE, Role.RUBRIC):
            if role not in roles:
                made[role] = None
                continue
            config = EndpointConfig(role=role, base_url=fake_llm.base_url(), model=str(role),
                                    api_key=SecretStr(KEYS[role]), api_mode=api_mode,  # type: ignore[arg-type]
                                    key_source=f"{role.upper()}_KEY")  # fmt: skip
            made[role] = HttpModelClient(config, retry=RetryPolicy(max_attempts=2, base_seconds=0.01))
            opened.append(made[role])  # type: ignore[arg-type]
        return ModelClients(analyzer=made[Role.ANALYZER], judge=made[Role.JUDGE], rubric=made[Role.RUBRIC])

    yield make
    for client in opened:
        client.close()


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
@pytest.mark.parametrize("example", ["discord", "tracker"])
def test_a_good_answer_passes_in_one_iteration(
    fake_llm: FakeLlmServer, make_clients: MakeClients, api_mode: str, example: str, request: pytest.FixtureRequest
) -> None:
    recording: Recording = request.getfixturevalue(example)
    fake_llm.script("analyzer", faithful_analyzer())
    fake_llm.script("judge", judge_answer())
    seen: list[IterationSnapshot] = []
    outcome = run_iterations(recording, RunOptions(), make_clients(api_mode), on_iteration=seen.append)

    assert outcome.outcome.passed and outcome.outcome.message == "passed at iteration 1/5, score 12/12"
    assert (fake_llm.calls("analyzer"), fake_llm.calls("judge"), fake_llm.calls("rubric")) == (1, 1, 0)
    assert [r.iteration for r in seen] == [1] and seen[0].validator_result.source == "validator"
    assert outcome.best.judge_result.source == "model"
    validation = outcome.package.validation
    assert validation.verdict == "PASS" and validation.iterations_used == 1 and len(validation.judge) == 1
    assert validation.self_check is not None and validation.self_check.golden_full_marks
    assert outcome.usage.by_role["analyzer"].calls == 1 and outcome.usage.by_role["judge"].calls == 1
    assert outcome.usage.total.total_tokens > 0
    system = fake_llm.requests("analyzer")[0].prompt_text()
    assert ("STRAY-CALL REJECTION" in system) is (example == "discord")
    if example == "discord":  # tool names exactly as recorded
        names = {c.name for s in outcome.package.task.subtasks for c in s.api_calls}
        assert "discord_send_message" in names and all(s.group_mode == "mcp" for s in outcome.package.task.subtasks)


def test_judge_feedback_memory_and_user_feedback_reach_the_next_prompt(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer())
    fake_llm.script("judge", judge_answer("too simple", TASK_COMPLEXITY=1), judge_answer())
    options = RunOptions(strict_full_marks=True, feedback="Keep the reply text verbatim.")
    outcome = run_iterations(discord, options, make_clients())

    assert outcome.outcome.passed and outcome.outcome.iterations_used == 2 and outcome.outcome.best_iteration == 2
    first, second = (r.prompt_text() for r in fake_llm.requests("analyzer"))
    assert "Keep the reply text verbatim." in first and "JUDGE FEEDBACK" not in first
    assert "=== JUDGE FEEDBACK ===" in second and "TASK COMPLEXITY 1/2" in second and "too simple" in second
    assert "=== ITERATION MEMORY" in second and "seen 1x, iterations 1-1" in second
    assert "Keep the reply text verbatim." in second and "2 of 5" in second
    assert outcome.snapshots[0].memory.items[0].dimension == "TASK COMPLEXITY"


def test_without_a_pass_the_best_is_kept_and_the_message_says_so(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script(
        "analyzer",
        faithful_analyzer(),
    )
    fake_llm.script(
        "judge",
        judge_answer(INSTRUCTION_CLARITY=1, TASK_COMPLEXITY=1, RUBRIC_COVERAGE=1, EVIDENCE_GROUNDING=1),
        judge_answer(INSTRUCTION_CLARITY=1, TASK_COMPLEXITY=1, RUBRIC_COVERAGE=1),
        judge_answer(
            INSTRUCTION_CLARITY=1, TASK_COMPLEXITY=1, RUBRIC_COVERAGE=1, EVIDENCE_GROUNDING=1, CHECKER_VERIFIABILITY=1
        ),
    )
    outcome = run_iterations(discord, RunOptions(max_iterations=3), make_clients())

    # the judge's leading reason follows ("scored" is what the scripted judge says)
    assert not outcome.outcome.passed and outcome.outcome.message == "iterated 3/3, best 9: scored"
    assert outcome.outcome.best_iteration == 2 and outcome.best.judge_result.total == 9
    assert [j.result.total for j in outcome.package.validation.judge] == [8, 9, 7]
    assert outcome.package.validation.verdict == "NEEDS_REVISION"
    assert (fake_llm.calls("analyzer"), fake_llm.calls("judge")) == (3, 3)
    third = fake_llm.requests("analyzer")[2].prompt_text()
    assert "seen 2x, iterations 1-2" in third  # repeated problems merged, not repeated


@pytest.mark.parametrize(
    ("options", "passes"),
    [
        (RunOptions(max_iterations=1), True),
        (RunOptions(max_iterations=1, strict_full_marks=True), False),
        (RunOptions(max_iterations=1, strict_full_marks=True, ignore_task_complexity_for_full_marks=True), True),
    ],
    ids=["default", "strict", "strict+ignore-complexity"],
)
def test_pass_policy_variants_decide_on_the_same_judge_answer(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording, options: RunOptions, passes: bool
) -> None:
    fake_llm.script("analyzer", faithful_analyzer())
    fake_llm.script("judge", judge_answer(TASK_COMPLEXITY=1))
    outcome = run_iterations(discord, options, make_clients())
    assert outcome.outcome.passed is passes and outcome.best.judge_result.total == 11
    assert outcome.best.judge_result.verdict == ("PASS" if passes else "NEEDS_REVISION")


def _wrong_checker(answer: dict[str, Any]) -> dict[str, Any]:
    answer["rubric_checkers"] = {
        "call_c9": {"kind": "mcp_call", "tool": "discord_send_message", "arguments": {"content": "nope"}}
    }
    return answer


def test_the_model_judge_is_skipped_when_the_validator_finds_a_zero(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(_wrong_checker), faithful_analyzer())
    fake_llm.script("judge", judge_answer())
    outcome = run_iterations(discord, RunOptions(), make_clients())

    first = outcome.snapshots[0]
    assert first.judge_skipped is not None and first.judge_skipped.startswith("validator scored 0 on")
    assert first.judge_result.source == "validator" and "judge" not in first.usage.by_role
    assert fake_llm.calls("judge") == 1  # only the second iteration reached the model judge
    assert outcome.outcome.passed and outcome.outcome.best_iteration == 2
    second_prompt = fake_llm.requests("analyzer")[1].prompt_text()
    assert "(validator)" in second_prompt and "CHECKER VERIFIABILITY 0/2" in second_prompt


def _with_noise(answer: dict[str, Any]) -> dict[str, Any]:
    answer["golden_trajectory"] = ["c7", *answer["golden_trajectory"]]  # c7 is discord_heartbeat
    return answer


def test_a_noise_call_in_the_golden_trajectory_is_reasked(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(_with_noise), faithful_analyzer())
    fake_llm.script("judge", judge_answer())
    outcome = run_iterations(discord, RunOptions(), make_clients())
    assert outcome.outcome.passed and fake_llm.calls("analyzer") == 2
    reask = fake_llm.requests("analyzer")[1].messages()[-1]["content"]
    assert "'c7' is heartbeat noise (NOISE BLACKLIST)" in reask
    assert "c7" not in [s.call_id for s in outcome.package.golden_trajectory]
    assert outcome.snapshots[0].usage.by_role["analyzer"].calls == 2


def _new_rubric(answer: dict[str, Any]) -> dict[str, Any]:
    answer["recommended_rubrics"].append(
        {
            "title": "The reply quotes the hotfix",
            "description": "",
            "max_score": 1,
            "checker_key": "reply_mentions_hotfix",
        }
    )
    return answer


REPLY_CHECKER = {
    "kind": "mcp_call",
    "tool": "discord_send_message",
    "arguments": {"content": {"contains": "hotfix", "case_insensitive": True}},
}


def test_a_rubric_left_without_checker_is_completed_by_the_rubric_model(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(_new_rubric))
    fake_llm.script("judge", judge_answer())
    fake_llm.script("rubric", {"fenced": {"rubric_checkers": {"reply_mentions_hotfix": REPLY_CHECKER}}})
    outcome = run_iterations(discord, RunOptions(), make_clients())

    assert fake_llm.calls("rubric") == 1
    # the model's checker as written, and the call must succeed as its protocol says (normalize.py)
    assert outcome.package.rubric_checkers["reply_mentions_hotfix"] == {**REPLY_CHECKER, "succeeds": True}
    assert any(r.checker_key == "reply_mentions_hotfix" for r in outcome.package.task.rubrics)
    assert "reply_mentions_hotfix" in fake_llm.requests("rubric")[0].prompt_text()
    assert outcome.usage.by_role["rubric"].calls == 1


def test_without_a_rubric_model_an_incomplete_rubric_is_dropped_with_a_note(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(_new_rubric))
    fake_llm.script("judge", judge_answer())
    outcome = run_iterations(discord, RunOptions(), make_clients(roles=(Role.ANALYZER, Role.JUDGE)))
    assert all(r.checker_key != "reply_mentions_hotfix" for r in outcome.package.task.rubrics)
    assert any("dropped" in n and "has no checker" in n for n in outcome.snapshots[0].draft.notes)


def test_without_a_judge_model_the_validator_decides(
    fake_llm: FakeLlmServer, make_clients: MakeClients, tracker: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer())
    outcome = run_iterations(tracker, RunOptions(), make_clients(roles=(Role.ANALYZER,)))
    assert outcome.snapshots[0].judge_skipped == "no judge model configured (JUDGE_API_KEY)"
    assert outcome.best.judge_result.source == "validator" and outcome.outcome.passed == (
        outcome.best.judge_result.total >= 10
    )
    assert fake_llm.calls("judge") == 0


def test_a_permanent_error_in_a_later_iteration_keeps_the_best(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(), {"status": 401, "error": "key revoked"})
    fake_llm.script("judge", judge_answer(TASK_COMPLEXITY=1))
    outcome = run_iterations(discord, RunOptions(strict_full_marks=True), make_clients())
    assert not outcome.outcome.passed and outcome.outcome.iterations_used == 1
    assert outcome.outcome.message.startswith("iterated 1/5, best 11; stopped by: analyzer model at 127.0.0.1")
    assert outcome.outcome.error is not None and "401" in outcome.outcome.error
    assert fake_llm.calls("analyzer") == 2  # the 401 was not retried


def test_a_permanent_error_in_the_first_iteration_fails_the_item_at_once(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", {"context_too_long": True})
    with pytest.raises(PermanentModelError, match="prompt too long"):
        run_iterations(discord, RunOptions(), make_clients())
    assert fake_llm.calls("analyzer") == 1 and fake_llm.calls("judge") == 0


def test_transient_errors_inside_the_loop_are_retried_by_the_client(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", {"status": 502}, faithful_analyzer())
    fake_llm.script("judge", {"drop": True}, judge_answer())
    outcome = run_iterations(discord, RunOptions(), make_clients())
    assert outcome.outcome.passed and (fake_llm.calls("analyzer"), fake_llm.calls("judge")) == (2, 2)


def test_no_key_and_no_recording_secret_leaves_its_place(
    fake_llm: FakeLlmServer, make_clients: MakeClients, tracker: Recording
) -> None:
    """Role keys go only to their role's requests; the recording's CANARY secrets reach no prompt,
    and no key reaches the persisted records or the package."""
    fake_llm.script("analyzer", faithful_analyzer(_new_rubric_api))
    fake_llm.script("judge", judge_answer(TASK_COMPLEXITY=1), judge_answer())
    labels = {"kind": "http_call", "method": "GET", "path_template": "/v2/projects/{projectId}/labels",
              "path_params": {"projectId": "web"}}  # fmt: skip
    # any GET would do for "Labels are listed" without listing labels: the validator would stop there
    fake_llm.script("rubric", {"json": {"rubric_checkers": {"labels_listed": labels}}})
    outcome = run_iterations(tracker, RunOptions(strict_full_marks=True), make_clients())
    requests = fake_llm.requests()
    assert {r.role for r in requests} == {"analyzer", "judge", "rubric"}
    for sent in requests:
        assert sent.headers["authorization"] == f"Bearer {KEYS[Role(sent.role)]}"
        body = repr(sent.body)
        assert "CANARY" not in body and "ROLEKEY" not in body
    persisted = outcome.outcome.model_dump_json() + "".join(r.model_dump_json() for r in outcome.snapshots)
    assert "ROLEKEY" not in persisted and "CANARY" not in outcome.package.model_dump_json()


def _new_rubric_api(answer: dict[str, Any]) -> dict[str, Any]:
    answer["recommended_rubrics"].append(
        {"title": "Labels are listed", "description": "", "max_score": 1, "checker_key": "labels_listed"}
    )
    return answer


def test_clients_from_settings_use_each_roles_configured_endpoint_and_key(
    fake_llm: FakeLlmServer, discord: Recording
) -> None:
    from rlauto_core.config import Settings
    from rlauto_core.llm import open_clients

    fake_llm.script("analyzer", faithful_analyzer())
    fake_llm.script("judge-from-options", judge_answer())
    settings = Settings(
        default_base_url=fake_llm.url,  # bare host: normalized to /v1
        default_model="analyzer",
        default_api_key=SecretStr(KEYS[Role.ANALYZER]),
        judge_base_url="http://judge.invalid/v1",
        judge_model="judge",
        judge_api_key=SecretStr(KEYS[Role.JUDGE]),
        item_max_attempts=1,
        _env_file=None,  # type: ignore[call-arg]
    )
    options = RunOptions.model_validate(
        {"judge": {"baseURL": fake_llm.url + "/v1/chat/completions", "model": "judge-from-options"}}
    )
    with open_clients(settings, options) as clients:
        outcome = run_iterations(discord, options, clients)
    assert outcome.outcome.passed
    [judged] = fake_llm.requests("judge-from-options")
    assert judged.headers["authorization"] == f"Bearer {KEYS[Role.JUDGE]}"
    assert fake_llm.requests("analyzer")[0].headers["authorization"] == f"Bearer {KEYS[Role.ANALYZER]}"
    assert fake_llm.calls("rubric") == 0  # no RUBRIC_GEN_API_KEY: no rubric client


def _cross_channel(answer: dict[str, Any]) -> dict[str, Any]:
    answer["golden_trajectory"] = ["c6", *answer["golden_trajectory"]]  # list_messages on #random
    return answer


def _unread_first(answer: dict[str, Any]) -> dict[str, Any]:
    golden = answer["golden_trajectory"]
    golden.insert(golden.index("c11"), "c10")  # get_unread_count before mark_channel_read
    return answer


@pytest.mark.parametrize(
    ("tweak", "words"),
    [
        (_cross_channel, "'c6' (discord_list_messages) touches channelId 1101987654321000042, not the main entity"),
        (_unread_first, "c10 (discord_get_unread_count) checks unread before mark-read (ORDER CONSTRAINTS)"),
    ],
    ids=["entity-consistency", "order"],
)
def test_mcp_trajectory_rule_breaches_are_reasked(
    fake_llm: FakeLlmServer,
    make_clients: MakeClients,
    discord: Recording,
    tweak: Callable[[dict[str, Any]], dict[str, Any]],
    words: str,
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(tweak), faithful_analyzer())
    fake_llm.script("judge", judge_answer())
    outcome = run_iterations(discord, RunOptions(), make_clients())
    assert outcome.outcome.passed and fake_llm.calls("analyzer") == 2
    assert words in fake_llm.requests("analyzer")[1].messages()[-1]["content"]
    assert {"c6", "c10"}.isdisjoint(s.call_id for s in outcome.package.golden_trajectory)


def test_a_breach_repeated_after_the_reask_fails_the_item(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    from rlauto_core.llm import InvalidAnswerError

    fake_llm.script("analyzer", faithful_analyzer(_cross_channel))
    with pytest.raises(InvalidAnswerError, match="ENTITY CONSISTENCY"):
        run_iterations(discord, RunOptions(), make_clients())
    assert fake_llm.calls("analyzer") == 2 and fake_llm.calls("judge") == 0


def _invented_id(answer: dict[str, Any]) -> dict[str, Any]:
    answer["recommended_instruction"] += " Also pin message 777777777777."
    return answer


def test_the_model_judge_reads_the_validators_findings(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    fake_llm.script("analyzer", faithful_analyzer(_invented_id))
    fake_llm.script("judge", judge_answer(EVIDENCE_GROUNDING=1))
    outcome = run_iterations(discord, RunOptions(max_iterations=1), make_clients())
    assert outcome.snapshots[0].validator_result.score_of(Dimension.EVIDENCE_GROUNDING) == 1
    judge_prompt = fake_llm.requests("judge")[0].prompt_text()
    assert "=== DETERMINISTIC VALIDATOR FINDINGS" in judge_prompt
    assert "EVIDENCE GROUNDING 1/2" in judge_prompt and "777777777777" in judge_prompt


def _broken_checkers(answer: dict[str, Any]) -> dict[str, Any]:
    answer["recommended_rubrics"] += [
        {"title": "bad regex", "checker_key": "k_regex", "checker": {"kind": "mcp_call", "tool": {"regex": "("}}},
        {"title": "unknown kind", "checker_key": "k_kind", "checker": {"kind": "telepathy"}},
        {"title": "unknown ref", "checker_key": "k_order", "checker": {"kind": "order", "before": "nope", "after": "call_c9"}},
        {"title": "uses a broken extra", "checker_key": "k_uses", "checker": {"kind": "absent", "match": ["broken_extra"]}},
        {"title": "cycle", "checker_key": "k_cyc",
         "checker": {"kind": "mcp_call", "tool": "x", "arguments": {"a": {"same_as": {"checker": "k_cyc", "field": "arguments.a"}}}}},
        {"title": "same key twice", "checker_key": "call_c9", "max_score": 10},
    ]  # fmt: skip
    answer["rubric_checkers"] = {"broken_extra": {"kind": "mcp_call", "arguments": {"x": {"gt": "abc"}}}}
    return answer


def test_broken_model_checkers_are_dropped_until_the_catalog_is_valid(
    fake_llm: FakeLlmServer, make_clients: MakeClients, discord: Recording
) -> None:
    """Without a rubric model: each broken checker goes (with a note), and so does whatever referenced it."""
    fake_llm.script("analyzer", faithful_analyzer(_broken_checkers))
    fake_llm.script("judge", judge_answer())
    outcome = run_iterations(discord, RunOptions(max_iterations=1), make_clients(roles=(Role.ANALYZER, Role.JUDGE)))
    package = outcome.package
    keys = [r.checker_key for r in package.task.rubrics]
    assert not {"k_regex", "k_kind", "k_order", "k_uses", "k_cyc", "broken_extra"} & (
        set(keys) | set(package.rubric_checkers)
    )
    assert keys.count("call_c9") == 1
    assert not [f for f in package.validation.flags if f.code.startswith("dsl_")]
    notes = "\n".join(outcome.snapshots[0].draft.notes)
    assert "bad regex" in notes and "unknown kind 'telepathy'" in notes and "cycle" in notes and "used twice" in notes
    assert outcome.outcome.passed  # what is left is the good draft catalog
