"""The streamed tool-calling client against the fake server: both API modes, assembly of tool
calls and reasoning, usage, the stream_options fallback, retries, proxies and scrubbed errors."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from pydantic import SecretStr

from rlauto_core.llm import (
    AssistantItem,
    EndpointConfig,
    ImagePart,
    PermanentModelError,
    RetryPolicy,
    Role,
    StreamDelta,
    SystemItem,
    ToolCall,
    ToolCallingClient,
    ToolResultItem,
    ToolSpec,
    TransientModelError,
    UserItem,
)
from rlauto_core.llm.stream_parse import parse_stream
from rlauto_core.llm.wire import MalformedAnswer
from tests.fakes.llm_server import FakeLlmServer
from tests.llm.conftest import SleepRecorder

KEY = "sk-stream-test-key-123456"
TAP = ToolSpec(name="tap", description="tap", parameters={"type": "object", "properties": {"text": {"type": "string"}}})
ITEMS = [
    SystemItem(content="be brief"),
    UserItem(content="look", images=[ImagePart(data_b64="AAAA")]),
    AssistantItem(content="", tool_calls=[ToolCall(id="c0", name="tap", arguments='{"text": "x"')]),
    ToolResultItem(call_id="c0", name="tap", content="ERROR: broken"),
]
SCRIPTED = {
    "text": "Tapping now.",
    "reasoning": "The button says Save; " * 5,
    "tool_calls": [
        {"name": "tap", "arguments": {"text": "Save"}},
        {"name": "ui_tree", "arguments": {}},
        {"name": "tap", "arguments_raw": '{"text": "Sa'},
    ],
}
MakeStreaming = Callable[..., ToolCallingClient]


@pytest.fixture
def make_streaming(fake_llm: FakeLlmServer) -> Iterator[MakeStreaming]:
    made: list[ToolCallingClient] = []

    def make(api_mode: str = "chat", *, proxy: str | None = None, base_url: str | None = None) -> ToolCallingClient:
        endpoint = EndpointConfig(
            role=Role.AGENT,
            base_url=base_url or fake_llm.base_url(),
            model="agent",
            api_key=SecretStr(KEY),
            api_mode=api_mode,  # type: ignore[arg-type]
            key_source="AGENT_API_KEY",
        )
        client = ToolCallingClient(
            endpoint, timeout_seconds=10, proxy=proxy, retry=RetryPolicy(max_attempts=3), sleep=SleepRecorder()
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_a_streamed_answer_is_assembled_with_tool_calls_reasoning_and_usage(
    api_mode: str, fake_llm: FakeLlmServer, make_streaming: MakeStreaming
) -> None:
    fake_llm.script("agent", SCRIPTED)
    deltas: list[StreamDelta] = []
    reply = make_streaming(api_mode).turn(ITEMS, [TAP], on_delta=deltas.append, keep_reasoning=40)
    assert reply.text == "Tapping now."
    assert reply.reasoning == ("The button says Save; " * 5)[:40]  # kept for display, bounded
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("tap", '{"text": "Save"}'),
        ("ui_tree", "{}"),
        ("tap", '{"text": "Sa'),  # broken JSON passes through: the loop tells the model
    ]
    assert len({c.id for c in reply.tool_calls}) == 3
    assert reply.usage_reported and reply.usage.prompt_tokens > 0 and reply.usage.calls == 1
    assert "".join(d.text for d in deltas if d.kind == "content") == "Tapping now."
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "The button says Save; " * 5
    body = fake_llm.requests("agent")[0].body
    assert body["stream"] is True
    if api_mode == "chat":
        assert body["stream_options"] == {"include_usage": True}
        assert body["tools"][0]["function"]["name"] == "tap" and body["tool_choice"] == "auto"
        assert body["messages"][1]["content"][1] == {
            "type": "image_url",
            "image_url": {"url": "data:image/jpeg;base64,AAAA"},
        }
        sent_call = body["messages"][2]["tool_calls"][0]
        assert sent_call["function"]["arguments"] == "{}"  # broken history arguments are not resent
        assert body["messages"][3] == {"role": "tool", "tool_call_id": "c0", "content": "ERROR: broken"}
    else:
        assert "stream_options" not in body and body["instructions"] == "be brief"
        assert body["tools"][0] == {
            "type": "function",
            "name": "tap",
            "description": "tap",
            "parameters": TAP.parameters,
        }
        assert body["input"][0]["content"][1] == {"type": "input_image", "image_url": "data:image/jpeg;base64,AAAA"}
        assert body["input"][1] == {"type": "function_call", "call_id": "c0", "name": "tap", "arguments": "{}"}
        assert body["input"][2] == {"type": "function_call_output", "call_id": "c0", "output": "ERROR: broken"}


@pytest.mark.parametrize("status", [400, 422])
def test_a_gateway_refusing_stream_options_gets_one_retry_without_them_for_good(
    status: int, fake_llm: FakeLlmServer, make_streaming: MakeStreaming
) -> None:
    fake_llm.reject_stream_options("agent", status=status)
    fake_llm.script("agent", {"text": "one"}, {"text": "two"})
    client = make_streaming()
    first, second = client.turn(ITEMS, []), client.turn(ITEMS, [])
    assert (first.text, second.text) == ("one", "two")
    assert not first.usage_reported and first.usage.calls == 1 and first.attempts == 1
    assert ["stream_options" in r.body for r in fake_llm.requests("agent")] == [True, False, False]


def test_an_unrelated_400_is_not_hidden_by_the_fallback(fake_llm: FakeLlmServer, make_streaming: MakeStreaming) -> None:
    fake_llm.script("agent", {"status": 400, "error": "tools[0] is invalid"})
    with pytest.raises(PermanentModelError, match=r"rejected the request \(400\): tools\[0\] is invalid"):
        make_streaming().turn(ITEMS, [TAP])
    assert len(fake_llm.requests("agent")) == 2  # one try with stream_options, one without, then the error


def test_cut_streams_and_5xx_are_retried_then_given_up(fake_llm: FakeLlmServer, make_streaming: MakeStreaming) -> None:
    fake_llm.script("agent", {"text": "x", "cut_stream": True}, {"status": 503}, {"text": "finally"})
    reply = make_streaming().turn(ITEMS, [])
    assert reply.text == "finally" and reply.attempts == 3
    fake_llm.reset()
    fake_llm.script("agent", {"text": "x", "cut_stream": True})
    with pytest.raises(TransientModelError, match="gave up after 3 attempt"):
        make_streaming("responses").turn(ITEMS, [])


def test_errors_never_carry_the_key(fake_llm: FakeLlmServer, make_streaming: MakeStreaming) -> None:
    fake_llm.script("agent", {"status": 401, "echo_auth": True})
    with pytest.raises(PermanentModelError) as info:
        make_streaming().turn(ITEMS, [])
    assert KEY not in str(info.value) and "[REDACTED]" in str(info.value)
    assert "check AGENT_API_KEY" in str(info.value)


def test_the_stream_goes_through_the_upstream_proxies(fake_llm: FakeLlmServer, make_streaming: MakeStreaming) -> None:
    from tests.fakes.socks5_proxy import Socks5Proxy

    fake_llm.script("agent", {"text": "via proxy"})
    assert (
        make_streaming(base_url="http://model.internal.invalid/v1", proxy=fake_llm.url).turn(ITEMS, []).text
        == "via proxy"
    )
    assert fake_llm.requests("agent")[-1].via_proxy
    with Socks5Proxy() as proxy:
        assert make_streaming(proxy=proxy.url).turn(ITEMS, []).text == "via proxy"
        assert ("127.0.0.1", fake_llm.port) in proxy.connections


def _lines(*events: object) -> list[str]:
    return [line for e in events for line in (f"data: {json.dumps(e) if not isinstance(e, str) else e}", "")]


def test_gateway_quirks_in_chat_streams() -> None:
    # no `index` on tool fragments, `reasoning` instead of `reasoning_content`, keep-alive comments
    chunks = _lines(
        {"choices": [{"delta": {"reasoning": "hm"}}]},
        {"choices": [{"delta": {"tool_calls": [{"id": "a", "function": {"name": "tap", "arguments": '{"te'}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": 'xt": "A"}'}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"id": "b", "function": {"name": "ui_tree", "arguments": "{}"}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}], "usage": None},
        "[DONE]",
    )
    reply = parse_stream("chat", [": keep-alive", *chunks])
    assert reply.reasoning == "hm" and not reply.usage_reported
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("a", "tap", '{"text": "A"}'),
        ("b", "ui_tree", "{}"),
    ]


@pytest.mark.parametrize(
    ("api_mode", "lines", "problem"),
    [
        ("chat", [], "carried no answer"),
        ("chat", ["data: {not json"], "not JSON"),
        ("chat", _lines({"choices": [{"delta": {"content": "half"}}]}), "ended before the answer was complete"),
        ("chat", _lines({"error": {"message": "overloaded"}}), "error mid-stream: overloaded"),
        ("responses", _lines({"type": "response.output_text.delta", "delta": "x"}), "ended before"),
        (
            "responses",
            _lines({"type": "response.failed", "response": {"error": {"message": "boom"}}}),
            "failed response: boom",
        ),
        ("chat", ["data: [1, 2]"], "not a JSON object"),
    ],
)
def test_broken_streams_are_malformed_answers(api_mode: str, lines: list[str], problem: str) -> None:
    with pytest.raises(MalformedAnswer, match=problem):
        parse_stream(api_mode, lines)
