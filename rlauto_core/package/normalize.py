"""Checkers normalised to the value model, whoever wrote them (the offline analyzer or a model).

Each call checker is matched to the golden call it describes, and every value it checks of that
call's input gets the role the value model gives it (roles.py) and the predicate the role asks
for: a pinned lock version or token is dropped, a provenance from one read (`same_as` a read)
becomes the value itself when the value is stable, an id the attempt creates is bound to the
create's essential features (`core_<call>`). `order` and `given` point at those cores too, so one
over-strict argument of a create fails that create's rubric and nothing else (no cascade). The
roles and their reasons go into the package (`value_roles`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rlauto_core.checkers.predicates import MISSING, check_predicate, evaluate, predicate_refs
from rlauto_core.checkers.views import CallView, http_view, match_template, request_fields, tool_view
from rlauto_core.evidence.models import Evidence
from rlauto_core.package.checkgen import CheckContext, call_checker, expects_failure
from rlauto_core.package.dataflow import leaves
from rlauto_core.package.draft import PackageDraft
from rlauto_core.package.models import ValueRole
from rlauto_core.package.roles import ValueModel, core_key
from rlauto_core.package.volatile import is_told, volatile_kind
from rlauto_core.recording import Call, HttpCall, Recording
from rlauto_core.redact import is_secret_field

INPUT_ROOTS = {"http_call": ("path_params", "query", "request"), "mcp_call": ("arguments",)}
OUTPUT_ROOT = {"http_call": "response", "mcp_call": "result"}
_MAX_DEPTH = 32
_HEAD = (
    "kind",
    "method",
    "host",
    "path",
    "path_template",
    "operation",
    "tool",
    "server",
    "status",
    "is_error",
    "succeeds",
)
ValueRoles = dict[str, dict[str, ValueRole]]


class _Lenient:
    """References for ranking candidate calls: a reference neither helps nor hurts a match."""

    def same_as(self, ref: dict[str, Any]) -> list[Any]:
        return []

    def created(self, value: Any, by: str | None) -> bool:
        return True


def _view(call: Call, position: int) -> CallView:
    return http_view(call, position) if isinstance(call, HttpCall) else tool_view(call, position)


def _holds(predicate: Any, value: Any) -> bool:
    """A predicate of a checker not validated yet (a model's): a malformed one holds for nothing,
    and a regex the DSL refuses (`(a+)+`) never runs against a recorded body."""
    return not check_predicate(predicate, "") and evaluate(predicate, value, _Lenient())[0]


def _route_fits(checker: dict[str, Any], view: CallView) -> bool:
    if (checker.get("kind") == "http_call") != (view.kind == "http"):
        return False
    for name in ("method", "path", "tool"):
        if name in checker and not _holds(checker[name], view.get(name)):
            return False
    operation = checker.get("operation")  # one GraphQL endpoint, many routes: the operation is the route
    if isinstance(operation, dict) and not all(_holds(p, view.get(f"operation.{n}")) for n, p in operation.items()):
        return False
    template = checker.get("path_template")
    return not isinstance(template, str) or match_template(template, view.fields["path"]) is not None


def recorded_call(checker: dict[str, Any], calls: list[Call]) -> Call | None:
    """The golden call a call checker describes: on its route, with the most of its predicates holding."""
    best: tuple[int, Call] | None = None
    for position, call in enumerate(calls):
        view = _view(call, position)
        if not _route_fits(checker, view):
            continue
        held = 0
        for root in (*INPUT_ROOTS[str(checker["kind"])], OUTPUT_ROOT[str(checker["kind"])]):
            predicates = checker.get(root)
            for name, predicate in predicates.items() if isinstance(predicates, dict) else ():
                held += _holds(predicate, _recorded(checker, view, root, name))
        if best is None or held > best[0]:
            best = (held, call)
    return best[1] if best else None


def _recorded(checker: dict[str, Any], view: CallView, root: str, name: str) -> Any:
    if root == "path_params":
        params = match_template(str(checker.get("path_template", "")), view.fields["path"]) or {}
        return params.get(name, MISSING)
    return view.get(f"{root}.{name}")


_CREDENTIAL = ValueRole(role="volatile", reason="a credential: never compared (and redacted)")


def _sent(checker: dict[str, Any], call: Call) -> list[tuple[str, Any]]:
    """Every value the call sent, keyed as a checker names it (`request.cart.id`, `path_params.cartId`)."""
    if not isinstance(call, HttpCall):
        return [(f"arguments.{path}", value) for path, value in leaves(call.arguments)]
    found: list[tuple[str, Any]] = []
    template = checker.get("path_template")
    if isinstance(template, str):
        found.extend((f"path_params.{k}", v) for k, v in (match_template(template, call.path) or {}).items())
    found.extend((f"query.{k}", v) for k, v in call.query)
    body = request_fields(call)
    if isinstance(body, dict | list):
        found.extend((f"request.{path}", value) for path, value in leaves(body))
    return [(where, value) for where, value in found if value is not None and not isinstance(value, dict)]


def _scalar(value: Any) -> bool:
    return value is not MISSING and value is not None and not isinstance(value, dict)


@dataclass
class _Catalog:
    """One normalisation run: the catalog being rewritten, the roles found, what was changed."""

    values: ValueModel
    golden: list[Call]
    checkers: dict[str, Any]
    rubric_keys: list[str]
    roles: ValueRoles = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)  # checker key -> the golden call it describes

    def run(self) -> None:
        for key, checker in list(self.checkers.items()):
            if isinstance(checker, dict) and checker.get("kind") in INPUT_ROOTS and not key.startswith("core_"):
                call = recorded_call(checker, self.golden)
                if call is not None:
                    self.calls[key] = call
                    self.checkers[key], self.roles[key] = self._call(key, checker, call, self.notes)
        for key, checker in list(self.checkers.items()):
            if isinstance(checker, dict) and checker.get("kind") == "dbdiff":
                self.checkers[key] = self._rows(key, checker)
        for key, checker in list(self.checkers.items()):
            if isinstance(checker, dict) and checker.get("kind") in ("order", "absent"):
                self.checkers[key] = self._pointed_at_cores(checker)
        self._add_cores()
        self._drop_unused()

    def _call(
        self, key: str, checker: dict[str, Any], call: Call, notes: list[str]
    ) -> tuple[dict[str, Any], dict[str, ValueRole]]:
        kind = str(checker["kind"])
        view = _view(call, 0)
        new = dict(checker)
        if "succeeds" not in new and not expects_failure(checker):
            new["succeeds"] = True  # success as the protocol says: a 200 with GraphQL errors is no success
            notes.append(f'checker "{key}": the call must succeed as its protocol says (succeeds: true)')
        roles: dict[str, ValueRole] = {}
        for root in INPUT_ROOTS[kind]:
            predicates = checker.get(root)
            if not isinstance(predicates, dict):
                continue
            kept: dict[str, Any] = {}
            for name, predicate in predicates.items():
                recorded = _recorded(checker, view, root, name)
                if not _scalar(recorded):
                    kept[name] = predicate
                    continue
                role = self._role(call, root, name, recorded)
                roles[f"{root}.{name}"] = role
                wanted = self.values.predicate(recorded, role)
                if wanted is None:
                    notes.append(f'checker "{key}" {root}.{name}: not compared, {role.reason}')
                elif role.role == "created" or predicate_refs(predicate):
                    kept[name] = wanted
                else:
                    kept[name] = predicate
            new[root] = kept
            if not kept:
                del new[root]
        for where, value in _sent(checker, call):  # what the checker leaves out has a role too
            if where not in roles:
                root, name = where.split(".", 1)
                roles[where] = self._role(call, root, name, value)
        output = OUTPUT_ROOT[kind]
        answers = checker.get(output)
        if isinstance(answers, dict):
            kept = {n: p for n, p in answers.items() if not self._server_made(n, view.get(f"{output}.{n}"))}
            if len(kept) < len(answers):
                notes.append(f'checker "{key}" {output}: values the server makes per attempt are not compared')
            new[output] = kept
            if not kept:
                del new[output]
        return new, roles

    def _role(self, call: Call, root: str, name: str, value: Any) -> ValueRole:
        """A credential is never compared (a checker would carry it into the package); else the model's
        role. A path segment is no credential field, whatever the collection is called (`/api-keys/5521`)."""
        if root != "path_params" and is_secret_field(name, value):
            return _CREDENTIAL
        return self.values.role(call.id, name, value)

    def _server_made(self, name: str, value: Any) -> bool:
        if not _scalar(value) or is_told(value, self.values.told):
            return False
        return self.values.origin(value) is not None or volatile_kind(name, value) is not None

    def _rows(self, key: str, checker: dict[str, Any]) -> dict[str, Any]:
        new = dict(checker)
        roles: dict[str, ValueRole] = {}
        for root in ("row", "before"):
            predicates = checker.get(root)
            if not isinstance(predicates, dict):
                continue
            kept: dict[str, Any] = {}
            for column, predicate in predicates.items():
                recorded = self._row_value(predicate)
                if not _scalar(recorded):
                    kept[column] = predicate
                    continue
                role = self.values.role("", column, recorded)
                roles[f"{root}.{column}"] = role
                wanted = self.values.predicate(recorded, role)
                if wanted is None:
                    self.notes.append(f'checker "{key}" {root}.{column}: not compared, {role.reason}')
                else:
                    kept[column] = wanted if role.role == "created" or predicate_refs(predicate) else predicate
            new[root] = kept
            if not kept and root == "before":
                del new[root]
        self.roles[key] = roles
        return new

    def _row_value(self, predicate: Any) -> Any:
        """The recorded value a row predicate stands for: the value it pins, or what its `same_as` names."""
        if not isinstance(predicate, dict):
            return predicate
        if "eq" in predicate:
            return predicate["eq"]
        options = predicate.get("any")
        if isinstance(options, list):  # the recorded value or one the attempt was handed
            return next((o for o in options if not isinstance(o, dict | list)), MISSING)
        for how, target in predicate_refs(predicate):
            call = self.calls.get(str(target.get("checker"))) if how == "same_as" else None
            if call is not None:
                checker = self.checkers[str(target["checker"])]
                path = str(target.get("field", ""))
                root, _, name = path.partition(".")
                return _recorded(checker, _view(call, 0), root, name)
        return MISSING

    def _pointed_at_cores(self, checker: dict[str, Any]) -> dict[str, Any]:
        """`order` and `given` judge that a call happened (and when), not how every argument was made."""
        new = dict(checker)
        for name in ("before", "after", "given"):
            target = checker.get(name)
            if isinstance(target, str) and target in self.calls:
                new[name] = core_key(self.calls[target].id)
        return new

    def _add_cores(self) -> None:
        pending = self._referenced_cores()
        done: set[str] = set()
        while pending - done:
            key = sorted(pending - done)[0]
            done.add(key)
            core = self._core(key)
            if core is not None:
                self.checkers[key] = core
            pending |= self._referenced_cores()

    def _referenced_cores(self) -> set[str]:
        found: set[str] = set()
        for checker in self.checkers.values():
            found.update(k for k in _keys_in(checker) if k.startswith("core_"))
        return found

    def _core(self, key: str) -> dict[str, Any] | None:
        """The essential features of the golden call behind `core_<id>`: method, route, the ids it works
        on, and what else it sends where another call shares the route; from its checker (a rubric's
        first), else written from the recorded call."""
        call = next((c for c in self.values.recording.calls if core_key(c.id) == key), None)
        if call is None:
            return self.checkers.get(key)
        owners = [k for k, c in self.calls.items() if c.id == call.id]
        owners.sort(key=lambda k: (k not in self.rubric_keys, k))
        if owners:
            checker, roles = self.checkers[owners[0]], self.roles.get(owners[0], {})
        else:  # a create no checker describes (a model dropped its rubric): its recorded call says it
            checker, roles = self._call(key, call_checker(call, CheckContext(values=self.values)), call, [])
        core = {name: checker[name] for name in _HEAD if name in checker}
        # what it sends tells calls on one route apart (two adds: which product, how many); alone on its
        # route, a wrong title fails the create's own rubric, not the rubrics of what it made
        essential = {"created", "content", "stable"} if self._shares_route(call, checker) else {"created"}
        for root in INPUT_ROOTS[str(checker["kind"])]:
            kept = {
                name: predicate
                for name, predicate in (checker.get(root) or {}).items()
                if (role := roles.get(f"{root}.{name}")) is not None
                and (role.role in essential or (root == "path_params" and role.role == "stable"))
            }
            if kept:
                core[root] = kept
        core["description"] = (
            f"{call.id} by its essential features (method, route, and what it sends where another call shares "
            "the route): what the ids it creates are bound to"
        )
        return core

    def _shares_route(self, call: Call, checker: dict[str, Any]) -> bool:
        """Does another golden call fit this checker's route (method and path, or tool)?"""
        route: dict[str, Any] = {
            n: checker[n] for n in ("kind", "method", "path", "path_template", "operation", "tool") if n in checker
        }
        return any(other.id != call.id and _route_fits(route, _view(other, 0)) for other in self.golden)

    def _drop_unused(self) -> None:
        """Checkers nothing points at any more (a read only a `same_as` named) leave the catalog."""
        used: set[str] = set()
        pending = [k for k in self.rubric_keys if k in self.checkers]
        while pending:
            key = pending.pop()
            if key in used:
                continue
            used.add(key)
            pending.extend(k for k in _keys_in(self.checkers[key]) if k in self.checkers)
        for key in [k for k in self.checkers if k not in used]:
            del self.checkers[key]
            self.calls.pop(key, None)
            self.roles.pop(key, None)


def _keys_in(node: Any, depth: int = 0) -> set[str]:
    """Checker keys a checker points at: order/absent/count references, `same_as` and `created`
    (a checker nested deeper than any the DSL accepts points at nothing)."""
    found: set[str] = set()
    if depth > _MAX_DEPTH:
        return found
    if isinstance(node, dict):
        for name, value in node.items():
            if name in ("before", "after", "given", "match") and isinstance(value, str):
                found.add(value)
            elif name == "same_as" and isinstance(value, dict) and isinstance(value.get("checker"), str):
                found.add(value["checker"])
            elif name == "created" and isinstance(value, str):
                found.add(value)
            else:
                found |= _keys_in(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            found |= _keys_in(item, depth + 1) | ({item} if isinstance(item, str) else set())
    return found


def normalize_draft(
    draft: PackageDraft, recording: Recording, evidence: Evidence, values: ValueModel | None = None
) -> tuple[PackageDraft, ValueRoles, list[str]]:
    """The draft with every checker normalised to the value model (`values`, when the caller has the
    recording's already), the roles it found, and what it changed."""
    by_id = {c.id: c for c in recording.calls}
    wanted = set(draft.golden_call_ids)
    golden = [c for c in recording.calls if c.id in wanted and c.id in by_id]
    checkers: dict[str, Any] = dict(draft.extra_checkers)
    checkers.update({r.checker_key: r.checker for r in draft.rubrics if r.checker is not None})
    run = _Catalog(
        values=values or ValueModel.of(recording, evidence, wanted),
        golden=golden,
        checkers=checkers,
        rubric_keys=[r.checker_key for r in draft.rubrics],
    )
    run.run()
    rubrics = [
        r.model_copy(update={"checker": run.checkers.get(r.checker_key)}) if r.checker is not None else r
        for r in draft.rubrics
    ]
    graded = {r.checker_key for r in rubrics if r.checker is not None}
    criteria = []
    for criterion in draft.dbdiff_criteria:
        checker = run.checkers.get(criterion.checker_key or "")
        if isinstance(checker, dict) and checker.get("kind") == "dbdiff":
            criterion = criterion.model_copy(update={"row": checker.get("row") or {}, "before": checker.get("before")})
        criteria.append(criterion)
    normalized = draft.model_copy(
        update={
            "rubrics": rubrics,
            "extra_checkers": {k: c for k, c in run.checkers.items() if k not in graded},
            "dbdiff_criteria": criteria,
        }
    )
    return normalized, run.roles, list(dict.fromkeys(run.notes))
