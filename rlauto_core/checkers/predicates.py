"""Predicates of the checker DSL: a bare scalar means `eq`, an object combines operators (all must hold).

A value that is not there (`MISSING`) satisfies only `{"exists": false}` (and `not` of anything
else): a call without a `channelId` is neither "in channel C01" nor "in another channel".
"""

from __future__ import annotations

import re
from typing import Any, Final, Protocol

OPERATORS: Final = frozenset(
    {
        "eq",
        "ne",
        "in",
        "contains",
        "regex",
        "exists",
        "gt",
        "gte",
        "lt",
        "lte",
        "not",
        "any",
        "same_as",
        "created",
        "some",
    }
)
MODIFIERS: Final = frozenset({"case_insensitive"})
NUMERIC_OPERATORS: Final = frozenset({"gt", "gte", "lt", "lte"})
MAX_REGEX_CHARS = 500
# Regexes run against at most this much text, so a hostile subject cannot stall the runtime.
MAX_SUBJECT_CHARS = 200_000
# A quantified group that itself holds a quantifier, `(a+)+`: exponential backtracking on a miss.
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,)")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class References(Protocol):
    """What the runtime knows about the rest of the attempt, for `same_as` and `created`."""

    def same_as(self, ref: dict[str, Any]) -> list[Any]:
        """The values a `same_as` reference may equal."""
        ...

    def created(self, value: Any, by: str | None) -> bool:
        """Did an earlier answer of the attempt carry this value (of a call matching checker `by`)?"""
        ...


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def _fold(value: Any, ci: bool) -> Any:
    return value.casefold() if ci and isinstance(value, str) else value


def values_equal(left: Any, right: Any, ci: bool = False) -> bool:
    """Equality that forgives `"42"` vs `42` (path params are text, databases store numbers)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right if isinstance(left, bool) and isinstance(right, bool) else False
    if isinstance(left, int | float) and isinstance(right, int | float):
        return float(left) == float(right)
    if isinstance(left, str) and isinstance(right, int | float):
        return _number(left) == float(right)
    if isinstance(right, str) and isinstance(left, int | float):
        return _number(right) == float(left)
    return bool(_fold(left, ci) == _fold(right, ci))


def _contains(value: Any, needle: Any, ci: bool) -> bool:
    if isinstance(needle, list):  # a list of needles: all of them, in any order
        return bool(needle) and all(_contains(value, item, ci) for item in needle)
    if isinstance(value, str):
        return isinstance(needle, str) and _fold(needle, ci) in _fold(value, ci)
    if isinstance(value, list):
        return any(values_equal(item, needle, ci) for item in value)
    if isinstance(value, dict):
        return isinstance(needle, str) and any(values_equal(key, needle, ci) for key in value)
    return False


def _regex(value: Any, pattern: str, ci: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return False
    flags = re.IGNORECASE if ci else 0
    return re.search(pattern, str(value)[:MAX_SUBJECT_CHARS], flags) is not None


def _compare(value: Any, op: str, bound: Any) -> bool:
    left, right = _number(value), _number(bound)
    if left is None or right is None:
        return False
    if op == "gt":
        return left > right
    if op == "gte":
        return left >= right
    if op == "lt":
        return left < right
    return left <= right


def describe(value: Any) -> str:
    if value is MISSING:
        return "nothing"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def evaluate(predicate: Any, value: Any, refs: References | None = None) -> tuple[bool, str]:
    """Does `value` satisfy `predicate`? Returns (ok, why-not) with a short reason on failure."""
    if not isinstance(predicate, dict):
        if value is not MISSING and values_equal(value, predicate):
            return True, ""
        return False, f"expected {describe(predicate)}, got {describe(value)}"
    ci = bool(predicate.get("case_insensitive", False))
    for op, arg in predicate.items():
        if op in MODIFIERS:
            continue
        ok, why = _evaluate_one(op, arg, value, ci, refs)
        if not ok:
            return False, why
    return True, ""


def _evaluate_one(op: str, arg: Any, value: Any, ci: bool, refs: References | None) -> tuple[bool, str]:
    if op == "exists":
        ok = (value is not MISSING and value is not None) == bool(arg)
        return ok, "" if ok else f"expected {'a value' if arg else 'no value'}, got {describe(value)}"
    if op == "not":
        ok, _ = evaluate(arg, value, refs)
        return (not ok), "" if not ok else f"expected not {describe(arg)}, got {describe(value)}"
    if op == "any":
        reasons = []
        for option in arg:
            ok, why = evaluate(option, value, refs)
            if ok:
                return True, ""
            reasons.append(why)
        return False, "none of the allowed values: " + "; ".join(reasons)
    if value is MISSING:
        return False, f"expected {op} {describe(arg)}, got nothing"
    if op == "some":
        return _some(arg, value, refs)
    if op == "eq":
        ok = values_equal(value, arg, ci)
    elif op == "ne":
        ok = not values_equal(value, arg, ci)
    elif op == "in":
        ok = any(values_equal(value, item, ci) for item in arg)
    elif op == "contains":
        ok = _contains(value, arg, ci)
    elif op == "regex":
        ok = _regex(value, arg, ci)
    elif op in NUMERIC_OPERATORS:
        ok = _compare(value, op, arg)
    elif op == "same_as":
        candidates = refs.same_as(arg) if refs is not None else []
        ok = any(values_equal(value, c, ci) for c in candidates)
        if not ok:
            where = f"{arg.get('checker')}:{arg.get('field')}"
            return False, f"expected the value of {where} from an earlier call, got {describe(value)}"
    elif op == "created":
        by = arg if isinstance(arg, str) else None
        ok = refs is not None and refs.created(value, by)
        if not ok:
            whose = f"of a call matching {by}" if by else "of the attempt"
            return False, f"expected an id an earlier answer {whose} carried, got {describe(value)}"
    else:
        return False, f"unknown operator {op!r}"
    return ok, "" if ok else f"expected {op} {describe(arg)}, got {describe(value)}"


MAX_NOT_DEPTH = 16
MAX_SOME_ITEMS = 1_000


def _field(item: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        if isinstance(item, dict) and part in item:
            item = item[part]
        elif isinstance(item, list) and part.lstrip("-").isdigit() and -len(item) <= int(part) < len(item):
            item = item[int(part)]
        else:
            return MISSING
    return item


def _some(arg: Any, value: Any, refs: References | None) -> tuple[bool, str]:
    """A list holds, in any order, an element matching each pattern (field path -> predicate):
    the actions of one update, the lines of one order, however the client ordered them."""
    if not isinstance(value, list):
        return False, f"expected a list, got {describe(value)}"
    items = value[:MAX_SOME_ITEMS]
    for pattern in arg if isinstance(arg, list) else [arg]:
        if not any(all(evaluate(p, _field(i, f), refs)[0] for f, p in pattern.items()) for i in items):
            return False, f"no element matches {describe(pattern)}"
    return True, ""


def check_predicate(predicate: Any, where: str, depth: int = 0) -> list[str]:
    """Problems with a predicate's shape, each naming `where` it sits; empty when valid."""
    if depth > MAX_NOT_DEPTH:
        return [f"{where}: 'not' nested deeper than {MAX_NOT_DEPTH}"]
    if isinstance(predicate, list):
        return [f'{where}: a bare list is ambiguous; use {{"in": [...]}} or {{"eq": [...]}}']
    if not isinstance(predicate, dict):
        return []
    if not predicate:
        return [f"{where}: empty predicate object"]
    problems: list[str] = []
    operators = [k for k in predicate if k not in MODIFIERS]
    if not operators:
        problems.append(f"{where}: predicate has only modifiers, no operator")
    for op, arg in predicate.items():
        problems.extend(_check_operator(op, arg, where, depth))
    return problems


