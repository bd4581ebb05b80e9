"""The httpx model client against the fake OpenAI-compatible server: both APIs, every fault."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel

from rlauto_core.llm import (
    ContextTooLongError,
    InvalidAnswerError,
    Message,
    PermanentModelError,
    Role,
    TransientModelError,
    request_json,
)
from tests.fakes.llm_server import FakeLlmServer
from tests.llm.conftest import MakeClient, SleepRecorder


class Answer(BaseModel):
    title: str
    steps: int


GOOD = {"title": "reply to Alice", "steps": 2}
PROMPT = [Message(role="system", content="You answer in JSON."), Message(role="user", content="plan it")]


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_json_answer_end_to_end_sends_the_options_and_counts_tokens(
    fake_llm: FakeLlmServer, make_client: MakeClient, api_mode: str
) -> None:
    """Both API modes: the request carries model, sampling and JSON mode; the reply is validated."""
    fake_llm.script("analyzer", {"json": GOOD, "usage": {"prompt_tokens": 120, "completion_tokens": 30}})
    client = make_client(api_mode=api_mode, temperature=0.2, top_p=0.9, max_tokens=777)

    answer = request_json(client, PROMPT, Answer)

    assert answer.value == Answer(**GOOD)
    assert (answer.usage.prompt_tokens, answer.usage.completion_tokens, answer.usage.total_tokens) == (
        120,
        30,
        150,
    )
    assert answer.usage.calls == 1
    [sent] = fake_llm.requests("analyzer")
    body = sent.body
    assert sent.headers["authorization"] == "Bearer sk-test-analyzer-key"
    assert (body["model"], body["temperature"], body["top_p"]) == ("analyzer", 0.2, 0.9)
    if api_mode == "chat":
        assert sent.path == "/v1/chat/completions"
        assert body["max_tokens"] == 777
        assert body["response_format"] == {"type": "json_object"}
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
    else:
        assert sent.path == "/v1/responses"
        assert body["max_output_tokens"] == 777
        assert body["text"] == {"format": {"type": "json_object"}}
        assert body["instructions"] == "You answer in JSON."
        assert body["input"] == [{"role": "user", "content": "plan it"}]


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
@pytest.mark.parametrize(
    "step",
    [
        {"fenced": GOOD},
        {"text": 'Here you go: {"title": "reply to Alice", "steps": 2} -- anything else?'},
        {"broken": GOOD},
        {"text": '<think>the user wants {"no": 1}</think>{"title": "reply to Alice", "steps": 2}'},
    ],
    ids=["fenced", "chatty", "broken", "thinking"],
)
def test_json_is_recovered_from_fences_chatter_and_breakage_without_a_reask(
    fake_llm: FakeLlmServer, make_client: MakeClient, api_mode: str, step: dict[str, object]
) -> None:
    fake_llm.script("analyzer", step)
    answer = request_json(make_client(api_mode=api_mode), PROMPT, Answer)
    assert answer.value == Answer(**GOOD)
    assert not answer.reasked
    assert fake_llm.calls("analyzer") == 1


def test_an_invalid_answer_is_reasked_once_with_the_validation_error(
    fake_llm: FakeLlmServer, make_client: MakeClient
) -> None:
    fake_llm.script("analyzer", {"json": {"title": "x", "steps": "many"}}, {"json": GOOD})
    answer = request_json(make_client(), PROMPT, Answer)
    assert answer.reasked and answer.value.steps == 2
    assert answer.usage.calls == 2
    second = fake_llm.requests("analyzer")[1].messages()
    assert second[-2]["role"] == "assistant" and "many" in second[-2]["content"]
    assert second[-1]["role"] == "user" and "steps" in second[-1]["content"]


def test_a_semantic_check_failure_is_reasked_too(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"json": {"title": "x", "steps": 9}}, {"json": GOOD})

    def at_most_five(value: Answer) -> None:
        if value.steps > 5:
            raise ValueError("steps must be at most 5")

    answer = request_json(make_client(), PROMPT, Answer, check=at_most_five)
    assert answer.value.steps == 2
    assert "steps must be at most 5" in fake_llm.requests("analyzer")[1].messages()[-1]["content"]


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
@pytest.mark.parametrize(
    ("step", "words"),
    [({"refusal": "I can't help with that."}, "refused"), ({"text": "no idea, sorry"}, "no JSON")],
)
def test_still_invalid_after_the_reask_is_permanent(
    fake_llm: FakeLlmServer, make_client: MakeClient, api_mode: str, step: dict[str, str], words: str
) -> None:
    fake_llm.script("analyzer", step)
    with pytest.raises(InvalidAnswerError) as caught:
        request_json(make_client(api_mode=api_mode), PROMPT, Answer)
    assert fake_llm.calls("analyzer") == 2
    message = str(caught.value)
    assert message.startswith("analyzer model at 127.0.0.1:") and words in message
    assert caught.value.usage is not None and caught.value.usage.calls == 2


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_a_rejected_json_parameter_is_dropped_and_stays_dropped(
    fake_llm: FakeLlmServer, make_client: MakeClient, api_mode: str
) -> None:
    fake_llm.script("analyzer", {"fenced": GOOD})
    fake_llm.reject_json_mode("analyzer")
    client = make_client(api_mode=api_mode)
    assert request_json(client, PROMPT, Answer).value.title == "reply to Alice"
    assert request_json(client, PROMPT, Answer).value.title == "reply to Alice"
    sent = fake_llm.requests("analyzer")
    param = "response_format" if api_mode == "chat" else "text"
    assert [param in r.body for r in sent] == [True, False, False]


def test_429_waits_at_least_retry_after_then_succeeds(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"status": 429, "retry_after": "7", "error": "slow down"}, {"json": GOOD})
    sleep = SleepRecorder()
    assert request_json(make_client(sleep=sleep), PROMPT, Answer).value.steps == 2
    assert fake_llm.calls("analyzer") == 2
    assert len(sleep.delays) == 1 and sleep.delays[0] >= 7


@pytest.mark.parametrize("api_mode", ["chat", "responses"])
def test_5xx_are_retried_with_growing_backoff(fake_llm: FakeLlmServer, make_client: MakeClient, api_mode: str) -> None:
    fake_llm.script("analyzer", {"status": 500}, {"status": 502}, {"json": GOOD})
    sleep = SleepRecorder()
    reply = make_client(api_mode=api_mode, sleep=sleep, attempts=3).complete(PROMPT)
    assert reply.attempts == 3 and fake_llm.calls("analyzer") == 3
    assert len(sleep.delays) == 2 and 0 < sleep.delays[0] <= 0.01 < sleep.delays[1] * 2


def test_transient_errors_give_up_after_item_max_attempts(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("judge", {"status": 503, "error": "overloaded"})
    with pytest.raises(TransientModelError) as caught:
        make_client(Role.JUDGE, attempts=4).complete(PROMPT)
    assert fake_llm.calls("judge") == 4
    assert "judge model at 127.0.0.1" in str(caught.value)
    assert "HTTP 503" in str(caught.value) and "gave up after 4 attempt(s)" in str(caught.value)


def test_a_retry_after_longer_than_the_cap_gives_up_at_once(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"status": 429, "retry_after": "3600"})
    with pytest.raises(TransientModelError) as caught:
        make_client().complete(PROMPT)
    assert fake_llm.calls("analyzer") == 1 and caught.value.retry_after == 3600


def test_an_answer_slower_than_the_timeout_is_retried(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"delay": 3, "json": GOOD}, {"json": GOOD})
    reply = make_client(timeout=0.4).complete(PROMPT)
    assert reply.attempts == 2 and fake_llm.calls("analyzer") == 2


def test_timeouts_every_time_fail_as_transient(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"delay": 3, "json": GOOD})
    with pytest.raises(TransientModelError, match="timed out"):
        make_client(timeout=0.3, attempts=2).complete(PROMPT)
    assert fake_llm.calls("analyzer") == 2


def test_a_dropped_connection_is_retried(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"drop": True}, {"json": GOOD})
    assert make_client().complete(PROMPT).attempts == 2


def test_a_closed_port_is_a_transient_connection_error(make_client: MakeClient) -> None:
    from tests.servers import free_port

    with pytest.raises(TransientModelError, match="connection failed"):
        make_client(base_url=f"http://127.0.0.1:{free_port()}/v1", attempts=2).complete(PROMPT)


@pytest.mark.parametrize(
    ("status", "words"),
    [
        (400, "rejected the request"),
        (401, "check ANALYZER_API_KEY"),
        (403, "access denied"),
        (404, "model name"),
    ],
)
def test_permanent_statuses_fail_at_once_with_a_clear_message(
    fake_llm: FakeLlmServer, make_client: MakeClient, status: int, words: str
) -> None:
    fake_llm.script("analyzer", {"status": status, "error": "Incorrect API key provided: sk-test-analyzer-key"})
    sleep = SleepRecorder()
    with pytest.raises(PermanentModelError) as caught:
        make_client(sleep=sleep).complete(PROMPT)
    assert fake_llm.calls("analyzer") == 1 and sleep.delays == []
    message = str(caught.value)
    assert message.startswith("analyzer model at 127.0.0.1:") and words in message
    assert "sk-test-analyzer-key" not in message and "[REDACTED]" in message


def test_context_too_long_is_permanent(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"context_too_long": True})
    with pytest.raises(ContextTooLongError, match="prompt too long for model analyzer"):
        make_client().complete(PROMPT)
    assert fake_llm.calls("analyzer") == 1


def test_thinking_switches_are_sent_only_when_chosen(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"json": GOOD})
    make_client().complete(PROMPT)
    make_client(enable_thinking=False, clear_thinking=True).complete(PROMPT)
    make_client(api_mode="responses", enable_thinking=True).complete(PROMPT)
    plain, chat, responses = (r.body for r in fake_llm.requests("analyzer"))
    assert "thinking" not in plain and "enable_thinking" not in plain and "response_format" not in plain
    assert chat["enable_thinking"] is False
    assert chat["thinking"] == {"type": "disabled", "clear_thinking": True}
    assert responses["reasoning"] == {"effort": "medium"}


def test_canary_keys_stay_with_their_role_and_out_of_logs(
    fake_llm: FakeLlmServer, make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Each role's key reaches only its own requests; no key appears in logs or error messages."""
    keys = {
        Role.ANALYZER: "sk-CANARY-analyzer-1111",
        Role.JUDGE: "sk-CANARY-judge-2222",
        Role.RUBRIC: "sk-CANARY-rubric-3333",
    }
    for role in keys:
        fake_llm.script(str(role), {"status": 500, "error": f"boom for {keys[role]}"}, {"json": GOOD})
    caplog.set_level(logging.DEBUG)
    for role, key in keys.items():
        request_json(make_client(role, key=key), PROMPT, Answer)
    for role, key in keys.items():
        for sent in fake_llm.requests(str(role)):
            assert sent.headers["authorization"] == f"Bearer {key}"
            others = [k for r, k in keys.items() if r is not role]
            dump = repr(sent.headers) + repr(sent.body)
            assert not any(other in dump for other in others)
    assert "CANARY" not in caplog.text
    assert "retry 1/2" in caplog.text  # the retries were logged, without the key


def test_http_upstream_proxy_carries_the_request(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    """The fake doubles as an HTTP proxy: the request arrives in absolute form for an unreachable host."""
    fake_llm.script("analyzer", {"json": GOOD})
    client = make_client(base_url="http://model.internal.invalid/v1", proxy=fake_llm.url)
    assert client.complete(PROMPT).text
    [sent] = fake_llm.requests("analyzer")
    assert sent.via_proxy and sent.path == "/v1/chat/completions"


def test_socks5_upstream_proxy_carries_the_request(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    from tests.fakes.socks5_proxy import Socks5Proxy

    fake_llm.script("analyzer", {"json": GOOD})
    with Socks5Proxy() as proxy:
        assert make_client(proxy=proxy.url).complete(PROMPT).text
        assert ("127.0.0.1", fake_llm.port) in proxy.connections
    assert fake_llm.calls("analyzer") == 1


def test_a_responses_gateway_sending_only_output_text_is_understood() -> None:
    from rlauto_core.llm.wire import parse_answer

    answer = parse_answer("responses", {"output": [], "output_text": '{"ok": true}', "usage": {"input_tokens": 3}})
    assert answer.text == '{"ok": true}' and answer.usage.prompt_tokens == 3 and answer.usage.total_tokens == 3
