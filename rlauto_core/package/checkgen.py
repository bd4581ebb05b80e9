"""Checkers written from recorded calls: pin what the agent chose, tie server-made ids to their origin."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.checkers.views import parse_body, split_path
from rlauto_core.evidence.entities import path_entities
from rlauto_core.evidence.models import EntityRef, Evidence
from rlauto_core.package.dataflow import Origin, id_like, input_locations, leaves
from rlauto_core.package.models import DbDiffCriterion
from rlauto_core.package.volatile import client_made, is_told, volatile_kind, volatile_origin
from rlauto_core.recording import Call, DbDiff, HttpCall, Recording
from rlauto_core.redact import is_secret_header, is_secret_key

MAX_FIELD_PREDICATES = 12
MAX_ROW_PREDICATES = 8
SUCCESS_STATUS: dict[str, Any] = {"gte": 200, "lt": 400}


@dataclass
class CheckContext:
    invented: dict[str, Origin]
    # call id -> checker key, for the trajectory's writes (origins a `same_as` can point at)
    checker_keys: dict[str, str] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)
    # ids a read that named nothing handed out (the session's cart): `same_as` that read
    handed_out: dict[str, Origin] = field(default_factory=dict)
    # what volatile values are traced through: the recording, its evidence, the golden call ids
    recording: Recording | None = None
    evidence: Evidence | None = None
    golden: set[str] = field(default_factory=set)
    told: set[str] = field(default_factory=set)  # tokens of the instruction: never volatile
    current: str | None = None  # the call whose checker is being written
    # checkers of reads that a `same_as` points at (no rubric of their own), by key
    read_checkers: dict[str, dict[str, Any]] = field(default_factory=dict)
    read_keys: dict[str, str] = field(default_factory=dict)
    # input values left unchecked as volatile or client-made (so database rows leave them too)
    unchecked: set[str] = field(default_factory=set)

    def origin_key(self, origin: Origin) -> str | None:
        """The checker a `same_as` on this origin points at: the write's own, or one made for the read."""
        if origin.call_id in self.checker_keys:
            return self.checker_keys[origin.call_id]
        if origin.call_id in self.read_keys:
            return self.read_keys[origin.call_id]
        if self.recording is None or origin.call_id not in self.golden:
            return None
        call = next((c for c in self.recording.calls if c.id == origin.call_id), None)
        if call is None:
            return None
        saved = self.current, self.known
        self.current = call.id
        checker = call_checker(call, self)
        self.current, self.known = saved
        key = next((k for k, c in self.read_checkers.items() if c == checker), None)
        if key is None:
            key = f"read_{safe_key(call.id)}"
            self.read_checkers[key] = checker
        self.read_keys[call.id] = key
        return key


def safe_key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "x"


def _origin(value: Any, ctx: CheckContext) -> Origin | None:
    if not id_like(value):
        return None
    return ctx.invented.get(str(value)) or ctx.handed_out.get(str(value))


def value_predicate(value: Any, ctx: CheckContext) -> Any:
    """Equality for what the agent chose; `same_as` its origin for an id the server invented or handed out."""
    origin = _origin(value, ctx)
    if origin is None:
        if isinstance(value, str) and " " in value.strip():
            return {"eq": value, "case_insensitive": True}
        return value
    key = ctx.origin_key(origin)
    if key is None:
        return {"exists": True}
    return {"same_as": {"checker": key, "field": f"{origin.root}.{origin.path}"}}


def leaf_predicate(path: str, value: Any, ctx: CheckContext) -> Any | None:
    """The predicate for one input value, or None when a redo may send another value (not checked)."""
    if is_told(value, ctx.told) or _origin(value, ctx) is not None:
        return value_predicate(value, ctx)
    kind = volatile_kind(path, value)
    if kind is not None:
        if ctx.recording is None or ctx.evidence is None or ctx.current is None:
            return None
        origin = volatile_origin(ctx.recording, ctx.evidence, ctx.current, value, kind, ctx.golden)
        key = ctx.origin_key(origin) if origin is not None else None
        return {"same_as": {"checker": key, "field": f"{origin.root}.{origin.path}"}} if key and origin else None
    if client_made(value, ctx.known | ctx.told):
        return None
    return value_predicate(value, ctx)