def _check_operator(op: str, arg: Any, where: str, depth: int) -> list[str]:
    if op == "case_insensitive":
        return [] if isinstance(arg, bool) else [f"{where}: case_insensitive must be true or false"]
    if op not in OPERATORS:
        allowed = ", ".join(sorted(OPERATORS | MODIFIERS))
        return [f"{where}: unknown operator {op!r} (allowed: {allowed})"]
    if op == "in" and not isinstance(arg, list):
        return [f"{where}: 'in' needs a list"]
    if op == "exists" and not isinstance(arg, bool):
        return [f"{where}: 'exists' needs true or false"]
    if op in NUMERIC_OPERATORS and _number(arg) is None:
        return [f"{where}: {op!r} needs a number, got {describe(arg)}"]
    if op == "not":
        return check_predicate(arg, f"{where}.not", depth + 1)
    if op == "any":
        if not isinstance(arg, list) or not arg:
            return [f"{where}: 'any' needs a non-empty list of predicates"]
        return [p for n, option in enumerate(arg) for p in check_predicate(option, f"{where}.any[{n}]", depth + 1)]
    if op == "some":
        patterns = arg if isinstance(arg, list) else [arg]
        if not patterns or not all(isinstance(p, dict) and p for p in patterns):
            return [f"{where}: 'some' needs an element pattern (field path -> predicate) or a list of them"]
        return [
            e
            for n, p in enumerate(patterns)
            for f, q in p.items()
            for e in check_predicate(q, f"{where}.some[{n}].{f}", depth + 1)
        ]
    if op == "created" and arg is not True and not (isinstance(arg, str) and arg):
        return [f"{where}: 'created' takes true or the key of the checker of the call that creates it"]
    if op == "regex":
        return _check_regex(arg, where)
    if op == "same_as":
        if not isinstance(arg, dict) or set(arg) != {"checker", "field"}:
            return [f'{where}: same_as needs {{"checker": <checker key>, "field": <field path>}}']
        if not all(isinstance(v, str) and v for v in arg.values()):
            return [f"{where}: same_as checker and field must be non-empty strings"]
    return []


def _check_regex(arg: Any, where: str) -> list[str]:
    if not isinstance(arg, str):
        return [f"{where}: 'regex' needs a string"]
    if len(arg) > MAX_REGEX_CHARS:
        return [f"{where}: regex longer than {MAX_REGEX_CHARS} characters"]
    try:
        re.compile(arg)
    except re.error as exc:
        return [f"{where}: bad regex {arg!r}: {exc}"]
    if _NESTED_QUANTIFIER.search(arg):
        return [f"{where}: bad regex {arg!r}: nested quantifiers can take exponential time"]
    return []


def predicate_refs(predicate: Any, depth: int = 0) -> list[tuple[str, Any]]:
    """Every reference inside a predicate (also under `not` and `any`): ("same_as", {checker, field})
    and ("created", checker key)."""
    if not isinstance(predicate, dict) or depth > MAX_NOT_DEPTH:
        return []
    refs: list[tuple[str, Any]] = []
    for op, arg in predicate.items():
        if op == "same_as" and isinstance(arg, dict):
            refs.append(("same_as", arg))
        elif op == "created" and isinstance(arg, str):
            refs.append(("created", arg))
        elif op == "not":
            refs.extend(predicate_refs(arg, depth + 1))
        elif op == "any" and isinstance(arg, list):
            refs.extend(r for option in arg for r in predicate_refs(option, depth + 1))
        elif op == "some":
            patterns = arg if isinstance(arg, list) else [arg]
            refs.extend(
                r for p in patterns if isinstance(p, dict) for q in p.values() for r in predicate_refs(q, depth + 1)
            )
    return refs
