"""The checker DSL's grammar and its validation (the seed's "API DSL" local rule).

A catalog maps checker keys to checkers; each checker is a JSON object with a `kind`. Every
problem becomes an error Flag whose message names the checker (or rubric) and the exact key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from rlauto_core.checkers.predicates import check_predicate, predicate_refs
from rlauto_core.rules.flags import Flag

CALL_KINDS: Final = frozenset({"http_call", "mcp_call"})
COMMON_KEYS: Final = frozenset({"kind", "description"})
# key -> how it is checked: "pred" one predicate, "map" field path -> predicate, "ref" a call
# matcher (inline object or checker key), "refs" one or several, "text" a string, "op" a dbdiff op.
KIND_KEYS: Final[dict[str, dict[str, str]]] = {
    "http_call": {
        "method": "pred",
        "host": "pred",
        "path": "pred",
        "path_template": "text",
        "path_params": "map",
        "query": "map",
        "request": "map",
        "status": "pred",
        "succeeds": "pred",
        "operation": "map",
        "response": "map",
    },
    "mcp_call": {
        "tool": "pred",
        "server": "pred",
        "arguments": "map",
        "result": "map",
        "is_error": "pred",
        "succeeds": "pred",
    },
    "dbdiff": {"table": "text", "op": "op", "row": "map", "before": "map"},
    "order": {"before": "ref", "after": "ref"},
    "absent": {"match": "refs", "given": "ref"},
    "count": {"match": "refs", "count": "pred"},
    "answer": {"answer": "pred", "field": "text"},
}
REQUIRED_KEYS: Final[dict[str, tuple[str, ...]]] = {
    "http_call": (),
    "mcp_call": ("tool",),
    "dbdiff": ("table", "op"),
    "order": ("before", "after"),
    "absent": ("match",),
    "count": ("match", "count"),
    "answer": ("answer",),
}
# Roots a `same_as` field may start with, per kind of the referenced checker.
FIELD_ROOTS: Final[dict[str, frozenset[str]]] = {
    "http_call": frozenset(
        {
            "method",
            "host",
            "path",
            "path_params",
            "query",
            "request",
            "status",
            "succeeds",
            "operation",
            "response",
            "location",
        }
    ),
    "mcp_call": frozenset({"tool", "server", "arguments", "result", "is_error", "succeeds"}),
}
DB_OPS: Final = frozenset({"insert", "update", "delete"})
MAX_DEPTH = 8


def _flag(code: str, message: str) -> Flag:
    return Flag(code=f"dsl_{code}", message=message, severity="error")


def check_checker(key: str, checker: Any, depth: int = 0) -> list[Flag]:
    """Shape problems of one checker (references are checked against the catalog separately)."""
    where = f'checker "{key}"'
    if not isinstance(checker, dict):
        return [_flag("not_an_object", f"{where}: must be a JSON object, got {type(checker).__name__}")]
    kind = checker.get("kind")
    if kind not in KIND_KEYS:
        known = ", ".join(sorted(KIND_KEYS))
        if kind is None:
            return [_flag("missing_key", f'{where}: missing "kind" (one of {known})')]
        return [_flag("unknown_kind", f"{where}: unknown kind {kind!r} (known: {known})")]
    if depth > MAX_DEPTH:
        return [_flag("too_deep", f"{where}: nested matchers deeper than {MAX_DEPTH}")]
    spec = KIND_KEYS[kind]
    flags: list[Flag] = []
    for name in checker:
        if name not in spec and name not in COMMON_KEYS:
            allowed = ", ".join(sorted(set(spec) | COMMON_KEYS))
            flags.append(_flag("unknown_key", f"{where}: unknown key {name!r} for kind {kind} (allowed: {allowed})"))
    for name in REQUIRED_KEYS[kind]:
        if name not in checker:
            flags.append(_flag("missing_key", f"{where}: kind {kind} needs {name!r}"))
    if "description" in checker and not isinstance(checker["description"], str):
        flags.append(_flag("bad_value", f"{where}: description must be a string"))
    for name, how in spec.items():
        if name in checker:
            flags.extend(_check_value(key, kind, name, how, checker[name], depth))
    if kind == "http_call":
        flags.extend(_check_template(key, checker))
    if kind == "dbdiff" and "before" in checker and checker.get("op") != "update":
        flags.append(_flag("bad_value", f'{where}: "before" only applies to op "update"'))
    return flags


def _check_value(key: str, kind: str, name: str, how: str, value: Any, depth: int) -> list[Flag]:
    where = f'checker "{key}" {name}'
    problems: list[str] = []
    if how == "pred":
        problems = check_predicate(value, where)
    elif how == "map":
        if not isinstance(value, dict):
            problems = [f"{where}: must be an object of field path -> predicate"]
        else:
            for field_path, predicate in value.items():
                problems.extend(check_predicate(predicate, f"{where}.{field_path}"))
    elif how == "text":
        if not isinstance(value, str) or not value:
            problems = [f"{where}: must be a non-empty string"]
    elif how == "op":
        if value not in DB_OPS:
            problems = [f"{where}: must be one of insert, update, delete, got {value!r}"]
    elif how in ("ref", "refs"):
        items = value if how == "refs" and isinstance(value, list) else [value]
        if how == "refs" and isinstance(value, list) and not value:
            problems = [f"{where}: empty list of matchers"]
        flags: list[Flag] = []
        for number, item in enumerate(items):
            flags.extend(_check_ref(f"{key}.{name}" + (f"[{number}]" if len(items) > 1 else ""), item, depth))
        return [_flag("bad_predicate", p) for p in problems] + flags
    code = "bad_regex" if any("bad regex" in p for p in problems) else "bad_predicate"
    return [_flag(code, p) for p in problems]


def _check_ref(where: str, item: Any, depth: int) -> list[Flag]:
    if isinstance(item, str):
        return []  # a checker key: resolved against the catalog by check_catalog
    if not isinstance(item, dict) or item.get("kind") not in CALL_KINDS:
        return [_flag("bad_reference", f'checker "{where}": must be a checker key or an http_call/mcp_call matcher')]
    return check_checker(where, item, depth + 1)


def _check_template(key: str, checker: dict[str, Any]) -> list[Flag]:
    template = checker.get("path_template")
    params = checker.get("path_params")
    if params is None:
        return []
    if not isinstance(template, str):
        return [_flag("missing_key", f'checker "{key}": path_params needs a path_template')]
    names = {s[1:-1] for s in template.split("/") if s.startswith("{") and s.endswith("}")}
    if not isinstance(params, dict):
        return []
    return [
        _flag("unknown_key", f'checker "{key}" path_params: {name!r} is not a {{name}} of path_template {template!r}')
        for name in params
        if name not in names
    ]


def _refs_of(checker: Any) -> list[tuple[str, Any]]:
    """(how, target) pairs: checker-key references (also `created`) and same_as references inside a checker."""
    found: list[tuple[str, Any]] = []
    if not isinstance(checker, dict):
        return found
    kind = str(checker.get("kind"))
    for name, how in KIND_KEYS.get(kind, {}).items():
        value = checker.get(name)
        if value is None:
            continue
        if how in ("ref", "refs"):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, str):
                    found.append(("key", item))
                else:
                    found.extend(_refs_of(item))
        elif how == "pred":
            found.extend(_as_refs(predicate_refs(value)))
        elif how == "map" and isinstance(value, dict):
            for predicate in value.values():
                found.extend(_as_refs(predicate_refs(predicate)))
    return found


def _as_refs(refs: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A `created` reference names a checker key, like `before` or `given` do."""
    return [("key", target) if how == "created" else (how, target) for how, target in refs]


