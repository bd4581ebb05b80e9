"""The run policy on its own: fuses, hints, re-routes, segments, the cap, chat rounds; and
properties over random step sequences against a plain reading of the rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlauto_core.agent.policy import (
    OBSERVATION_TOOLS,
    ChatReply,
    NoticeKind,
    PolicyState,
    Resumed,
    RunPolicy,
    StepLine,
    StepRecord,
    default_state_changing,
    replay,
)


def step(tool: str = "tap", ok: bool = False, error: str | None = "not found", **args: Any) -> StepRecord:
    return StepRecord(tool=tool, args=args or {"text": "A"}, ok=ok, error=None if ok else error)


def kinds(policy: RunPolicy, steps: list[StepRecord]) -> list[list[str]]:
    return [[f"{n.kind}:{n.fuse}" for n in policy.on_step(s)] for s in steps]


def test_the_same_action_pauses_at_six_with_a_hint_at_three_and_one_reroute() -> None:
    out = kinds(RunPolicy(), [step()] * 6)
    assert out == [[], [], ["hint:same_action"], ["reroute:same_action"], [], ["pause:same_action"]]


def test_a_successful_repeat_is_still_a_repeat_and_a_different_success_is_progress() -> None:
    policy = RunPolicy()
    kinds(policy, [step(ok=True, text="next")] * 5)
    assert policy.state.same_action == 5
    kinds(policy, [step(ok=True, text="other")])
    assert (policy.state.same_action, policy.state.failures, policy.state.segment_reroutes) == (1, 0, 0)


def test_the_same_error_over_different_actions_pauses_at_eight() -> None:
    steps = [step(text=str(i % 2), error="device gone") for i in range(8)]
    out = kinds(RunPolicy(), steps)
    assert out[-1] == ["pause:same_error"] and all("pause" not in "".join(o) for o in out[:-1])
    assert out[2] == ["hint:same_error"] and out[4] == ["reroute:same_error"]


def test_fourteen_different_failures_pause() -> None:
    steps = [step(text=str(i), error=f"error {i}") for i in range(14)]
    out = kinds(RunPolicy(), steps)
    assert out[6] == ["reroute:failures_in_a_row"] and out[-1] == ["pause:failures_in_a_row"]
    assert sum(bool(o) for o in out) == 2  # no hint: failures in a row are not repeats


def test_observations_are_invisible_even_when_they_fail() -> None:
    policy = RunPolicy()
    for tool in sorted(OBSERVATION_TOOLS):
        assert policy.on_step(step(tool=tool, error="boom")) == []
        assert policy.on_step(step(tool=tool, ok=True)) == []
    assert policy.state == PolicyState(toolless_rounds=0)


def test_a_success_of_a_control_tool_breaks_a_failure_streak_but_not_a_repeat() -> None:
    policy = RunPolicy()
    kinds(policy, [step()] * 2 + [step(tool="report_task", ok=True, kind="progress")] + [step()] * 3)
    assert (policy.state.same_action, policy.state.failures) == (5, 3)


def test_two_reroutes_per_segment_and_the_same_failure_never_earns_another() -> None:
    progress_report = step(tool="report_task", ok=True, kind="progress")  # a success, not progress
    policy = RunPolicy()
    out = kinds(policy, [step(text="A", error="no A")] * 4)
    assert out[3] == ["reroute:same_action"]
    kinds(policy, [step(tool="swipe", error="x", direction="up"), progress_report])
    out = kinds(policy, [step(text="A", error="no A")] * 4)  # the same failure again: nothing new
    assert not any("reroute" in k for o in out for k in o)
    kinds(policy, [progress_report])
    assert kinds(policy, [step(text="B", error="no B")] * 4)[3] == ["reroute:same_action"]
    kinds(policy, [progress_report])
    assert kinds(policy, [step(text="C", error="no C")] * 4)[3] == []  # two per segment
    assert policy.state.segment_reroutes == 2
    kinds(policy, [step(tool="app_start", ok=True, package="a.b")])  # a successful new change
    assert policy.state.segment_reroutes == 0 and policy.state.segment_signatures == []
    assert kinds(policy, [step(text="A", error="no A")] * 4)[3] == ["reroute:same_action"]


def test_a_takeover_starts_a_new_segment() -> None:
    policy = RunPolicy()
    kinds(policy, [step()] * 5)
    assert policy.on_step(step(tool="request_takeover", ok=True, reason="login")) == []
    assert kinds(policy, [step()] * 5)[-1] == []  # counting started over


def test_a_paused_policy_refuses_steps_until_resumed() -> None:
    policy = RunPolicy()
    kinds(policy, [step()] * 6)
    with pytest.raises(ValueError, match="paused"):
        policy.on_step(step())
    policy.resume()
    assert policy.state.paused is None and policy.state.same_action == 0


def test_the_safety_cap_counts_model_calls_since_the_last_resume() -> None:
    policy = RunPolicy(max_model_calls=2)
    for _ in range(2):
        assert policy.budget_left
        policy.on_model_call()
    assert not policy.budget_left
    policy.resume()
    assert policy.budget_left and policy.state.model_calls == 2
    with pytest.raises(ValueError):
        RunPolicy(max_model_calls=0)


def test_four_tool_less_rounds_end_a_chat_and_a_successful_call_resets_them() -> None:
    policy = RunPolicy()
    assert [policy.on_reply(0) for _ in range(3)] == [False, False, False]
    policy.on_step(step(tool="wait", ok=True))
    assert [policy.on_reply(0) for _ in range(4)] == [False, False, False, True]


def test_replay_resumes_at_resume_lines_and_ignores_steps_after_a_pause() -> None:
    lines: list[tuple[int, StepRecord | Resumed]] = [(n, step()) for n in range(1, 9)]
    verdict = replay(lines)
    assert (verdict.verdict, verdict.fuse, verdict.at, verdict.hints) == ("paused", "same_action", 6, [3])
    resumed = [*lines[:6], (7, Resumed()), *[(n, step()) for n in range(8, 11)]]
    assert replay(resumed).cli_dict() == {"verdict": "continue", "fuse": None, "at": None, "hints": [3, 10]}


# -- properties -----------------------------------------------------------------------------

_PLAIN = st.builds(
    StepRecord,
    tool=st.sampled_from(["tap", "tap", "swipe", "type_text", "screenshot", "wait", "ui_tree", "report_task"]),
    args=st.sampled_from([{"text": "A"}, {"text": "B"}, {}]),
    ok=st.booleans(),
    error=st.sampled_from(["e1", "e2", None]),
    state_changing=st.sampled_from([None, None, None, True, False]),
)
# calls that never reached the phone, under tool names of every kind
_REJECTED = st.builds(
    StepRecord,
    tool=st.sampled_from(["tap", "screenshot", "open_app"]),
    args=st.sampled_from([{"text": "A"}, {}]),
    ok=st.just(False),
    error=st.sampled_from(["e1", "unknown tool"]),
    rejected=st.sampled_from(["unknown_tool", "not_json", "invalid_arguments"]),
)
_STEP = st.one_of(_PLAIN, _PLAIN, _PLAIN, _REJECTED)
# loops are runs of the same step: repeats drawn in bursts, so fuses are actually reached
_RUNS = st.lists(st.tuples(_STEP, st.integers(1, 9)), max_size=25).map(
    lambda runs: [s for s, n in runs for _ in range(n)]
)


def _reference(steps: list[StepRecord]) -> tuple[int, str] | None:
    """The fuses read literally from the issue, written independently of the module."""
    last_key, same, last_error, same_error, failures = None, 0, None, 0, 0
    for number, s in enumerate(steps, start=1):
        never_ran = s.rejected is not None  # an error that changed nothing, whatever the tool
        if not never_ran and s.tool in OBSERVATION_TOOLS and s.state_changing is not True:
            continue
        changes = (
            False if never_ran else default_state_changing(s.tool) if s.state_changing is None else s.state_changing
        )
        if changes:
            key = (s.tool, tuple(sorted(s.args.items())))
            same = same + 1 if key == last_key else 1
            last_key = key
            if same >= 6:
                return number, "same_action"
        if s.ok:
            failures, last_error, same_error = 0, None, 0
            continue
        error = s.error or "failed"
        failures += 1
        same_error = same_error + 1 if error == last_error else 1
        last_error = error
        if same_error >= 8:
            return number, "same_error"
        if failures >= 14:
            return number, "failures_in_a_row"
    return None


def _pause(steps: list[StepRecord]) -> tuple[int, str] | None:
    verdict = replay(list(enumerate(steps, start=1)))
    return None if verdict.at is None else (verdict.at, str(verdict.fuse))


@settings(max_examples=300, deadline=None)
@given(_RUNS)
def test_the_pause_is_where_a_literal_reading_of_the_rules_puts_it(steps: list[StepRecord]) -> None:
    assert _pause(steps) == _reference(steps)


@settings(max_examples=200, deadline=None)
@given(_RUNS, st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["screenshot", "wait"]))))
def test_inserting_observations_changes_no_decision(steps: list[StepRecord], looks: list[tuple[int, str]]) -> None:
    steps = [s for s in steps if not s.is_observation]
    mixed: list[StepRecord] = list(steps)
    for position, tool in sorted(looks, reverse=True):
        mixed.insert(min(position, len(mixed)), StepRecord(tool=tool, ok=False, error="slow"))
    plain, noisy = RunPolicy(), RunPolicy()
    decisions = []
    for s in mixed:
        if plain.state.paused is not None:
            break
        got = [n.model_dump() for n in noisy.on_step(s)]
        if s.is_observation:
            assert got == []
        else:
            decisions.append(got == [n.model_dump() for n in plain.on_step(s)])
    assert all(decisions)


@settings(max_examples=200, deadline=None)
@given(_RUNS, st.integers(0, 60))
def test_a_saved_and_reloaded_state_decides_the_same(steps: list[StepRecord], cut: int) -> None:
    whole = RunPolicy()
    split = RunPolicy()
    for index, s in enumerate(steps):
        if whole.state.paused is not None:
            break
        if index == cut:
            split = RunPolicy(PolicyState.model_validate_json(split.state.model_dump_json()))
        assert [n.model_dump() for n in whole.on_step(s)] == [n.model_dump() for n in split.on_step(s)]


@settings(max_examples=200, deadline=None)
@given(_RUNS)
def test_hints_never_stop_and_reroutes_stay_within_two_per_segment(steps: list[StepRecord]) -> None:
    policy = RunPolicy()
    for s in steps:
        if policy.state.paused is not None:
            break
        notices = policy.on_step(s)
        if notices and all(n.kind is NoticeKind.HINT for n in notices):
            assert policy.state.paused is None
        assert policy.state.segment_reroutes <= 2


# -- calls that never reached the phone, chat rounds in the log ---------------------------------


def rejected(tool: str, why: str, error: str, **args: Any) -> StepRecord:
    return StepRecord(tool=tool, args=args, ok=False, error=error, rejected=why)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        rejected("open_app", "unknown_tool", "unknown tool 'open_app'", package="com.example.notes"),
        rejected("tap", "invalid_arguments", "invalid arguments: arguments: give text, resource_id or description"),
        rejected("tap", "not_json", "arguments are not valid JSON", _raw="{text: Save"),
        # an observation tool's name does not make a rejected call invisible: it ran nothing
        rejected("screenshot", "invalid_arguments", "invalid arguments: zoom: extra inputs are not permitted", zoom=2),
    ],
)
def test_a_call_that_never_reached_the_phone_is_an_error_never_a_repeated_action(call: StepRecord) -> None:
    out = kinds(RunPolicy(), [call] * 8)
    assert out[-1] == ["pause:same_error"] and all("same_action" not in k for o in out for k in o)
    assert out[2] == ["hint:same_error"] and out[4] == ["reroute:same_error"]
    assert not call.changes_state and not call.is_observation


def test_rejected_calls_count_as_failures_and_keep_the_same_action_streak_apart() -> None:
    policy = RunPolicy()
    kinds(policy, [step()] * 2)
    kinds(policy, [rejected("bogus", "unknown_tool", f"unknown tool 'bogus{i}'") for i in range(3)])
    # the rejected calls changed nothing: the tap's streak goes on, the failures add up
    assert (policy.state.same_action, policy.state.failures) == (2, 5)
    different = [rejected(f"t{i}", "unknown_tool", f"unknown tool 't{i}'") for i in range(14)]
    assert kinds(RunPolicy(), different)[-1] == ["pause:failures_in_a_row"]


def test_a_rejected_call_cannot_be_a_success() -> None:
    with pytest.raises(ValueError, match="never reached the phone"):
        StepRecord(tool="tap", ok=True, rejected="unknown_tool")


def test_replay_ends_a_chat_at_its_fourth_tool_less_answer_and_a_successful_call_resets_it() -> None:
    chat = ChatReply()
    lines: list[tuple[int, StepLine]] = [(1, chat), (2, chat), (3, chat), (4, chat), (5, step())]
    assert replay(lines).cli_dict() == {"verdict": "chat_ended", "fuse": None, "at": 4, "hints": []}
    reset = [(1, chat), (2, chat), (3, chat), (4, step(tool="wait", ok=True)), (5, chat), (6, chat), (7, chat)]
    assert replay(reset).verdict == "continue"
    resumed = [(1, chat), (2, chat), (3, chat), (4, Resumed()), (5, chat), (6, chat), (7, chat)]
    assert replay(resumed).verdict == "continue"  # a resume starts the count over, as the loop does
