"""Conversations: 60 messages kept, the last 12 rounds fed back as role and content only;
reasoning and usage stored for display, never sent to the model."""

from __future__ import annotations

from rlauto_core.agent.events import EventLog, Reasoning
from rlauto_core.agent.run import ConversationMessage, ConversationStore
from rlauto_core.llm import TokenUsage
from rlauto_core.store.storage import FsspecStorage
from tests.agent.conftest import MakeLoop
from tests.agent.scripts import completion, requests_messages, turn
from tests.fakes.llm_server import FakeLlmServer


def test_a_conversation_keeps_60_messages_and_gives_the_last_12_rounds(storage: FsspecStorage) -> None:
    store = ConversationStore(storage)
    for n in range(40):
        store.append("talk", ConversationMessage(role="user", content=f"question {n}"))
        store.append(
            "talk",
            ConversationMessage(
                role="assistant", content=f"answer {n}", usage=TokenUsage(total_tokens=9), reasoning="r"
            ),
        )
    conversation = store.load("talk")
    assert len(conversation.messages) == 60 and conversation.messages[0].content == "question 10"
    history = conversation.history()
    assert len(history) == 24 and history[0].content == "question 28" and history[-1].content == "answer 39"
    assert set(history[0].model_dump()) == {"role", "content"}
    assert store.ids() == ["talk"]


def test_the_next_run_of_a_conversation_sees_the_earlier_rounds_but_no_reasoning(
    make_loop: MakeLoop, fake_llm: FakeLlmServer, storage: FsspecStorage
) -> None:
    long_reasoning = "why " * 2000  # 8000 characters
    fake_llm.script("agent", turn(completion(summary="The first answer"), reasoning=long_reasoning))
    harness = make_loop()
    assert harness.loop.start("run-a", "First question", conversation_id="talk").outcome == "completed"
    shown = [e.event for e in EventLog(storage, "run-a").read(0) if isinstance(e.event, Reasoning)]
    assert len(shown[0].text) == 6000  # kept for display, at most 6000 characters
    fake_llm.reset()
    fake_llm.script("agent", turn(completion(summary="The second answer")))
    assert harness.loop.start("run-b", "Second question", conversation_id="talk").outcome == "completed"
    messages = requests_messages(fake_llm.requests("agent")[0].body)
    assert [(m["role"], m["content"]) for m in messages[1:3]] == [
        ("user", "First question"),
        ("assistant", "The first answer"),
    ]
    assert set(messages[2]) == {"role", "content"}
    assert "why why" not in str(messages)
    stored = ConversationStore(storage).load("talk").messages
    assert [m.content for m in stored] == ["First question", "The first answer", "Second question", "The second answer"]
    assert stored[1].reasoning is not None and len(stored[1].reasoning) == 6000
    assert stored[1].usage is not None and stored[1].usage.calls == 1
