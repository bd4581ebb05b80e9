"""Every example recording packages itself into a package that proves itself, and scores attempts right."""

from __future__ import annotations

from pathlib import Path

import pytest

from rlauto_core.checkers import score
from rlauto_core.importers import import_path
from rlauto_core.package import Dimension
from tests.package.conftest import ATTEMPTS, UNINSTRUCTED, Packaged, example_files

EXAMPLE_NAMES = [p.name for p in example_files()]


def test_all_seven_examples_are_there() -> None:
    assert len(EXAMPLE_NAMES) == 7  # six recordings of the main job and the bare capture


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_example_package_proves_itself(packaged: dict[str, Packaged], name: str) -> None:
    outcome = packaged[name]
    assert outcome.package is not None, outcome.error
    if name == UNINSTRUCTED:  # proves itself too, but an instruction the analyzer wrote never passes
        assert outcome.outcome.status == "failed" and outcome.package_path is None
    else:
        assert outcome.passed, outcome.error or outcome.judge
        assert outcome.package_path and Path(outcome.package_path).is_file()
    check = outcome.package.validation.self_check
    assert check is not None
    assert check.golden_full_marks and check.golden_score == check.max_score > 0
    assert check.empty_attempt_score == 0 and not check.empty_attempt_passed
    assert check.mutants_total >= 5
    assert check.mutants_caught == check.mutants_total
    assert {m.kind for m in check.mutants} >= {"drop", "retarget", "swap"}
    assert check.problems == []
    assert check.redo_full_marks is True  # every example has server-made ids a redo changes
    assert outcome.judge is not None and outcome.outcome.total_score is not None
    if name == UNINSTRUCTED:
        assert outcome.outcome.verdict == "NEEDS_REVISION"
        assert outcome.judge.score_of(Dimension.INSTRUCTION_CLARITY) == 0
        assert [s.dimension for s in outcome.judge.scores if s.score < 2] == [Dimension.INSTRUCTION_CLARITY]
    else:
        assert outcome.outcome.verdict == "PASS" and outcome.outcome.total_score >= 10


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_empty_attempt_scores_zero_on_every_state_changing_rubric(packaged: dict[str, Packaged], name: str) -> None:
    package = packaged[name].package
    assert package is not None
    empty = import_path(ATTEMPTS / name.rsplit(".", 1)[0] / "empty.zip")
    report = score(package, empty)
    assert report.score == 0 and not report.passed
    assert all(r.points == 0 for r in report.rubrics)


VERDICTS = {"good": True, "empty": False, "missing_write": False, "wrong_entity": False, "wrong_order": False}


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
@pytest.mark.parametrize("kind", list(VERDICTS))
def test_own_attempts_get_the_right_verdict(packaged: dict[str, Packaged], name: str, kind: str) -> None:
    package = packaged[name].package
    assert package is not None
    report = score(package, import_path(ATTEMPTS / name.rsplit(".", 1)[0] / f"{kind}.zip"))
    assert report.passed is VERDICTS[kind], [r for r in report.rubrics if not r.passed]
    if kind == "good":
        # new server ids, new clock, new call ids, other noise: still full marks
        assert report.score == report.max_score
    else:
        assert report.score < report.max_score
        assert any(not r.passed and r.reason for r in report.rubrics)


def test_attempt_files_are_what_the_script_writes() -> None:
    from tests.package.attempts.make_attempts import PLANS, build_attempts

    for name in PLANS:
        source = next(p for p in example_files() if p.name == name)
        for kind, data in build_attempts(source).items():
            assert (ATTEMPTS / name.rsplit(".", 1)[0] / f"{kind}.zip").read_bytes() == data, (name, kind)
