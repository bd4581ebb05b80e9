"""Issue 28's two corpora (tests/package/rewards: batch A, which guides the fixes;
tests/package/rewards_heldout: batch B, held out until measured after A's fixes) are what their scripts write, every attempt in
them imports and is of a kind the measure knows, and each recording's ground truth names calls the
recording has. How the packages score on them is measured by bench/bench_package_targets.py and
bench/bench_rewards_writes.py (first contact: each corpus's FIRST_CONTACT.txt) and asserted at
100 % by tests/package/test_targets.py and test_variants.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.importers import import_path
from rlauto_core.recording import HttpCall, Recording
from tests.package.corpora import CORPORA, WRONG_KINDS, cases, check_kind, measure

REWARDS = ("rewards", "rewards_heldout", "rewards_c")
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def test_rewards_corpus_files_are_what_the_scripts_write() -> None:
    from tests.package.rewards.make_rewards import files as rewards_files
    from tests.package.rewards_c.make_rewards_c import files as c_files
    from tests.package.rewards_heldout.make_rewards_heldout import files as heldout_files

    written = {**rewards_files(), **heldout_files(), **c_files()}
    for path, data in written.items():
        assert path.read_bytes() == data, path
    for corpus in REWARDS:  # and nothing the scripts no longer write lies about
        root = CORPORA[corpus][0].parent
        on_disk = {
            p for folder in ("recordings", "attempts", "truth") for p in (root / folder).rglob("*") if p.is_file()
        }
        assert on_disk <= set(written), sorted(on_disk - set(written))


@pytest.mark.parametrize("corpus", REWARDS)
def test_every_app_has_good_empty_and_wrong_attempts(corpus: str) -> None:
    found = cases(corpus)
    assert len(found) >= (10 if corpus == "rewards" else 5)
    for case in found:
        kinds = set(case.attempts)
        assert {"good", "empty", "missing_write"} <= kinds, case.name
        assert kinds & {"wrong_entity", "failed_write", "other_operation", "stray_write"}, case.name
    every = {k for case in found for k in case.attempts}
    assert {"failed_write", "other_operation", "stray_write", "wrong_entity"} <= every
    assert any(k.startswith("good_") for k in every)


@pytest.mark.parametrize("corpus", REWARDS)
def test_every_attempt_imports_and_the_truth_names_recorded_writes(corpus: str) -> None:
    for case in cases(corpus):
        for path in case.attempts.values():
            import_path(path)  # raises a RecordingError naming the file
        recording = import_path(case.recording)
        calls = {c.id: c for c in recording.calls}
        truth = json.loads((case.recording.parent.parent / "truth" / f"{case.recording.stem}.json").read_text())
        assert truth["instruction"] == recording.task.instruction
        assert truth["required_writes"] >= 2, case.name
        for write in truth["writes"]:
            # a bulk or a GraphQL batch is one call per item once imported (`<id>-op1`...)
            parts = [c for i, c in calls.items() if i == write["call"] or i.startswith(f"{write['call']}-op")]
            assert parts, (case.name, write)
            for call in parts:
                if isinstance(call, HttpCall):
                    assert call.method in WRITE_METHODS, (case.name, write)


def test_an_attempt_kind_the_measure_does_not_know_is_refused(tmp_path: Path) -> None:
    for kind in ("good", "good_by_tag", "empty", *WRONG_KINDS):
        check_kind(kind, tmp_path / f"{kind}.zip")
    with pytest.raises(ValueError, match="wrongish"):
        check_kind("wrongish", tmp_path / "wrongish.zip")


def test_an_attempt_that_does_not_import_is_counted_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recordings, attempts = CORPORA["rewards"]
    (tmp_path / "recordings").mkdir()
    (tmp_path / "attempts" / "slack_ok_false").mkdir(parents=True)
    shutil.copy(recordings / "slack_ok_false.zip", tmp_path / "recordings")
    shutil.copy(attempts / "slack_ok_false" / "missing_write.zip", tmp_path / "attempts" / "slack_ok_false")
    (tmp_path / "attempts" / "slack_ok_false" / "wrong_entity.zip").write_bytes(b"PK\x03\x04 not a zip")
    monkeypatch.setitem(CORPORA, "scratch", (tmp_path / "recordings", tmp_path / "attempts"))
    rates = measure("scratch")
    assert len(rates.unimported) == 1 and rates.unimported[0].startswith("slack_ok_false.zip: wrong_entity: ")
    # the missing write only: the broken file is no wrong attempt that failed
    assert rates.wrong_attempts_fail.total == 1
    assert [name for name, _ in rates.items()] == [
        "golden_full_marks", "empty_scores_zero", "mutants_caught", "good_attempts_pass", "wrong_attempts_fail", "variants_full_marks",
    ]  # fmt: skip


def test_an_attempt_the_package_cannot_score_is_counted_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A domain error while scoring is the package's fault: listed in `unscored`, never a wrong
    attempt that failed (which would flatter the package) nor a good one that did."""
    from rlauto_core.errors import PackageError
    from tests.package import corpora

    recordings, attempts = CORPORA["rewards"]
    (tmp_path / "recordings").mkdir()
    shutil.copy(recordings / "slack_ok_false.zip", tmp_path / "recordings")
    shutil.copytree(attempts / "slack_ok_false", tmp_path / "attempts" / "slack_ok_false")
    monkeypatch.setitem(CORPORA, "scratch", (tmp_path / "recordings", tmp_path / "attempts"))
    counted = measure("scratch")
    real_score = corpora.score

    def refuses_the_missing_write(package: Any, attempt: Recording) -> Any:
        if attempt.source_name == "missing_write.zip":
            raise PackageError("package.json", "a checker that cannot run")
        return real_score(package, attempt)

    monkeypatch.setattr(corpora, "score", refuses_the_missing_write)
    apart = measure("scratch")
    assert [u.split(": ")[:2] for u in apart.unscored] == [["slack_ok_false.zip", "missing_write"]]
    assert apart.wrong_attempts_fail.total == counted.wrong_attempts_fail.total - 1
    assert apart.wrong_attempts_fail.hits == counted.wrong_attempts_fail.hits - 1
