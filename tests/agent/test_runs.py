"""Whole agent runs against the fake model server and the demo phone's notes app (real clients)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from device_flows.demo import NotesApp
from rlauto_core.agent.events import ModelCalled, RunEnded, TaskReported, ToolCalled
from rlauto_core.agent.policy import parse_step_log, replay
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import MakeLoop
from tests.agent.scripts import WRITE_NOTE, call, completion, images_in, requests_messages, texts_of, turn
from tests.fakes.llm_server import FakeLlmServer


def events_of(storage: FsspecStorage, run_id: str) -> list[Any]:
    from rlauto_core.agent.events import EventLog

    return [logged.event for logged in EventLog(storage, run_id).read(0)]


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_a_run_writes_the_note_and_delivers_a_screenshot(
    api_mode: str, make_loop: MakeLoop, fake_llm: FakeLlmServer, notes_app: NotesApp, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", *WRITE_NOTE)
    harness = make_loop(api_mode=api_mode)
    result = harness.loop.start(
        "run-ok", "Write the note 'Call Alice' and deliver a screenshot of it", conversation_id="c1"
    )
    assert result.outcome == "completed" and result.answer == "Wrote the note"
    assert result.deliverables == ["files/notes.jpg"]
    delivered = storage.read_bytes("agent/runs/run-ok/files/notes.jpg")
    assert delivered[:2] == b"\xff\xd8" and len(delivered) > 1000
    assert notes_app.notes == ["Buy milk", "Call Alice"]
    # an accepted completion ends the run: no model round after it
    assert fake_llm.calls("agent") == len(WRITE_NOTE) == result.model_calls
    events = events_of(storage, "run-ok")
    assert events[0].type == "run_started" and isinstance(events[-1], RunEnded)
    assert events[-1].outcome == "completed" and events[-1].deliverables == ["files/notes.jpg"]
    tools = [e.tool for e in events if isinstance(e, ToolCalled)]
    assert tools == ["app_start", "tap", "tap", "type_text", "ui_tree", "tap", "save_screenshot", "report_task"]
    assert all(e.ok for e in events if isinstance(e, ToolCalled))
    assert [e.accepted for e in events if isinstance(e, TaskReported)] == [True]
    reasoning = [e.text for e in events if e.type == "reasoning"]
    assert reasoning == ["open the notes app first"]
    # usage summed per run and reported per call
    calls = [e for e in events if isinstance(e, ModelCalled)]
    assert [c.call for c in calls] == list(range(1, 7))
    assert calls[-1].run_usage.total_tokens == sum(c.usage.total_tokens for c in calls) == result.usage.total_tokens
    assert result.usage.total_tokens > 0 and result.usage.calls == 6
    # the step log is the policy's input and replays to "continue"
    lines = parse_step_log(storage.read_bytes("agent/runs/run-ok/steps.jsonl"), "steps.jsonl")
    assert [line.tool for _, line in lines] == tools  # type: ignore[union-attr]
    assert replay(lines).verdict == "continue"
    # reasoning is kept for display and never fed back
    assert all("open the notes app first" not in texts_of(r.body) for r in fake_llm.requests("agent"))
    conversation = json.loads(storage.read_bytes("agent/conversations/c1.json"))
    assert [(m["role"], m["outcome"]) for m in conversation["messages"]] == [("user", None), ("assistant", "completed")]
    assert conversation["messages"][1]["reasoning"] == "open the notes app first"


def test_tool_messages_stay_contiguous_and_one_user_message_carries_the_screens(
    make_loop: MakeLoop, fake_llm: FakeLlmServer
) -> None:
    fake_llm.script(
        "agent",
        turn(call("screenshot"), call("ui_tree"), call("app_start", package="com.example.notes"), call("screenshot")),
        turn(call("tap", text="New note"), call("wait", seconds=0)),
        turn(completion()),
    )
    assert make_loop().loop.start("run-c", "Open a new note").outcome == "completed"
    requests = fake_llm.requests("agent")
    assert len(requests) == 3
    for request in requests:
        messages = requests_messages(request.body)
        for i, message in enumerate(messages):
            if message["role"] != "assistant" or not message.get("tool_calls"):
                continue
            ids = [c["id"] for c in message["tool_calls"]]
            following = messages[i + 1 : i + 1 + len(ids)]
            assert [m["role"] for m in following] == ["tool"] * len(ids)
            assert [m["tool_call_id"] for m in following] == ids
            after = messages[i + 1 + len(ids) :]
            assert after and after[0]["role"] == "user"
            assert len(after) == 1 or after[1]["role"] == "assistant"  # ONE user message, then the next turn
        # only the latest screen goes as an image
        assert images_in(request.body) == 1
    second = requests_messages(requests[1].body)
    turn_note = second[-1]
    assert turn_note["role"] == "user" and isinstance(turn_note["content"], list)
    texts = [p["text"] for p in turn_note["content"] if p["type"] == "text"]
    assert texts and "screenshot 2" in texts[0] and "not shown again" in texts[0]  # the first of the turn's two


def test_plain_text_answers_change_nothing_and_four_in_a_row_end_the_chat(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        {"text": "All done!"},
        {"text": "I can't find the app."},
        {"text": "Hmm."},
        turn(call("wait", seconds=0)),  # a successful tool call: the count starts over
        {"text": "Thinking."},
        {"text": "Still thinking."},
        {"text": "Done, really."},
        {"text": "Last words."},
    )
    result = make_loop().loop.start("run-chat", "Tell me about the phone")
    assert result.outcome == "chat_ended" and result.answer == "Last words."
    assert fake_llm.calls("agent") == 8 and not result.resumable
    notes = [requests_messages(r.body)[-1]["content"] for r in fake_llm.requests("agent")[1:4]]
    assert "report_task" in notes[0] and "does not finish the task" in notes[0]  # "done" in text
    assert "diagnose" in notes[1] and "request_takeover" in notes[1]  # plain "I can't": self-diagnosis
    assert "Go on with the task" in notes[2]


def test_completions_with_bad_deliverables_are_refused_with_the_reason(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    storage.write_bytes("agent/runs/run-r/files/empty.txt", b"")
    storage.write_bytes("agent/runs/other/files/theirs.jpg", b"\xff\xd8 not ours")
    fake_llm.script(
        "agent",
        turn(completion("files/missing.jpg")),
        turn(completion("files/empty.txt")),
        turn(completion("../other/files/theirs.jpg", "/etc/passwd", "s3://bucket/x.jpg", "files\\x.jpg")),
        turn(completion("files")),
        turn(
            call("write_file", name="list.md", content="- Call Alice\n"), completion("files/list.md", todo=["tap Save"])
        ),
        turn(completion("files/list.md")),
    )
    result = make_loop().loop.start("run-r", "Deliver the list")
    assert result.outcome == "completed" and result.deliverables == ["files/list.md"]
    reports = [e for e in events_of(storage, "run-r") if isinstance(e, TaskReported)]
    assert [r.accepted for r in reports] == [False, False, False, False, False, True]
    problems = [" | ".join(r.problems) for r in reports]
    assert "'files/missing.jpg': does not exist in this run's folder" in problems[0]
    assert "'files/empty.txt': is empty" in problems[1]
    assert "'../other/files/theirs.jpg': escapes the run folder" in problems[2]
    assert "'/etc/passwd': must be relative" in problems[2] and "'s3://bucket/x.jpg': must be relative" in problems[2]
    assert "'files\\\\x.jpg': contains a backslash" in problems[2]
    assert "'files': is a folder" in problems[3] or "'files': cannot be read" in problems[3]
    assert "the todo list is not empty (1 left: tap Save)" in problems[4]
    # the model is told: the refusal is its tool result
    second = requests_messages(fake_llm.requests("agent")[1].body)
    assert any(m["role"] == "tool" and "completion refused" in m["content"] for m in second)


def test_broken_arguments_unknown_tools_and_invalid_arguments_are_tool_errors(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script(
        "agent",
        turn(
            {"name": "tap", "arguments_raw": '{"text": "Save"'},
            {"name": "teleport", "arguments": {"to": "moon"}},
            {"name": "tap", "arguments": {"x": 5}},
            {"name": "press_key", "arguments_raw": "[1, 2]"},
            {"name": "swipe", "arguments": {"direction": "sideways"}},
            {"name": "wait", "arguments": {"seconds": "soon"}},
        ),
        turn(completion()),
    )
    result = make_loop().loop.start("run-bad", "Try odd calls")
    assert result.outcome == "completed"
    tools = [e for e in events_of(storage, "run-bad") if isinstance(e, ToolCalled)][:6]
    assert [t.ok for t in tools] == [False] * 6
    errors = [t.error or "" for t in tools]
    assert errors[0].startswith("arguments are not valid JSON")
    assert errors[1].startswith("unknown tool 'teleport' (tools: list_devices, screenshot")
    assert "give both x and y" in errors[2]
    assert errors[3] == "arguments must be a JSON object, got list"
    assert "direction: Input should be 'up', 'down', 'left' or 'right'" in errors[4]
    assert "seconds: Input should be a valid number" in errors[5]
    # the history sent back carries valid JSON arguments (providers refuse broken ones there)
    history = requests_messages(fake_llm.requests("agent")[1].body)
    sent = [c["function"]["arguments"] for m in history if m.get("tool_calls") for c in m["tool_calls"]]
    assert all(isinstance(json.loads(a), dict) for a in sent) and sent[0] == "{}"


@pytest.mark.parametrize("status", [400, 422])
def test_stream_options_are_switched_off_once_when_the_gateway_refuses_them(
    status: int, make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.reject_stream_options("agent", status=status)
    fake_llm.script("agent", turn(call("wait", seconds=0)), turn(call("wait", seconds=0)), turn(completion()))
    harness = make_loop()
    result = harness.loop.start("run-so", "Wait twice")
    assert result.outcome == "completed"
    bodies = [r.body for r in fake_llm.requests("agent")]
    assert ["stream_options" in b for b in bodies] == [True, False, False, False]  # one refusal, then never again
    assert not harness.client.usage_in_stream
    calls = [e for e in events_of(storage, "run-so") if isinstance(e, ModelCalled)]
    assert [c.usage_reported for c in calls] == [False, False, False] and result.usage.calls == 3


def test_with_usage_the_stream_options_stay_on(make_loop: MakeLoop, fake_llm: FakeLlmServer) -> None:
    fake_llm.script("agent", turn(call("wait", seconds=0)), turn(completion()))
    harness = make_loop()
    assert harness.loop.start("run-u", "Wait").usage.prompt_tokens > 0
    assert all(r.body["stream_options"] == {"include_usage": True} for r in fake_llm.requests("agent"))
    assert harness.client.usage_in_stream


def test_a_broken_stream_is_retried_and_the_run_goes_on(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    fake_llm.script("agent", {**turn(call("wait", seconds=0)), "cut_stream": True}, turn(completion()))
    result = make_loop().loop.start("run-cut", "Wait")
    assert result.outcome == "completed" and fake_llm.calls("agent") == 2
    assert [e.tool for e in events_of(storage, "run-cut") if isinstance(e, ToolCalled)] == ["report_task"]
