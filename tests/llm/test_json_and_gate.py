"""JSON extraction under any wrapping (property), hostile answers, and the per-process call gate."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rlauto_core.llm import Message, extract_json, process_gate
from rlauto_core.llm.json_answers import NoJsonFound
from tests.fakes.llm_server import FakeLlmServer
from tests.llm.conftest import MakeClient

_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_objects = st.dictionaries(st.text(min_size=1, max_size=10), _values, min_size=1, max_size=5)
_chatter = st.text(alphabet="abcXYZ 019.,:;!?'\"\n中文", max_size=40)


@settings(max_examples=60, deadline=None)
@given(value=_objects, before=_chatter, after=_chatter, fenced=st.booleans())
def test_any_object_is_recovered_from_chatter_and_fences(
    value: dict[str, Any], before: str, after: str, fenced: bool
) -> None:
    body = json.dumps(value, ensure_ascii=False)
    text = f"{before}\n```json\n{body}\n```\n{after}" if fenced else f"{before} {body} {after}"
    assert extract_json(text) == value


@pytest.mark.parametrize(
    "hostile",
    ["[" * 100_000, '{"a": ' * 50_000, "x" * 1_000_001, "<think>" + "{" * 10 + "</think>", "```json\n```"],
    ids=["deep-list", "deep-object", "huge", "only-thinking", "empty-fence"],
)
def test_hostile_answers_are_invalid_not_crashes(hostile: str) -> None:
    with pytest.raises(NoJsonFound):
        extract_json(hostile)


def test_the_process_gate_caps_calls_in_flight(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    fake_llm.script("analyzer", {"delay": 0.2, "json": {"ok": True}})
    gate = process_gate(1)
    assert gate is not None and process_gate(0) is None
    clients = [make_client() for _ in range(3)]
    for client in clients:
        client._gate = gate  # the same gate the factory would hand to every client
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda c: c.complete([Message(role="user", content="x")]), clients))
    assert fake_llm.calls("analyzer") == 3 and fake_llm.max_in_flight() == 1


def test_without_a_gate_calls_overlap(fake_llm: FakeLlmServer, make_client: MakeClient) -> None:
    """The control for the test above: the fake really sees concurrent calls when nothing caps them."""
    fake_llm.script("analyzer", {"delay": 0.2, "json": {"ok": True}})
    clients = [make_client() for _ in range(3)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(lambda c: c.complete([Message(role="user", content="x")]), clients))
    assert fake_llm.max_in_flight() >= 2
