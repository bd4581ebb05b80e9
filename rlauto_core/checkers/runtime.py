"""The checker runtime: score any recording (an agent's attempt) against a package, no model involved."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cached_property
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.checkers.carried import CarriedValues
from rlauto_core.checkers.dsl import check_catalog
from rlauto_core.checkers.predicates import MISSING, evaluate
from rlauto_core.checkers.scored import ScoredPackage
from rlauto_core.checkers.views import CallView, match_template, recording_views, resolve
from rlauto_core.errors import PackageError
from rlauto_core.recording import DbDiff, Recording

# Fields of each call kind, in the order a matcher checks them (identity first: best "closest" reasons).
_HTTP_HEAD, _HTTP_TAIL = ("method", "host", "path"), ("status", "succeeds")
_HTTP_MAPS = ("operation", "query", "request", "response")
_MCP_HEAD, _MCP_TAIL, _MCP_MAPS = ("tool", "server"), ("is_error", "succeeds"), ("arguments", "result")


class RubricResult(BaseModel):
    id: str
    title: str = ""
    checker_key: str | None = None
    passed: bool
    points: int
    max_score: int
    reason: str
    matched_call_ids: list[str] = Field(default_factory=list)


class ScoreReport(BaseModel):
    attempt: str
    score: int
    max_score: int
    passed: bool
    policy: str
    rubrics: list[RubricResult]

    def cli_dict(self) -> dict[str, Any]:
        """The `rlauto score --json` shape."""
        return {
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "policy": self.policy,
            "rubrics": [
                r.model_dump(include={"id", "passed", "points", "max_score", "reason", "matched_call_ids"})
                for r in self.rubrics
            ],
        }


class _Match:
    """Outcome of one matcher against one call; `progress` counts predicates that held."""

    __slots__ = ("ok", "progress", "why")

    def __init__(self, ok: bool, why: str, progress: int) -> None:
        self.ok, self.why, self.progress = ok, why, progress


def reported_answer(attempt: Recording) -> Any:
    """What the attempt reports: `task.answer` of its task.json (or a top-level `answer`); MISSING if none."""
    extra = attempt.task.model_extra or {}
    if extra.get("answer") is not None:
        return extra["answer"]
    top = attempt.task_json.get("answer")
    return top if top is not None else MISSING


class _Before:
    """The attempt as a predicate sees it from one position: earlier calls only (`before`)."""

    def __init__(self, engine: CheckerEngine, before: int) -> None:
        self._engine, self._before = engine, before

    def same_as(self, ref: dict[str, Any]) -> list[Any]:
        return self._engine.ref_values(ref, self._before)

    def created(self, value: Any, by: str | None) -> bool:
        carried = self._engine.carried
        if by is None:
            return carried.before(value, self._before)
        # the creating call by its own checker (whatever else that call's rubric demands); the create
        # itself may name what it acts on (an add that says which cart) when its answer carries it
        return any(
            v.position <= self._before and carried.carried_by(value, v.position, self._before)
            for v in self._engine.matches(by)
        )


class CheckerEngine:
    """Evaluates the checkers of one catalog over one attempt; matches per checker key are memoized."""

    def __init__(self, catalog: Mapping[str, Any], attempt: Recording) -> None:
        self.catalog = catalog
        self.views = recording_views(attempt)
        self._attempt = attempt
        self.dbdiff: DbDiff | None = attempt.dbdiff
        self.answer: Any = reported_answer(attempt)
        self._memo: dict[str, list[CallView]] = {}
        # a database or an answer has no order: anything the attempt did counts
        self._anywhere = _Before(self, len(self.views) + 1)

    @cached_property
    def carried(self) -> CarriedValues:
        """What the attempt's answers carried, read once and only when a `created` predicate asks."""
        return CarriedValues.of(self._attempt)

    # -- call matchers -------------------------------------------------------------------------
    def matches(self, ref: Any) -> list[CallView]:
        """Calls matching a reference: a checker key, an inline matcher, or a list of either."""
        if isinstance(ref, list):
            seen: dict[str, CallView] = {}
            for item in ref:
                for view in self.matches(item):
                    seen.setdefault(f"{view.kind}:{view.id}:{view.position}", view)
            return sorted(seen.values(), key=lambda v: v.position)
        if isinstance(ref, str):
            if ref not in self._memo:
                self._memo[ref] = []  # guards against cycles the validator should have refused
                self._memo[ref] = self.matches(self.catalog[ref])
            return self._memo[ref]
        return [view for view in self.views if self.match_call(ref, view).ok]

    def match_call(self, matcher: dict[str, Any], view: CallView) -> _Match:
        kind = matcher.get("kind")
        if (kind == "http_call") != (view.kind == "http"):
            return _Match(False, f"{view.id} is not an {'HTTP' if kind == 'http_call' else 'MCP'} call", 0)
        progress = 0
        refs = _Before(self, view.position)
        head, tail, maps = (
            (_HTTP_HEAD, _HTTP_TAIL, _HTTP_MAPS) if kind == "http_call" else (_MCP_HEAD, _MCP_TAIL, _MCP_MAPS)
        )
        checks: list[tuple[str, Any, Any]] = [(n, matcher[n], view.get(n)) for n in head if n in matcher]
        if kind == "http_call" and "path_template" in matcher:
            params = match_template(matcher["path_template"], view.fields["path"])
            checks.append(("path_template", matcher["path_template"], params))
            for name, predicate in matcher.get("path_params", {}).items():
                value = params.get(name, MISSING) if params is not None else MISSING
                checks.append((f"path_params.{name}", predicate, value))
        checks.extend((n, matcher[n], view.get(n)) for n in tail if n in matcher)
        for root in maps:
            for field_path, predicate in (matcher.get(root) or {}).items():
                checks.append((f"{root}.{field_path}", predicate, resolve(view.fields[root], field_path)))
        for where, predicate, value in checks:
            if where == "path_template":
                ok = value is not None
                why = f"path {view.fields['path']!r} does not fit {predicate!r}"
            else:
                ok, why = evaluate(predicate, value, refs)
            if not ok:
                return _Match(False, f"{view.id} ({view.name}): {where}: {why}", progress)
            progress += 1
        return _Match(True, "", progress)

    def ref_values(self, ref: dict[str, Any], before: int) -> list[Any]:
        key, field = str(ref.get("checker")), str(ref.get("field"))
        checker = self.catalog.get(key)
        if not isinstance(checker, dict):
            return []
        values: list[Any] = []
        for view in self.matches(key):
            if view.position >= before:
                continue
            if field.startswith("path_params.") and "path_template" in checker:
                params = match_template(checker["path_template"], view.fields["path"]) or {}
                value = params.get(field.split(".", 1)[1], MISSING)
            else:
                value = view.get(field)
            if value is not MISSING:
                values.append(value)
        return values

    def closest_miss(self, matcher: dict[str, Any]) -> str:
        best: _Match | None = None
        for view in self.views:
            result = self.match_call(matcher, view)
            if best is None or result.progress > best.progress:
                best = result
        if best is None:
            return "the attempt has no calls"
        if best.progress == 0:
            wanted = matcher.get("tool") or " ".join(
                str(matcher.get(k)) for k in ("method", "path", "path_template") if isinstance(matcher.get(k), str)
            )
            return f"no call matched: the attempt never makes {wanted or 'such a call'}"
        return f"no call matched; closest: {best.why}"

    # -- checkers ------------------------------------------------------------------------------
    def run(self, key: str) -> tuple[bool, str, list[str]]:
        """(passed, reason, matched call ids) of the catalog's checker `key`."""
        checker = self.catalog[key]
        kind = checker["kind"]
        if kind in ("http_call", "mcp_call"):
            found = self.matches(key)
            if found:
                return True, f"matched {', '.join(v.id for v in found)}", [v.id for v in found]
            return False, self.closest_miss(checker), []
        if kind == "dbdiff":
            return self._run_dbdiff(checker)
        if kind == "order":
            return self._run_order(checker)
        if kind == "absent":
            return self._run_absent(checker)
        if kind == "answer":
            return self._run_answer(checker)
        return self._run_count(checker)

    def _run_answer(self, checker: dict[str, Any]) -> tuple[bool, str, list[str]]:
        if self.answer is MISSING or self.answer == "":
            return False, "the attempt reports no answer (task.answer)", []
        value = resolve(self.answer, checker["field"]) if "field" in checker else self.answer
        if isinstance(value, dict | list):  # a structured answer is matched as its JSON text
            value = json.dumps(value, ensure_ascii=False)
        ok, why = evaluate(checker["answer"], value, self._anywhere)
        return (True, "the answer matches", []) if ok else (False, f"answer: {why}", [])

    def _run_order(self, checker: dict[str, Any]) -> tuple[bool, str, list[str]]:
        firsts, thens = self.matches(checker["before"]), self.matches(checker["after"])
        if not firsts or not thens:
            missing = "the earlier call" if not firsts else "the later call"
            return False, f"{missing} never happened", [v.id for v in firsts + thens]
        for first in firsts:
            for then in thens:
                if first.position < then.position:
                    return True, f"{first.id} comes before {then.id}", [first.id, then.id]
        return False, f"wrong order: {thens[0].id} comes before {firsts[0].id}", [thens[0].id, firsts[0].id]

    def _run_absent(self, checker: dict[str, Any]) -> tuple[bool, str, list[str]]:
        if "given" in checker and not self.matches(checker["given"]):
            return False, "the task's required call never happened, so absence proves nothing", []
        found = self.matches(checker["match"])
        if found:
            return False, f"forbidden call(s) present: {', '.join(v.id for v in found)}", [v.id for v in found]
        return True, "no forbidden call", []

    def _run_count(self, checker: dict[str, Any]) -> tuple[bool, str, list[str]]:
        found = self.matches(checker["match"])
        ok, why = evaluate(checker["count"], len(found))
        ids = [v.id for v in found]
        return ok, (f"{len(found)} matching call(s)" if ok else f"count: {why}"), ids

    def _run_dbdiff(self, checker: dict[str, Any]) -> tuple[bool, str, list[str]]:
        if self.dbdiff is None:
            return False, "the attempt has no dbdiff.json", []
        table, op = checker["table"], checker["op"]
        diff = self.dbdiff.tables.get(table)
        if diff is None:
            return False, f"table {table!r} did not change", []
        rows: list[tuple[dict[str, Any], dict[str, Any]]]
        if op == "insert":
            rows = [(row, {}) for row in diff.inserted]
        elif op == "delete":
            rows = [(row, {}) for row in diff.deleted]
        else:
            rows = [(u.after, u.before) for u in diff.updated]
        if not rows:
            return False, f"no {op} in table {table!r}", []
        last_why = ""
        for number, (row, before) in enumerate(rows):
            ok, why = _row_matches(checker.get("row") or {}, row, self._anywhere)
            if ok and op == "update":
                ok, why = _row_matches(checker.get("before") or {}, before, self._anywhere)
            if ok:
                return True, f"{table} {op} row {number} matches", []
            last_why = why
        return False, f"no {op} row of {table!r} matches: {last_why}", []