def _field_predicates(values: list[tuple[str, Any]], ctx: CheckContext) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path, value in values:
        if len(found) >= MAX_FIELD_PREDICATES:
            break
        if value is None or any(is_secret_key(part) for part in path.split(".")):
            continue
        if isinstance(value, list):
            if any(_origin(v, ctx) for v in value):
                found[path] = {"exists": True}
            elif value and all(not isinstance(v, dict | list) for v in value):
                found[path] = {"contains": value}
            continue
        predicate = leaf_predicate(path, value, ctx)
        if predicate is not None:
            found[path] = predicate
        elif not isinstance(value, bool):
            ctx.unchecked.add(str(value))
    return found


def _path_template(call: HttpCall, ctx: CheckContext) -> tuple[str, dict[str, Any]]:
    names = {ref.value: ref.key for ref in path_entities(call.path)}
    parts: list[str] = []
    params: dict[str, Any] = {}
    for segment in split_path(call.path):
        if segment in names or _origin(segment, ctx):
            name = names.get(segment) or "id"
            unique, n = name, 2
            while unique in params:
                unique, n = f"{name}{n}", n + 1
            parts.append("{" + unique + "}")
            params[unique] = value_predicate(segment, ctx)
        else:
            parts.append(segment)
    return "/" + "/".join(parts), params


def call_checker(call: Call, ctx: CheckContext) -> dict[str, Any]:
    """A matcher for this call as the agent must make it again: same target, same content, success."""
    if isinstance(call, HttpCall):
        checker: dict[str, Any] = {"kind": "http_call", "method": call.method.upper()}
        template, params = _path_template(call, ctx)
        if params:
            checker["path_template"] = template
            checker["path_params"] = params
        else:
            checker["path"] = call.path
        query = _field_predicates([(k, v) for k, v in call.query if not is_secret_header(k)], ctx)
        if query:
            checker["query"] = query
        body = parse_body(call.request_body, call.request_body_encoding, call.header("content-type"))
        request = _field_predicates(leaves(body), ctx) if isinstance(body, dict | list) else {}
        if request:
            checker["request"] = request
        checker["status"] = dict(SUCCESS_STATUS)
        return checker
    checker = {"kind": "mcp_call", "tool": call.tool}
    arguments = _field_predicates(leaves(call.arguments), ctx)
    if arguments:
        checker["arguments"] = arguments
    checker["is_error"] = False
    return checker


def target_location(call: Call, target: EntityRef) -> tuple[str, str] | None:
    """Where the call names its target: ("segment", index) or ("request"/"query"/"arguments", path)."""
    for loc in input_locations(call):
        if not isinstance(loc.value, list) and str(loc.value) == target.value:
            return loc.root, loc.path
    return None


def stray_matcher(call: Call, checker: dict[str, Any], target: EntityRef, allowed: list[Any]) -> dict[str, Any] | None:
    """The same kind of write aimed at any other entity than the allowed target predicates."""
    where = target_location(call, target)
    if where is None or not allowed:
        return None
    root, path = where
    if len(allowed) == 1:
        negated: Any = {"not": allowed[0]}
    elif all(not isinstance(a, dict) for a in allowed):
        negated = {"not": {"in": allowed}}
    else:
        return None
    if isinstance(call, HttpCall):
        matcher: dict[str, Any] = {"kind": "http_call", "method": checker["method"], "status": dict(SUCCESS_STATUS)}
        if root == "segment":
            if "path_template" not in checker:
                return None
            name = _param_at(checker["path_template"], int(path))
            if name is None:
                return None
            matcher["path_template"] = checker["path_template"]
            matcher["path_params"] = {name: negated}
        else:
            matcher["path_template" if "path_template" in checker else "path"] = checker.get(
                "path_template", checker.get("path")
            )
            matcher[root] = {path: {"exists": True, **negated}}
        return matcher
    return {"kind": "mcp_call", "tool": call.tool, "is_error": False, "arguments": {path: {"exists": True, **negated}}}


