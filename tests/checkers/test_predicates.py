"""Each predicate of the checker DSL, on present and missing values."""

from __future__ import annotations

from typing import ClassVar

import pytest

from rlauto_core.checkers.predicates import MISSING, check_predicate, evaluate


def ok(predicate: object, value: object) -> bool:
    return evaluate(predicate, value)[0]


def test_a_bare_scalar_means_equality_and_forgives_number_text() -> None:
    assert ok("C01", "C01") and not ok("C01", "C02")
    assert ok(128, "128") and ok("128", 128) and ok(2, 2.0)
    assert not ok(True, 1) and not ok(1, True)


@pytest.mark.parametrize(
    ("predicate", "value", "expected"),
    [
        ({"eq": "a"}, "a", True),
        ({"eq": "A", "case_insensitive": True}, "a", True),
        ({"eq": "A"}, "a", False),
        ({"ne": "a"}, "b", True),
        ({"ne": "a"}, "a", False),
        ({"in": ["x", "y"]}, "y", True),
        ({"in": ["x", "y"]}, "z", False),
        ({"in": ["X"], "case_insensitive": True}, "x", True),
        ({"contains": "got"}, "got it", True),
        ({"contains": "GOT", "case_insensitive": True}, "got it", True),
        ({"contains": "lbl_bug"}, ["lbl_auth", "lbl_bug"], True),
        ({"contains": ["lbl_bug", "lbl_auth"]}, ["lbl_auth", "lbl_bug"], True),
        ({"contains": ["lbl_bug", "lbl_ux"]}, ["lbl_auth", "lbl_bug"], False),
        ({"contains": "id"}, {"id": 1}, True),
        ({"contains": "x"}, 5, False),
        ({"regex": r"^C\d+$"}, "C01", True),
        ({"regex": r"^c\d+$"}, "C01", False),
        ({"regex": r"^c\d+$", "case_insensitive": True}, "C01", True),
        ({"regex": r"^\d+$"}, 42, True),
        ({"exists": True}, "", True),
        ({"exists": True}, None, False),
        ({"gt": 1}, 2, True),
        ({"gt": 2}, 2, False),
        ({"gte": 2}, 2, True),
        ({"lt": 400}, 201, True),
        ({"lt": 400}, 500, False),
        ({"lte": 3}, "3", True),
        ({"gte": 200, "lt": 400}, 304, True),
        ({"gte": 200, "lt": 400}, 404, False),
        ({"gt": 1}, "many", False),
        ({"not": "C01"}, "C02", True),
        ({"not": {"in": ["a", "b"]}}, "a", False),
    ],
)
def test_operators(predicate: object, value: object, expected: bool) -> None:
    assert ok(predicate, value) is expected


def test_a_missing_value_satisfies_only_absence() -> None:
    assert ok({"exists": False}, MISSING)
    for predicate in ("x", {"ne": "x"}, {"in": ["x"]}, {"contains": "x"}, {"regex": "."}, {"gt": 0}, {"exists": True}):
        assert not ok(predicate, MISSING), predicate
    # `not` negates whatever the inner predicate says, so pair it with exists when it matters
    assert ok({"not": "x"}, MISSING)
    assert not ok({"exists": True, "not": "x"}, MISSING)


class _Attempt:
    """What the runtime would know of an attempt: one create's answer and one earlier answer."""

    ref: ClassVar[dict[str, object]] = {"checker": "create", "field": "response.id"}

    def same_as(self, ref: dict[str, object]) -> list[object]:
        assert ref == self.ref
        return [4812, "M9"]

    def created(self, value: object, by: str | None) -> bool:
        carried = {"create": {"4812"}, None: {"4812", "cart_7"}}
        return str(value) in carried.get(by, set())


def test_same_as_compares_with_values_the_runtime_resolves() -> None:
    refs, ref = _Attempt(), _Attempt.ref
    assert evaluate({"same_as": ref}, "4812", refs)[0]
    assert not evaluate({"same_as": ref}, "4813", refs)[0]
    assert "create:response.id" in evaluate({"same_as": ref}, "4813", refs)[1]
    assert evaluate({"not": {"same_as": ref}}, "4813", refs)[0]


def test_created_asks_the_attempt_and_any_takes_one_of_several() -> None:
    refs = _Attempt()
    assert evaluate({"created": "create"}, 4812, refs)[0]  # the create's answer carried it
    assert not evaluate({"created": "create"}, "cart_7", refs)[0]  # carried, but not by the create
    assert evaluate({"created": True}, "cart_7", refs)[0]  # any earlier answer will do
    passed, why = evaluate({"created": True}, "cart_8", refs)
    assert not passed and "earlier answer of the attempt" in why
    assert not evaluate({"created": True}, "cart_7")[0]  # nothing known of the attempt: nothing was carried
    handed = {"any": ["cart_5", {"created": True}]}  # the recorded cart, or the one the attempt was handed
    assert evaluate(handed, "cart_5", refs)[0] and evaluate(handed, "cart_7", refs)[0]
    passed, why = evaluate(handed, "cart_9", refs)
    assert not passed and "none of the allowed values" in why and "'cart_5'" in why
    assert not evaluate(handed, MISSING, refs)[0] and evaluate({"not": handed}, "cart_9", refs)[0]


def test_failures_say_what_was_expected_and_what_came() -> None:
    passed, why = evaluate({"eq": "got it"}, "gotit")
    assert not passed and "'got it'" in why and "'gotit'" in why


@pytest.mark.parametrize(
    ("predicate", "fragment"),
    [
        (["a", "b"], "bare list is ambiguous"),
        ({}, "empty predicate"),
        ({"case_insensitive": True}, "only modifiers"),
        ({"equals": 1}, "unknown operator 'equals'"),
        ({"in": "abc"}, "'in' needs a list"),
        ({"exists": "yes"}, "'exists' needs true or false"),
        ({"gt": "ten"}, "'gt' needs a number"),
        ({"regex": "([a-z"}, "bad regex"),
        ({"regex": "a" * 600}, "longer than 500"),
        ({"regex": "^(a+)+$"}, "nested quantifiers can take exponential time"),
        ({"any": []}, "'any' needs a non-empty list"),
        ({"any": [{"gt": "x"}]}, "any[0]: 'gt' needs a number"),
        ({"created": False}, "'created' takes true or the key"),
        ({"not": {"regex": "("}}, "where.not: bad regex"),
        ({"same_as": {"checker": "x"}}, "same_as needs"),
        ({"case_insensitive": "yes", "eq": "a"}, "case_insensitive must be"),
    ],
)
def test_bad_predicates_are_named_precisely(predicate: object, fragment: str) -> None:
    problems = check_predicate(predicate, "where")
    assert problems and any(fragment in p for p in problems), problems


def test_valid_predicates_have_no_problems() -> None:
    for predicate in ("x", 3, None, {"eq": "x", "case_insensitive": True}, {"gte": 200, "lt": 400},
                      {"not": {"in": [1, 2]}}, {"same_as": {"checker": "c", "field": "response.id"}}):  # fmt: skip
        assert check_predicate(predicate, "w") == []