def _row_matches(predicates: dict[str, Any], row: dict[str, Any], refs: _Before) -> tuple[bool, str]:
    for column, predicate in predicates.items():
        ok, why = evaluate(predicate, resolve(row, column), refs)
        if not ok:
            return False, f"{column}: {why}"
    return True, ""


def ensure_valid(package: ScoredPackage, file: str = "task.json") -> None:
    """Refuse a package whose checkers are broken, naming the first problems."""
    rubrics = [(r.id, r.checker_key) for r in package.task.rubrics]
    errors = [f for f in check_catalog(package.rubric_checkers, rubrics) if f.severity == "error"]
    if errors:
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise PackageError(file, "; ".join(f.message for f in errors[:3]) + more)


def score(package: ScoredPackage, attempt: Recording) -> ScoreReport:
    """Score `attempt` rubric by rubric; pass/fail under the package's attempt policy."""
    ensure_valid(package)
    engine = CheckerEngine(package.rubric_checkers, attempt)
    results: list[RubricResult] = []
    for rubric in package.task.rubrics:
        assert rubric.checker_key is not None  # ensured by ensure_valid
        passed, reason, ids = engine.run(rubric.checker_key)
        results.append(
            RubricResult(
                id=rubric.id,
                title=rubric.title,
                checker_key=rubric.checker_key,
                passed=passed,
                points=rubric.max_score if passed else 0,
                max_score=rubric.max_score,
                reason=reason,
                matched_call_ids=ids,
            )
        )
    total = sum(r.points for r in results)
    maximum = sum(r.max_score for r in results)
    policy = package.pass_policy.attempt
    required = set(policy.required_rubrics) or {r.id for r in results}
    enough = total >= math.ceil(policy.min_fraction * maximum - 1e-9)
    passed = maximum > 0 and enough and all(r.passed for r in results if r.id in required)
    return ScoreReport(
        attempt=attempt.source_name,
        score=total,
        max_score=maximum,
        passed=passed,
        policy=policy.rule,
        rubrics=results,
    )
