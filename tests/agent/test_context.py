"""No turn budget, bounded context: a 300-step run keeps every request under the context size,
older screens and UI trees shrink to placeholders, the latest stay whole, the state stays small."""

from __future__ import annotations

import json
from itertools import count
from typing import Any

import pytest

from rlauto_core.agent.events import EventLog, ModelCalled
from rlauto_core.agent.run import RunStore
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import MakeLoop
from tests.agent.scripts import call, completion, images_in, texts_of, turn
from tests.fakes.llm_requests import RecordedRequest
from tests.fakes.llm_server import FakeLlmServer

CONTEXT = 16_000
IMAGE_TOKENS = 1500


def estimated_tokens(body: dict[str, Any]) -> int:
    """Counted from what went on the wire, independently of the loop: UTF-8 bytes / 3 for all
    text (messages, tool calls, tool results, tool schemas), a flat cost per image."""
    text = 0
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            text += len(content.encode())
        elif isinstance(content, list):
            text += sum(len(p["text"].encode()) for p in content if p["type"] == "text")
        for tool_call in message.get("tool_calls") or []:
            text += len(json.dumps(tool_call).encode())
    text += len(json.dumps(body.get("tools", [])).encode())
    return text // 3 + IMAGE_TOKENS * images_in(body)


@pytest.mark.slow
def test_a_300_step_run_keeps_every_request_under_the_context_size(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    turns = count()

    def model(request: RecordedRequest) -> dict[str, Any]:
        n = next(turns)
        if n == 0:
            return turn(call("app_start", package="com.example.notes"))
        if n > 100:
            return turn(completion())
        looks = [call("screenshot")] if n % 5 == 0 else []
        return turn(call("tap", text="New note"), call("ui_tree"), *looks, call("press_key", key="back"))

    fake_llm.script("agent", model)
    result = make_loop(context_tokens=CONTEXT).loop.start("run-300", "Open and close the editor a hundred times")
    assert result.outcome == "completed" and result.steps >= 300, result
    requests = fake_llm.requests("agent")
    assert len(requests) == result.model_calls == 102
    sizes = [estimated_tokens(r.body) for r in requests]
    assert max(sizes) <= CONTEXT, max(sizes)
    assert sizes[-1] > sizes[5]  # it did grow, up to the bound, and no further
    assert all(images_in(r.body) <= 1 for r in requests) and images_in(requests[-1].body) == 1
    reported = [
        e.usage.prompt_tokens
        for e in (x.event for x in EventLog(storage, "run-300").read(0))
        if isinstance(e, ModelCalled)
    ]
    assert max(reported) * 4 // 3 <= CONTEXT  # the fake server's own count (4 characters a token) agrees
    last = texts_of(requests[-1].body)
    assert "Earlier steps of this run, shortened" in last and "not listed" in last
    assert last.count("UI tree of com.example.notes (") == 1  # the latest tree whole
    assert "not shown again]" in last  # the older ones as placeholders
    state = RunStore(storage).load("run-300")
    assert state is not None and len(state.rounds) == 40 and state.digest
    assert len(storage.read_bytes("agent/runs/run-300/state.json")) < 250_000
