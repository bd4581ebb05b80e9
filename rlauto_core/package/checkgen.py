"""Checkers written from recorded calls, each value checked as its role says (roles.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.checkers.views import request_fields, split_path
from rlauto_core.evidence.entities import path_entities
from rlauto_core.evidence.models import EntityRef
from rlauto_core.package.dataflow import input_locations, leaves
from rlauto_core.package.models import DbDiffCriterion
from rlauto_core.package.roles import ValueModel
from rlauto_core.package.volatile import is_told, quoted_values, volatile_kind
from rlauto_core.protocols import operation_of
from rlauto_core.protocols.rpc_dispatch import dispatch_fields
from rlauto_core.recording import Call, DbDiff, HttpCall
from rlauto_core.redact import is_secret_field, is_secret_header, looks_like_credential

MAX_FIELD_PREDICATES = 12
MAX_TEXT_BODY = 200_000
MAX_ROW_PREDICATES = 8
# a call succeeds as its protocol says (protocols.success): a GraphQL error or `ok: false` in a 200 fails
SUCCEEDS: dict[str, Any] = {"succeeds": True}
# what a GraphQL request holds besides its variables: the document, its name, a persisted query's
# hash. The operation is checked as `operation`; how the client spelled or sent the document is not
# the task's business (a batch, a persisted query and a plain POST run the same operation).
_GRAPHQL_PLUMBING = ("query", "operationName", "extensions")
# a JSON-RPC envelope's version and the call's own id (a counter of the client's): no task value
_JSONRPC_PLUMBING = ("jsonrpc", "id")


@dataclass
class CheckContext:
    values: ValueModel
    # call id -> checker key, for the trajectory's writes (what order rubrics point at)
    checker_keys: dict[str, str] = field(default_factory=dict)
    # input values left unchecked as volatile or client-made (so database rows leave them too)
    unchecked: set[str] = field(default_factory=set)


def expects_failure(checker: dict[str, Any]) -> bool:
    """Does a checker ask for a refused call (a 4xx, an error result)? Then success is not added."""
    status = checker.get("status")
    if isinstance(status, int) and not isinstance(status, bool):
        return status >= 400
    if isinstance(status, dict):
        low = status.get("gte", status.get("gt", status.get("eq")))
        return isinstance(low, int) and low >= 400
    return checker.get("is_error") is True or checker.get("succeeds") is False


def _field_predicates(call_id: str, values: list[tuple[str, Any]], ctx: CheckContext) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for path, value in values:
        if len(found) >= MAX_FIELD_PREDICATES:
            break
        if value is None or is_secret_field(path, value):
            continue
        if isinstance(value, list) and (not value or any(isinstance(v, dict | list) for v in value)):
            continue
        predicate, _ = ctx.values.check(call_id, path, value)
        if predicate is not None:
            found[path] = predicate
        elif not isinstance(value, bool | list):
            ctx.unchecked.add(str(value))
    return found


def _body_predicates(call_id: str, sent: list[tuple[str, Any]], ctx: CheckContext) -> dict[str, Any]:
    """Field predicates; the objects of a list (an update's actions, an order's lines) as patterns of
    a `some`: each must be there, in any order (one request or several, the client's choice)."""
    plain: list[tuple[str, Any]] = []
    listed: dict[str, dict[int, list[tuple[str, Any]]]] = {}
    for path, value in sent:
        parts = path.split(".")
        index = next((n for n, part in enumerate(parts) if part.isdigit()), None)
        if index is None or index == 0 or index == len(parts) - 1:
            plain.append((path, value))
            continue
        listed.setdefault(".".join(parts[:index]), {}).setdefault(int(parts[index]), []).append((path, value))
    found = _field_predicates(call_id, plain, ctx)
    for prefix, elements in listed.items():
        patterns = []
        for _, fields in sorted(elements.items()):
            pattern = _field_predicates(call_id, fields, ctx)
            element = {path.split(".", len(prefix.split(".")) + 1)[-1]: p for path, p in pattern.items()}
            if element:
                patterns.append(element)
        if patterns:
            found[prefix] = {"some": patterns}
    return found


def _path_template(call: HttpCall, ctx: CheckContext) -> tuple[str, dict[str, Any]]:
    names = {ref.value: ref.key for ref in path_entities(call.path)}
    parts: list[str] = []
    params: dict[str, Any] = {}
    segments = split_path(call.path)
    for position, segment in enumerate(segments):
        signed = position and is_secret_field(segments[position - 1], segment) and looks_like_credential(segment)
        if signed:  # `/key/<64 hex>/`: a signed URL
            parts.append("{" + segments[position - 1] + "}")  # any value: a credential is never compared
            continue
        if segment in names or ctx.values.origin(segment) is not None:
            name = names.get(segment) or "id"
            unique, n = name, 2
            while unique in params:
                unique, n = f"{name}{n}", n + 1
            parts.append("{" + unique + "}")
            predicate, _ = ctx.values.check(call.id, unique, segment)
            if predicate is not None:
                params[unique] = predicate
        else:
            parts.append(segment)
    return "/" + "/".join(parts), params


def call_checker(call: Call, ctx: CheckContext) -> dict[str, Any]:
    """A matcher for this call as the agent must make it again: same target, same content, success."""
    if isinstance(call, HttpCall):
        operation = operation_of(call)
        # a GraphQL operation is known by what it does, not by the verb that carried it
        checker: dict[str, Any] = (
            {"kind": "http_call"} if operation else {"kind": "http_call", "method": call.method.upper()}
        )
        template, params = _path_template(call, ctx)
        if params or "{" in template:  # a signed URL's key is a segment of any value, and no param
            checker["path_template"] = template
            if params:
                checker["path_params"] = params
        else:
            checker["path"] = call.path
        if operation is not None:
            checker["operation"] = operation.view()
        else:
            query = _field_predicates(call.id, [(k, v) for k, v in call.query if not is_secret_header(k)], ctx)
            if query:
                checker["query"] = query
        body = request_fields(call)
        sent = leaves(body) if isinstance(body, dict | list) else []
        if operation is not None:
            sent = [(p, v) for p, v in sent if p.split(".", 1)[0] not in _GRAPHQL_PLUMBING]
        elif isinstance(body, dict) and "jsonrpc" in body and "method" in body:
            sent = [(p, v) for p, v in sent if p not in _JSONRPC_PLUMBING]
        request = _body_predicates(call.id, sent, ctx)
        if isinstance(body, str) and len(body) <= MAX_TEXT_BODY:  # a line appended, a raw document
            stated = [q for q in quoted_values(ctx.values.recording.task.instruction) if q in body]
            if stated:  # what the instruction quotes of it, nothing else (the rest may be the app's)
                request["$"] = {"contains": stated}
        if request:
            checker["request"] = request
        checker.update(SUCCEEDS)
        return checker
    checker = {"kind": "mcp_call", "tool": call.tool}
    arguments = _body_predicates(call.id, leaves(call.arguments), ctx)
    if arguments:
        checker["arguments"] = arguments
    checker.update(SUCCEEDS)
    return checker


def target_location(call: Call, target: EntityRef) -> tuple[str, str] | None:
    """Where the call names its target: ("segment", index) or ("request"/"query"/"arguments", path);
    inside a list by position (`params.args.5.0.0`: an RPC's positional ids) when nowhere else."""
    listed: tuple[str, str] | None = None
    for loc in input_locations(call):
        if not isinstance(loc.value, list) and str(loc.value) == target.value:
            return loc.root, loc.path
        if listed is None and isinstance(loc.value, list):
            inner = _position_of(loc.value, target.value)
            listed = (loc.root, f"{loc.path}.{inner}") if inner is not None else None
    return listed


def _position_of(node: Any, value: str, depth: int = 0) -> str | None:
    """The dotted position of `value` in a JSON list or object (the first, depth first)."""
    if depth > 6:
        return None
    items = list(enumerate(node)) if isinstance(node, list) else list(node.items()) if isinstance(node, dict) else []
    for key, item in items:
        if isinstance(item, list | dict):
            inner = _position_of(item, value, depth + 1)
            if inner is not None:
                return f"{key}.{inner}"
        elif not isinstance(item, bool) and item is not None and str(item) == value:
            return str(key)
    return None


def stray_matcher(call: Call, checker: dict[str, Any], target: EntityRef, allowed: list[Any]) -> dict[str, Any] | None:
    """The same kind of write aimed at any other entity than the allowed target predicates."""
    where = target_location(call, target)
    if where is None:
        return None
    root, path = where
    negated: Any
    if not allowed:  # a route only a stray of the recording used: any such write is collateral damage
        negated = {}
    elif len(allowed) == 1:
        negated = {"not": allowed[0]}
    elif all(not isinstance(a, dict) for a in allowed):
        negated = {"not": {"in": allowed}}
    else:
        negated = {"not": {"any": allowed}}
    if isinstance(call, HttpCall):
        matcher: dict[str, Any] = {"kind": "http_call", **SUCCEEDS}
        for same in ("method", "operation"):
            if same in checker:
                matcher[same] = checker[same]
        if root == "segment":
            if "path_template" not in checker:
                return None
            name = _param_at(checker["path_template"], int(path))
            if name is None:
                return None
            matcher["path_template"] = checker["path_template"]
            matcher["path_params"] = {name: negated or {"exists": True}}
        else:
            matcher["path_template" if "path_template" in checker else "path"] = checker.get(
                "path_template", checker.get("path")
            )
            # on an RPC dispatcher's route, the same model and method only (a pricelist's `write`)
            matcher[root] = {**(dispatch_fields(call) if root == "request" else {}), path: {"exists": True, **negated}}
        return matcher
    return {"kind": "mcp_call", "tool": call.tool, **SUCCEEDS, "arguments": {path: {"exists": True, **negated}}}


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
    found = checker.get(root, {}).get(path)
    if found is None and any(part.isdigit() for part in path.split(".")):
        return int(target.value) if target.value.isdigit() else target.value  # a positional id, by value
    return found


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
        if volatile_kind(column, value) is not None and not is_told(value, ctx.values.told):
            return False  # versions, clocks, totals the server computes: another attempt, another value
        if str(value) in ctx.unchecked:
            return False  # what no request check pins (a client-made id) no row check pins either
        if ctx.values.origin(value) is not None:  # an id the attempt creates: a row holding one it sent
            return str(value) in strings | {str(v) for v in keyed_values}
        if isinstance(value, str) and len(value) >= 2 and value in strings:
            return True
        alias = column.lower()
        candidates = keyed.get(alias, []) + keyed.get(re.sub(r"_(\w)", lambda m: m.group(1).upper(), alias), [])
        return any(c == value and type(c) is type(value) for c in candidates)

    keyed_values = [v for values in keyed.values() for v in values if not isinstance(v, list | dict)]

    def row_predicates(row: dict[str, Any]) -> dict[str, Any]:
        picked = {c: ctx.values.check("", c, v)[0] for c, v in row.items() if chosen(c, v)}
        return dict(list({c: p for c, p in picked.items() if p is not None}.items())[:MAX_ROW_PREDICATES])

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
