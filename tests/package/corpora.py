"""The corpora the package targets are measured on, and the five rates (issue 13, "Targets").

- team: examples/recordings with tests/package/attempts (the team's corpus);
- tuned: tests/package/tuned, the shapes the analyzer was developed against;
- heldout: tests/package/heldout, recordings and attempts nobody tuned on;
- paths: tests/package/paths, good attempts that take another valid path (issue 20).

Only stable public calls are used (package_offline, score, import_path), so the same code
measures any version of the analyzer.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rlauto_core.checkers import score
from rlauto_core.config.options import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.importers import import_path
from rlauto_core.package.models import TaskPackage
from tests.package.offline import package_offline

ROOT = Path(__file__).resolve().parents[2]
CORPORA = {
    "team": (ROOT / "examples" / "recordings", ROOT / "tests" / "package" / "attempts"),
    "tuned": (ROOT / "tests" / "package" / "tuned" / "recordings", ROOT / "tests" / "package" / "tuned" / "attempts"),
    "heldout": (
        ROOT / "tests" / "package" / "heldout" / "recordings",
        ROOT / "tests" / "package" / "heldout" / "attempts",
    ),
    "paths": (ROOT / "tests" / "package" / "paths" / "recordings", ROOT / "tests" / "package" / "paths" / "attempts"),
}
WRONG_KINDS = ("missing_write", "wrong_entity", "wrong_order", "wrong_answer", "wrong_content")


def is_good(kind: str) -> bool:
    """`good` (the task redone later) and `good_<path>` (by another valid path): full marks."""
    return kind == "good" or kind.startswith("good_")


@dataclass(frozen=True)
class Case:
    name: str
    recording: Path
    attempts: dict[str, Path]


def cases(corpus: str) -> list[Case]:
    recordings, attempts = CORPORA[corpus]
    found = []
    for path in sorted(p for p in recordings.iterdir() if p.suffix in (".zip", ".har")):
        folder = attempts / path.name.rsplit(".", 1)[0]
        kinds = {p.stem: p for p in sorted(folder.glob("*.zip"))} if folder.is_dir() else {}
        found.append(Case(path.name, path, kinds))
    return found


@dataclass
class Rate:
    hits: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, ok: bool, what: str) -> None:
        self.total += 1
        self.hits += ok
        if not ok:
            self.misses.append(what)

    @property
    def fraction(self) -> float:
        return self.hits / self.total if self.total else 1.0


@dataclass
class Rates:
    golden_full_marks: Rate = field(default_factory=Rate)
    empty_scores_zero: Rate = field(default_factory=Rate)
    mutants_caught: Rate = field(default_factory=Rate)
    good_attempts_pass: Rate = field(default_factory=Rate)
    wrong_attempts_fail: Rate = field(default_factory=Rate)
    variants_full_marks: Rate = field(default_factory=Rate)

    def items(self) -> list[tuple[str, Rate]]:
        return list(vars(self).items())


TARGETS = {
    "golden_full_marks": 1.0,
    "empty_scores_zero": 1.0,
    "mutants_caught": 0.95,
    "good_attempts_pass": 1.0,
    "wrong_attempts_fail": 1.0,
    "variants_full_marks": 1.0,
}


def _attempt_score(package: TaskPackage, attempt: Path) -> tuple[bool, int, int, str]:
    """(passed, score, points on rubrics the attempt passed, reason of the first failure)."""
    try:
        report = score(package, import_path(attempt))
    except RlautoError as exc:
        return False, 0, 0, str(exc)
    first = next((f"{r.id} {r.reason}" for r in report.rubrics if not r.passed), "")
    return report.passed, report.score, sum(r.points for r in report.rubrics), first


def measure(corpus: str, options: RunOptions | None = None) -> Rates:
    rates = Rates()
    with tempfile.TemporaryDirectory() as out:
        for case in cases(corpus):
            outcome = package_offline(case.recording, options or RunOptions(), Path(out))
            package = outcome.package
            check = package.validation.self_check if package is not None else None
            if package is None or check is None or not package.task.rubrics:
                for rate in (rates.golden_full_marks, rates.empty_scores_zero, rates.good_attempts_pass):
                    rate.add(
                        False, f"{case.name}: no package with rubrics ({outcome.error or outcome.outcome.verdict})"
                    )
                continue
            rates.golden_full_marks.add(check.golden_full_marks, f"{case.name}: {check.golden_score}/{check.max_score}")
            rates.mutants_caught.hits += check.mutants_caught
            rates.mutants_caught.total += check.mutants_total
            rates.mutants_caught.misses += [f"{case.name}: {m.description}" for m in check.mutants if not m.caught]
            rates.variants_full_marks.hits += check.variants_passed
            rates.variants_full_marks.total += check.variants_total
            rates.variants_full_marks.misses += [
                f"{case.name}: {v.description} breaks {', '.join(b.id for b in v.broken)}"
                for v in check.variants
                if not v.full_marks
            ]
            empty = case.attempts.get("empty")
            if empty is not None:
                _, points, _, _ = _attempt_score(package, empty)
                rates.empty_scores_zero.add(points == 0, f"{case.name}: empty attempt scores {points}")
            else:
                rates.empty_scores_zero.add(check.empty_attempt_score == 0, f"{case.name}: empty attempt scores")
            for kind in sorted(k for k in case.attempts if is_good(k)):
                passed, points, _, why = _attempt_score(package, case.attempts[kind])
                full = passed and points == package.max_score
                rates.good_attempts_pass.add(full, f"{case.name}: {kind} {points}/{package.max_score}: {why}")
            for kind in WRONG_KINDS:
                wrong = case.attempts.get(kind)
                if wrong is not None:
                    passed, points, _, _ = _attempt_score(package, wrong)
                    rates.wrong_attempts_fail.add(
                        not passed, f"{case.name}: {kind} passes {points}/{package.max_score}"
                    )
    return rates
