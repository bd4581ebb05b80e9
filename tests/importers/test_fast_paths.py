"""The importer's fast paths give exactly what the checked paths give.

The fast JSON parser must not change a value (huge integers, lone surrogates), the trusted
model construction must build what validation builds, header and body fast paths must fall
back to the checked path for anything unusual, and the collector pause must restore state.
"""

from __future__ import annotations

import gc
import json

import pytest

from rlauto_core.errors import RecordingError
from rlauto_core.evidence import build_evidence
from rlauto_core.gcpause import YOUNG_THRESHOLD, gc_paused
from rlauto_core.importers import import_bytes
from rlauto_core.importers.jsonload import load_json
from rlauto_core.recording import HttpCall
from rlauto_core.trusted import trusted
from tests.importers.corpus import TASK, request
from tests.importers.test_valid_oddities import EXAMPLES
from tests.importers.zipcraft import jbytes, zip_bytes


def load_network(requests: list[dict[str, object]]) -> list[HttpCall]:
    data = zip_bytes({"task.json": jbytes(TASK), "network.json": jbytes({"requests": requests})})
    return import_bytes(data, "rec.zip").http_calls


@pytest.mark.parametrize(
    "literal",
    [
        "18446744073709551615",  # u64 max: exact in both parsers
        "18446744073709551616",  # one past: some fast parsers give a float here
        "-9223372036854775809",  # one below i64 min, 19 digits
        "123456789012345678901234567890",
    ],
)
def test_huge_integers_stay_exact(literal: str) -> None:
    value = load_json(f'{{"n": {literal}, "s": "x"}}'.encode(), "f.json")
    assert value["n"] == int(literal) and type(value["n"]) is int


def test_huge_integer_inside_an_inline_body_stays_exact() -> None:
    raw = jbytes({"requests": [request(responseBody=None)]}).replace(
        b'"responseBody": null', b'"responseBody": {"id": 123456789012345678901234567890}'
    )
    assert b"123456789012345678901234567890" in raw
    data = zip_bytes({"task.json": jbytes(TASK), "network.json": raw})
    call = import_bytes(data, "rec.zip").http_calls[0]
    assert call.response_body is not None and "123456789012345678901234567890" in call.response_body


def test_lone_surrogate_escape_is_kept_as_the_standard_parser_keeps_it() -> None:
    assert load_json(b'{"s": "a\\ud800b"}', "f.json") == {"s": "a\ud800b"}


@pytest.mark.parametrize(
    ("data", "phrase"),
    [
        (b"   \n\t ", "empty"),
        (b'{"a": NaN}', "NaN"),
        (b'{"a": 1,}', "invalid JSON at line 1"),
        (b'{"a": "\xff"}', "UTF-8"),
        (b"[" * 5000 + b"]" * 5000, "too deep"),
    ],
)
def test_refusals_still_name_the_problem(data: bytes, phrase: str) -> None:
    with pytest.raises(RecordingError) as caught:
        load_json(data, "network.json")
    assert caught.value.file == "network.json" and phrase in caught.value.problem


def test_bom_before_a_document_with_a_long_number() -> None:
    assert load_json(b"\xef\xbb\xbf[99999999999999999999999]", "f.json") == [99999999999999999999999]


def test_trusted_calls_equal_validated_calls_on_every_example() -> None:
    compared = 0
    for path in sorted(EXAMPLES.glob("*")):
        recording = import_bytes(path.read_bytes(), path.name)
        for call in recording.http_calls:
            again = HttpCall.model_validate(json.loads(call.model_dump_json()))
            assert again == call and again.model_fields_set == call.model_fields_set, call.id
            compared += 1
    assert compared > 20


def test_trusted_refuses_missing_or_unknown_fields() -> None:
    fields = {name: None for name in HttpCall.model_fields}
    del fields["url"]
    with pytest.raises(TypeError, match=r"missing fields \['url'\]"):
        trusted(HttpCall, fields)
    with pytest.raises(TypeError, match=r"unknown fields \['surprise'\]"):
        trusted(HttpCall, {**fields, "url": "u", "surprise": 1})


def test_headers_fast_and_checked_paths_agree() -> None:
    plain = load_network([request(requestHeaders={"accept": "a/b", "x-n": "1"})])[0]
    mixed = load_network([request(requestHeaders={"accept": "a/b", "x-n": 1, "x-list": ["p", "q"], "x-null": None})])[0]
    assert plain.request_headers == [("accept", "a/b"), ("x-n", "1")]
    assert mixed.request_headers == [("accept", "a/b"), ("x-n", "1"), ("x-list", "p, q"), ("x-null", "")]


def test_header_over_the_limit_is_refused_even_when_all_are_strings() -> None:
    huge = "v" * (1024 * 1024 + 1)
    with pytest.raises(RecordingError) as caught:
        load_network([request(requestHeaders={"x-big": huge})])
    assert "too long" in caught.value.problem and "requestHeaders" in caught.value.problem


def test_many_headers_under_the_limit_each_but_over_it_together_import() -> None:
    headers = {f"x-{i}": "v" * 300_000 for i in range(4)}  # 1.2 MB together, 0.3 MB each
    call = load_network([request(requestHeaders=headers)])[0]
    assert len(call.request_headers) == 4 and all(len(v) == 300_000 for _, v in call.request_headers)


def test_evidence_is_built_the_same_with_the_collector_on() -> None:
    path = EXAMPLES / "issue_tracker.zip"
    recording = import_bytes(path.read_bytes(), path.name)
    paused = build_evidence(recording)
    with gc_paused():  # nested: the inner pause must not put the collector's settings back
        inner = build_evidence(recording)
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold()[0] != YOUNG_THRESHOLD
    assert paused == inner and paused.state_changing
