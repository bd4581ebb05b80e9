"""Every package of every corpus (and the form apps' of tests/forms) proves the other half of a reward: the valid variants of its golden
(reads dropped, stable ids sent without their read, reads reordered, ids renamed, volatile values
changed) keep full marks, and a deliberately over-strict checker is caught by them: a pinned lock
version or token, a pinned id the server created, or a stable id tied to the one read that showed it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rlauto_core.checkers import score
from rlauto_core.checkers.dsl import CALL_KINDS
from rlauto_core.checkers.views import match_template, parse_body, resolve
from rlauto_core.config.options import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.judging.selfcheck import golden_attempt, self_check
from rlauto_core.package.dataflow import output_locations
from rlauto_core.package.models import TaskPackage
from rlauto_core.package.volatile import volatile_kind
from rlauto_core.recording import Call, HttpCall, Recording
from tests.package.conftest import example_files
from tests.package.corpora import ROOT, TARGETED, cases
from tests.package.offline import package_offline

FORMS = ROOT / "tests" / "forms" / "corpus" / "recordings"
RECORDINGS = [
    *(p for p in example_files() if p.suffix == ".har"),
    *(case.recording for corpus in TARGETED for case in cases(corpus)),  # issue 28's corpora join once fixed
    *sorted(FORMS.glob("*.zip")),
]
IDS = [f"{p.parent.parent.name}/{p.name}" for p in RECORDINGS]


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, TaskPackage]:
    out = tmp_path_factory.mktemp("variants")
    found: dict[Path, TaskPackage] = {}
    for path in RECORDINGS:
        outcome = package_offline(path, RunOptions(), out)
        assert outcome.package is not None, (path, outcome.error)
        found[path] = outcome.package
    return found


def _sent(call: Call, checker: dict[str, Any], where: str) -> Any:
    """The value the recorded call sent where a checker names it (`request.cart.id`, `path_params.id`)."""
    root, name = where.split(".", 1)
    if isinstance(call, HttpCall):
        if root == "path_params":
            return (match_template(str(checker.get("path_template", "")), call.path) or {}).get(name)
        if root == "query":
            return dict(call.query).get(name)
        return resolve(parse_body(call.request_body, call.request_body_encoding, call.header("content-type")), name)
    return resolve(call.arguments, name)


def _read_checker(read: Call) -> dict[str, Any]:
    if isinstance(read, HttpCall):
        return {"kind": "http_call", "method": read.method, "path": read.path}
    return {"kind": "mcp_call", "tool": read.tool}


def over_strict(package: TaskPackage, recording: Recording) -> tuple[TaskPackage, str, str]:
    """A copy of the package with one rubric's checker over-strict, the rubric's id, and how: a volatile
    value pinned, else a created id pinned, else a stable id tied to the earlier read that showed it,
    else a volatile value of the call's own answer pinned, else the CSRF token it sent pinned."""
    golden, _ = golden_attempt(package, recording)
    order = [c.id for c in golden.calls]
    reads = {s.call_id for s in package.golden_trajectory if not s.state_changing}
    calls = {c.id: c for c in golden.calls}
    report = score(package, golden)
    graded = [
        (r.id, r.checker_key or "", calls[r.matched_call_ids[0]])
        for r in report.rubrics
        if r.matched_call_ids and package.rubric_checkers[r.checker_key or ""].get("kind") in CALL_KINDS
    ]
    for wanted in ("volatile", "created", "stable", "credential"):
        for rubric_id, key, call in graded:
            checker = package.rubric_checkers[key]
            for where, role in package.value_roles.get(key, {}).items():
                value = _sent(call, checker, where)
                kind = "credential" if "credential" in role.reason else role.role
                if kind != wanted or value is None or isinstance(value, list):
                    continue
                copy = package.model_copy(deep=True)
                predicate: Any = value
                if wanted == "stable":  # tied to the one read that showed it, as if no other path existed
                    earlier = [c for c in order[: order.index(call.id)] if c in reads]
                    shown = [
                        (c, f"{r}.{p}")
                        for c in map(calls.get, earlier)
                        if c
                        for r, p, v in output_locations(c)
                        if v == value
                    ]
                    if not shown:
                        continue
                    copy.rubric_checkers["read_pinned"] = _read_checker(shown[0][0])
                    predicate = {"same_as": {"checker": "read_pinned", "field": shown[0][1]}}
                root, name = where.split(".", 1)
                copy.rubric_checkers[key].setdefault(root, {})[name] = predicate
                return copy, rubric_id, f"{wanted} {where} pinned to {value!r}"
        if wanted == "stable":
            for rubric_id, key, call in graded:
                for root, path, value in output_locations(call):
                    if volatile_kind(path, value) is not None and not isinstance(value, list | dict):
                        copy = package.model_copy(deep=True)
                        copy.rubric_checkers[key].setdefault(root, {})[path] = value
                        return copy, rubric_id, f"the answer's volatile {root}.{path} pinned to {value!r}"
    raise AssertionError("no value to over-constrain")


@pytest.mark.parametrize("path", RECORDINGS, ids=IDS)
def test_valid_variants_keep_full_marks(packages: dict[Path, TaskPackage], path: Path) -> None:
    check = packages[path].validation.self_check
    assert check is not None and check.golden_full_marks
    assert check.variants_total >= 2, [v.kind for v in check.variants]
    assert check.variants_passed == check.variants_total, [(v.description, v.broken) for v in check.variants]
    assert check.failing_variant is None and not [p for p in check.problems if "variant" in p]
    assert check.mutants_caught / check.mutants_total >= 0.95


@pytest.mark.parametrize("path", RECORDINGS, ids=IDS)
def test_an_over_strict_checker_is_caught_by_a_variant(packages: dict[Path, TaskPackage], path: Path) -> None:
    package = packages[path]
    recording = import_path(path)
    strict, rubric_id, how = over_strict(package, recording)
    check = self_check(strict, recording)
    assert check.golden_full_marks, how  # the golden itself cannot tell: it sent exactly that value
    assert check.variants_passed < check.variants_total, how
    failing = check.failing_variant
    assert failing is not None and rubric_id in [b.id for b in failing.broken], (how, failing)
    assert any(p.startswith(f"valid variant {failing.id} (") for p in check.problems)