def _param_at(template: str, index: int) -> str | None:
    parts = split_path(template)
    if index < len(parts) and parts[index].startswith("{"):
        return parts[index][1:-1]
    return None


def target_predicate(call: Call, checker: dict[str, Any], target: EntityRef) -> Any:
    """The predicate the call's checker puts on its target (what a stray must differ from)."""
    where = target_location(call, target)
    if where is None:
        return None
    root, path = where
    if root == "segment":
        name = _param_at(checker.get("path_template", ""), int(path))
        return checker.get("path_params", {}).get(name) if name else None
    return checker.get(root, {}).get(path)


def dbdiff_criteria(diff: DbDiff, golden_inputs: list[Call], ctx: CheckContext) -> list[DbDiffCriterion]:
    """Rows the database must show: only columns the agent's own inputs determined."""
    strings: set[str] = set()
    keyed: dict[str, list[Any]] = {}
    for call in golden_inputs:
        ids = {ref.value for ref in path_entities(call.path)} if isinstance(call, HttpCall) else set()
        for loc in input_locations(call):
            if loc.root == "segment" and loc.value not in ids:
                continue  # `/api/orders/4411`: the id is an input, the word `orders` is not
            last = loc.path.split(".")[-1].lower().replace("-", "_")
            for value in loc.value if isinstance(loc.value, list) else [loc.value]:
                if isinstance(value, str):
                    strings.add(value)
                keyed.setdefault(last, []).append(value)

    def chosen(column: str, value: Any) -> bool:
        if value is None or isinstance(value, dict | list):
            return False
        if volatile_kind(column, value) is not None and not is_told(value, ctx.told):
            return False  # versions, clocks, totals the server computes: another attempt, another value
        if str(value) in ctx.unchecked:
            return False  # what no request check pins (a client-made id) no row check pins either
        origin = _origin(value, ctx)
        if origin is not None:  # a made-up id is checked against the call that made or handed it out
            sent = str(value) in strings | {str(v) for v in keyed_values}
            return sent and ctx.origin_key(origin) is not None
        if isinstance(value, str) and len(value) >= 2 and value in strings:
            return True
        alias = column.lower()
        candidates = keyed.get(alias, []) + keyed.get(re.sub(r"_(\w)", lambda m: m.group(1).upper(), alias), [])
        return any(c == value and type(c) is type(value) for c in candidates)

    keyed_values = [v for values in keyed.values() for v in values if not isinstance(v, list | dict)]

    def row_predicates(row: dict[str, Any]) -> dict[str, Any]:
        picked = {c: value_predicate(v, ctx) for c, v in row.items() if chosen(c, v)}
        return dict(list(picked.items())[:MAX_ROW_PREDICATES])

    criteria: list[DbDiffCriterion] = []
    for table, changes in diff.tables.items():
        for row in changes.inserted:
            if preds := row_predicates(row):
                criteria.append(DbDiffCriterion(table=table, op="insert", row=preds))
        for row in changes.deleted:
            if preds := row_predicates(row):
                criteria.append(DbDiffCriterion(table=table, op="delete", row=preds))
        for update in changes.updated:
            changed = {c: v for c, v in update.after.items() if update.before.get(c, object()) != v}
            preds = row_predicates(changed)
            unchanged = {c: v for c, v in update.before.items() if c not in changed}
            before = row_predicates(unchanged)
            if preds:
                criteria.append(DbDiffCriterion(table=table, op="update", row=preds, before=before or None))
    return criteria


def dbdiff_checker(criterion: DbDiffCriterion) -> dict[str, Any]:
    checker: dict[str, Any] = {"kind": "dbdiff", "table": criterion.table, "op": criterion.op, "row": criterion.row}
    if criterion.op == "update" and criterion.before:
        checker["before"] = criterion.before
    return checker