def check_catalog(checkers: Mapping[str, Any], rubrics: Iterable[tuple[str, str | None]]) -> list[Flag]:
    """Validate a whole catalog and the rubrics pointing into it."""
    flags: list[Flag] = []
    for key, checker in checkers.items():
        flags.extend(check_checker(key, checker))
    graph: dict[str, set[str]] = {}
    for key, checker in checkers.items():
        graph[key] = set()
        for how, target in _refs_of(checker):
            name = str(target if how == "key" else target.get("checker"))
            if name not in checkers:
                what = "references" if how == "key" else "same_as references"
                flags.append(_flag("unknown_reference", f'checker "{key}" {what} unknown checker key {name!r}'))
                continue
            graph[key].add(name)
            referenced_kind = checkers[name].get("kind") if isinstance(checkers[name], dict) else None
            if referenced_kind not in CALL_KINDS:
                flags.append(
                    _flag("bad_reference", f'checker "{key}" references "{name}", which is not an http_call/mcp_call')
                )
            elif how == "same_as":
                root = str(target.get("field", "")).split(".")[0]
                if root not in FIELD_ROOTS[referenced_kind]:
                    roots = ", ".join(sorted(FIELD_ROOTS[referenced_kind]))
                    flags.append(
                        _flag(
                            "bad_reference",
                            f'checker "{key}" same_as field {target.get("field")!r} of "{name}" '
                            f"must start with one of {roots}",
                        )
                    )
    flags.extend(_cycles(graph))
    for rubric_id, checker_key in rubrics:
        if not checker_key:
            flags.append(_flag("rubric_without_checker", f'rubric "{rubric_id}" has no checker_key'))
        elif checker_key not in checkers:
            flags.append(
                _flag("unknown_checker_key", f'rubric "{rubric_id}" points at unknown checker key {checker_key!r}')
            )
    return flags


def _cycles(graph: dict[str, set[str]]) -> list[Flag]:
    state: dict[str, int] = {}
    flags: list[Flag] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = " -> ".join([*trail[trail.index(nxt) :], nxt]) if nxt in trail else f"{node} -> {nxt}"
                flags.append(_flag("reference_cycle", f"checker references form a cycle: {cycle}"))
            elif state.get(nxt) is None:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return flags
