"""Runs that loop pause exactly at the fuse, resume where they stopped and finish; hints,
re-routes, observation tools, the safety cap; what the loop did replays from its step log."""

from __future__ import annotations

import json
from typing import Any

import pytest

from device_flows.demo import DemoAdbServer, NotesApp
from rlauto_core.agent.events import EventLog, PolicyApplied, RunEnded, RunStarted, ToolCalled
from rlauto_core.agent.policy import parse_step_log, replay
from rlauto_core.agent.run import ModelChoice, RunModel, RunStore
from rlauto_core.errors import ConfigError
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import SERIAL, MakeLoop
from tests.agent.scripts import PACKAGE, WRITE_NOTE, call, completion, images_in, requests_messages, texts_of, turn
from tests.fakes.llm_server import FakeLlmServer


def _events(storage: FsspecStorage, run_id: str) -> list[Any]:
    return [logged.event for logged in EventLog(storage, run_id).read(0)]


def _replayed(storage: FsspecStorage, run_id: str) -> Any:
    return replay(parse_step_log(storage.read_bytes(f"agent/runs/{run_id}/steps.jsonl"), "steps.jsonl"))


def _finish_after_resume(
    fake_llm: FakeLlmServer, harness: Any, run_id: str, notes_app: NotesApp, earlier: str = "Nope"
) -> None:
    fake_llm.reset()
    fake_llm.script("agent", *WRITE_NOTE)
    result = harness.loop.resume(run_id, note="I closed the popup")
    assert result.outcome == "completed" and result.deliverables == ["files/notes.jpg"]
    assert notes_app.notes[-1] == "Call Alice"
    first = fake_llm.requests("agent")[0].body
    # the same run goes on: its earlier calls, the person's note and a fresh screen
    assert "I closed the popup" in texts_of(first) and images_in(first) == 1
    assert earlier in str(first["messages"])


def test_the_same_action_six_times_pauses_then_the_run_resumes_and_finishes(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage, notes_app: NotesApp
) -> None:
    fake_llm.script("agent", turn(call("tap", text="Nope")))  # the last step repeats
    harness = make_loop()
    result = harness.loop.start("run-6", "Tap Nope")
    assert (result.outcome, result.fuse, result.steps, result.model_calls) == ("paused", "same_action", 6, 6)
    assert result.resumable and RunStore(storage).load("run-6").status == "paused"  # type: ignore[union-attr]
    notices = [(e.step, e.kind) for e in _events(storage, "run-6") if isinstance(e, PolicyApplied)]
    assert notices == [(3, "hint"), (4, "reroute"), (6, "pause")]  # step 5 is the same failure: no new re-route
    requests = fake_llm.requests("agent")
    assert "3 times in a row now" in texts_of(requests[3].body)  # the hint reaches the model
    assert "try a DIFFERENT method" in texts_of(requests[4].body) and "Tap Nope" in texts_of(requests[4].body)
    verdict = _replayed(storage, "run-6")
    assert (verdict.verdict, verdict.fuse, verdict.at, verdict.hints, verdict.reroutes) == (
        "paused",
        "same_action",
        6,
        [3],
        [4],
    )
    _finish_after_resume(fake_llm, harness, "run-6", notes_app)
    assert _replayed(storage, "run-6").verdict == "continue"  # the resume line resets the policy
    started = [e for e in _events(storage, "run-6") if isinstance(e, RunStarted)]
    assert [e.resumed for e in started] == [False, True] and started[1].note == "I closed the popup"


def test_the_same_error_eight_times_pauses_even_with_different_actions(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, demo_adb: DemoAdbServer, storage: FsspecStorage, notes_app: NotesApp
) -> None:
    actions = [call("tap", text="Save"), call("press_key", key="back"), call("swipe", direction="up")]
    fake_llm.script("agent", *[turn(actions[i % 3]) for i in range(12)])
    harness = make_loop()
    harness.loop.phone.screenshot()  # connected first; then the phone drops off the host
    phone = demo_adb.phones.pop(SERIAL)
    result = harness.loop.start("run-8", "Save the note")
    assert (result.outcome, result.fuse, result.steps) == ("paused", "same_error", 8)
    tools = [e for e in _events(storage, "run-8") if isinstance(e, ToolCalled)]
    assert {t.error for t in tools} == {"AdbError: device 'fake-1' not found"}
    assert _replayed(storage, "run-8").at == 8
    demo_adb.phones[SERIAL] = phone  # plugged in again
    _finish_after_resume(fake_llm, harness, "run-8", notes_app, earlier="device 'fake-1' not found")


