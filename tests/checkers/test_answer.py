"""Kind `answer`: the attempt's reported answer (task.answer) against a predicate."""

from __future__ import annotations

from typing import Any

from rlauto_core.checkers import score
from rlauto_core.checkers.dsl import check_catalog
from rlauto_core.recording import AnnotatorTask, Recording
from tests.checkers.helpers import attempt, http, package

PHONE = {"kind": "answer", "answer": {"regex": r"\+49[\s_-]*30[\s_-]*5557[\s_-]*1203", "case_insensitive": True}}


def reported(answer: Any, *calls: Any, top_level: bool = False) -> Recording:
    recording = attempt(*calls)
    if top_level:
        recording.task_json = {"answer": answer}
    elif answer is not None:
        recording.task = AnnotatorTask.model_validate({"instruction": "", "answer": answer})
    return recording


def run(checker: dict[str, Any], recording: Recording) -> tuple[bool, str]:
    rubric = score(package({"a": checker}), recording).rubrics[0]
    return rubric.passed, rubric.reason


def test_the_answer_is_matched_with_any_predicate() -> None:
    assert run(PHONE, reported("His direct line is +49 30 5557 1203.")) == (True, "the answer matches")
    assert run(PHONE, reported("Direct: +49-30-5557-1203"))[0]
    assert run(PHONE, reported("+49 30 5557 1203", top_level=True))[0]  # a top-level `answer` is read too
    passed, why = run(PHONE, reported("You can reach him on +49 171 555 0192."))
    assert not passed and why.startswith("answer: expected regex")
    assert run({"kind": "answer", "answer": {"contains": "DHL", "case_insensitive": True}}, reported("dhl express"))[0]


def test_no_answer_fails_and_says_so() -> None:
    assert run(PHONE, reported(None)) == (False, "the attempt reports no answer (task.answer)")
    assert run(PHONE, reported("")) == (False, "the attempt reports no answer (task.answer)")


def test_a_structured_answer_by_field_or_as_json_text() -> None:
    answer = {"status": "in_transit", "carrier": {"name": "DHL Express"}}
    assert run({"kind": "answer", "field": "carrier.name", "answer": "DHL Express"}, reported(answer))[0]
    assert not run({"kind": "answer", "field": "status", "answer": "delivered"}, reported(answer))[0]
    assert run({"kind": "answer", "answer": {"contains": "in_transit"}}, reported(answer))[0]


def test_an_answer_can_equal_what_the_attempt_read() -> None:
    catalog = {
        "lookup": {"kind": "http_call", "method": "GET", "path": "/api/orders/ORD-1"},
        "a": {"kind": "answer", "field": "status", "answer": {"same_as": {"checker": "lookup", "field": "response.status"}}},
    }  # fmt: skip
    read = http("r1", "GET", "https://x.example/api/orders/ORD-1", 200, None, {"status": "in_transit"})
    built = package(catalog)
    assert score(built, reported({"status": "in_transit"}, read)).rubrics[1].passed
    assert not score(built, reported({"status": "delivered"}, read)).rubrics[1].passed


def test_a_huge_hostile_answer_is_scored_quickly() -> None:
    huge = "+49 30 " * 200_000 + "+49 30 5557 1203"  # 1.4 MB; the match sits past the scanned prefix
    passed, _ = run(PHONE, reported(huge))
    assert not passed  # regexes see at most the first 200,000 characters
    assert run(PHONE, reported(["+49 30 5557 1203"]))[0]  # a list answer is matched as its JSON text


def test_the_dsl_knows_the_kind() -> None:
    assert check_catalog({"a": PHONE}, [("r1", "a")]) == []
    [missing] = check_catalog({"a": {"kind": "answer"}}, [("r1", "a")])
    assert missing.code == "dsl_missing_key" and "needs 'answer'" in missing.message
    [unknown] = check_catalog({"a": {**PHONE, "text": "x"}}, [("r1", "a")])
    assert unknown.code == "dsl_unknown_key" and "(allowed: answer, description, field, kind)" in unknown.message
    [bad] = check_catalog({"a": {"kind": "answer", "answer": {"regex": "(a+)+"}}}, [("r1", "a")])
    assert bad.code == "dsl_bad_regex"