def test_fourteen_failed_actions_in_a_row_pause(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage, notes_app: NotesApp
) -> None:
    fake_llm.script("agent", *[turn(call("tap", text=f"Nope {i}")) for i in range(20)])
    harness = make_loop()
    result = harness.loop.start("run-14", "Find it")
    assert (result.outcome, result.fuse, result.steps) == ("paused", "failures_in_a_row", 14)
    reroutes = [e.step for e in _events(storage, "run-14") if isinstance(e, PolicyApplied) and e.kind == "reroute"]
    assert reroutes == [7]
    assert _replayed(storage, "run-14").at == 14
    _finish_after_resume(fake_llm, harness, "run-14", notes_app)


def test_observation_tools_never_break_or_reset_a_streak(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    looks = [call("screenshot"), call("wait", seconds=0), call("ui_tree"), call("list_devices")]
    steps = []
    for i in range(6):
        steps += [turn(call("tap", text="Nope")), turn(looks[i % 4])]
    fake_llm.script("agent", *steps)
    result = make_loop().loop.start("run-obs", "Tap Nope while looking")
    assert (result.outcome, result.fuse, result.steps) == ("paused", "same_action", 11)  # the 6th tap
    hints = [e.step for e in _events(storage, "run-obs") if isinstance(e, PolicyApplied) and e.kind == "hint"]
    assert hints == [5]  # the 3rd tap


def test_reroutes_are_limited_per_segment_and_progress_starts_a_new_one(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    def four(text: str) -> list[dict[str, Any]]:
        return [turn(call("tap", text=text))] * 4

    script = [*four("A"), *four("B"), *four("C"), turn(call("app_start", package="com.example.notes")), *four("D")]
    fake_llm.script("agent", *script, turn(completion()))
    result = make_loop().loop.start("run-rr", "Loop around")
    assert (result.outcome, result.steps) == ("completed", 18)
    notices = [(e.step, e.kind) for e in _events(storage, "run-rr") if isinstance(e, PolicyApplied)]
    reroutes = [step for step, kind in notices if kind == "reroute"]
    # A's 4th tap earns one, the 7th failure in a row (B's 3rd) the second; C none: 2 per
    # segment; app_start succeeds, a new segment: D's 4th tap earns one again
    assert reroutes == [4, 7, 17]
    assert _replayed(storage, "run-rr").reroutes == [4, 7, 17]


def test_the_safety_cap_ends_as_budget_exhausted_and_the_run_resumes(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage, notes_app: NotesApp
) -> None:
    fake_llm.script("agent", turn(call("wait", seconds=0)))
    harness = make_loop(max_model_calls=3)
    result = harness.loop.start("run-cap", "Wait forever")
    assert (result.outcome, result.model_calls, result.fuse) == ("budget_exhausted", 3, None)
    assert result.resumable and "safety cap of 3 model calls" in result.answer
    ended = [e for e in _events(storage, "run-cap") if isinstance(e, RunEnded)]
    assert ended[-1].outcome == "budget_exhausted" and ended[-1].resumable
    fake_llm.reset()
    fake_llm.script("agent", *WRITE_NOTE[:3])  # three more calls are allowed, then the cap again
    again = harness.loop.resume("run-cap")
    assert (again.outcome, again.model_calls) == ("budget_exhausted", 6)
    fake_llm.reset()
    fake_llm.script("agent", *WRITE_NOTE[3:])
    assert harness.loop.resume("run-cap").outcome == "completed"
    assert notes_app.notes[-1] == "Call Alice"


def test_only_a_stopped_run_resumes(make_loop: MakeLoop, fake_llm: FakeLlmServer) -> None:
    fake_llm.script("agent", *WRITE_NOTE)
    harness = make_loop()
    harness.loop.start("run-done", "Write it")
    with pytest.raises(ConfigError, match="run run-done is completed: only a paused"):
        harness.loop.resume("run-done")
    with pytest.raises(ConfigError, match="run run-done exists already"):
        harness.loop.start("run-done", "Again")
    with pytest.raises(ConfigError, match="run nope does not exist"):
        harness.loop.resume("nope")
    with pytest.raises(ConfigError, match=r"run id '\.\./x'"):
        harness.loop.start("../x", "Escape")
    assert requests_messages(fake_llm.requests("agent")[0].body)[0]["role"] == "system"


@pytest.mark.parametrize(
    ("looping", "rejected", "error"),
    [
        (call("open_app", package=PACKAGE), "unknown_tool", "unknown tool 'open_app'"),
        ({"name": "tap", "arguments_raw": '{"text": "Save"'}, "not_json", "arguments are not valid JSON"),
        (call("tap", text="Save", colour="red"), "invalid_arguments", "invalid arguments: colour"),
    ],
)
def test_a_model_repeating_a_call_that_never_reaches_the_phone_pauses_on_the_same_error_at_eight(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage, looping: dict[str, Any], rejected: str,
    error: str,
) -> None:  # fmt: skip
    fake_llm.script("agent", turn(looping))
    result = make_loop().loop.start("run-never", "Open the notes")
    assert (result.outcome, result.fuse, result.steps) == ("paused", "same_error", 8)  # never same_action at 6
    tools = [e for e in _events(storage, "run-never") if isinstance(e, ToolCalled)]
    assert {(t.rejected, t.state_changing, t.ok) for t in tools} == {(rejected, False, False)}
    assert all((t.error or "").startswith(error) for t in tools)
    notices = [(e.step, e.kind, e.fuse) for e in _events(storage, "run-never") if isinstance(e, PolicyApplied)]
    assert notices == [(3, "hint", "same_error"), (5, "reroute", "same_error"), (8, "pause", "same_error")]
    verdict = _replayed(storage, "run-never")
    assert (verdict.verdict, verdict.fuse, verdict.at) == ("paused", "same_error", 8)


def test_a_chat_only_run_ends_at_four_answers_and_leaves_a_step_log_that_replays_so(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", turn(text="I would rather talk about it."))
    result = make_loop().loop.start("run-chat", "Tell me about the phone")
    assert (result.outcome, result.steps, result.model_calls) == ("chat_ended", 0, 4)
    assert storage.read_bytes("agent/runs/run-chat/steps.jsonl").decode().splitlines() == ['{"chat":true}'] * 4
    assert _replayed(storage, "run-chat").cli_dict() == {"verdict": "chat_ended", "fuse": None, "at": 4, "hints": []}


def test_the_step_log_is_there_from_the_first_event(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    seen: list[bool] = []
    harness = make_loop()
    sink = harness.loop.sink

    class Watching:
        def emit(self, event: Any) -> None:
            if isinstance(event, RunStarted):
                seen.append(storage.exists("agent/runs/run-first/steps.jsonl"))
            sink.emit(event)

    harness.loop.sink = Watching()
    fake_llm.script("agent", {"status": 401, "error": "invalid api key"})  # the run fails at once
    assert harness.loop.start("run-first", "Open the notes").outcome == "failed"
    assert seen == [False] and storage.read_bytes("agent/runs/run-first/steps.jsonl") == b""
    assert _replayed(storage, "run-first").verdict == "continue"


def test_a_resume_keeps_the_runs_model_and_a_resume_naming_another_says_so(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    harness = make_loop()
    first = RunModel(model="agent", base_url=fake_llm.base_url(), key_secret="agent-key")
    fake_llm.script("agent", turn(call("tap", text="Nope")))
    assert harness.loop.start("run-model", "Tap Nope", model=first).outcome == "paused"
    assert RunStore(storage).load("run-model").model == first  # type: ignore[union-attr]
    assert harness.loop.resume("run-model", note="again").outcome == "paused"  # no model named: its own
    assert RunStore(storage).load("run-model").model == first  # type: ignore[union-attr]
    other = first.resumed_with(ModelChoice(model="agent-b"))
    assert harness.loop.resume("run-model", model=other).outcome == "paused"
    assert RunStore(storage).load("run-model").model == other  # type: ignore[union-attr]
    resumes = [json.loads(line) for line in storage.read_bytes("agent/runs/run-model/steps.jsonl").splitlines()
               if b"resumed" in line]  # fmt: skip
    assert resumes[0] == {"resumed": True, "note": "again"}
    assert resumes[1] == {"resumed": True, "model": other.describe(), "model_was": first.describe()}
    assert "agent-b at" in resumes[1]["model"] and "Secret block 'agent-key'" in resumes[1]["model"]
    started = [e for e in _events(storage, "run-model") if isinstance(e, RunStarted)]
    assert [(e.model, e.model_was) for e in started] == [
        ("agent", None),
        ("agent", None),
        ("agent-b", first.describe()),
    ]


def test_a_resume_never_sends_a_runs_secret_key_to_another_endpoint() -> None:
    run = RunModel(model="m", base_url="https://a.example/v1", key_secret="key-a")
    with pytest.raises(ConfigError, match=r"Secret block 'key-a'\) is for https://a\.example/v1: name the key"):
        run.resumed_with(ModelChoice(base_url="https://b.example/v1"))
    moved = run.resumed_with(ModelChoice(base_url="https://b.example/v1", key_secret="key-b"))
    assert (moved.base_url, moved.key_secret, moved.model) == ("https://b.example/v1", "key-b", "m")
    assert run.resumed_with(ModelChoice(model="m2")).key_secret == "key-a"  # same endpoint, same key
    assert run.resumed_with(None) is run and run.resumed_with(ModelChoice()) is run
    with pytest.raises(ValueError, match="key_secret"):
        ModelChoice(key_secret="sk-looks-like-a-KEY!")  # a name, never the key itself
