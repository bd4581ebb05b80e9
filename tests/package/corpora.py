"""The corpora the package targets are measured on, and the five rates (issue 13, "Targets").

- team: examples/recordings with tests/package/attempts (the team's corpus);
- tuned: tests/package/tuned, the shapes the analyzer was developed against;
- heldout: tests/package/heldout, recordings and attempts nobody tuned on;
- paths: tests/package/paths, good attempts that take another valid path (issue 20);
- rewards: tests/package/rewards, issue 28's batch A (sibling writes, failures inside a 2xx,
  GraphQL operations, concurrency values under other names, main-entity shapes), written and
  measured (FIRST_CONTACT.txt) before any fix: it guides the fixes, so it is not held out;
- rewards_heldout: tests/package/rewards_heldout, issue 28's batch B, the same classes by other
  conventions, measured at first contact (FIRST_CONTACT.txt) and once after batch A's fixes, then
  fixed by general rules: no longer held out (docs/packages.md has the three figures);
- rewards_c: tests/package/rewards_c, batch C, written by a helper session after batches A and B
  closed issue 28, in conventions neither used (GraphQL userErrors, an RPC dispatcher's positional
  arguments, a composite of HTTP sub-requests, a precondition refused and retried, a form token
  under another name); measured once at first contact (FIRST_CONTACT.txt), then fixed by general
  rules: no longer held out.

An attempt kind is `good`, `good_<path>`, `empty` or one of WRONG_KINDS; any other name is refused.
An attempt that fails to import is listed apart (`Rates.unimported`), never counted as a wrong
attempt that failed nor as a good one that did; an attempt that imports but that the package
cannot score (a domain error from `score`) is a fault of the package, listed apart too
(`Rates.unscored`), so a wrong attempt is counted as failed only when its reward says so.

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
    "rewards": (
        ROOT / "tests" / "package" / "rewards" / "recordings",
        ROOT / "tests" / "package" / "rewards" / "attempts",
    ),
    "rewards_heldout": (
        ROOT / "tests" / "package" / "rewards_heldout" / "recordings",
        ROOT / "tests" / "package" / "rewards_heldout" / "attempts",
    ),
    "rewards_c": (
        ROOT / "tests" / "package" / "rewards_c" / "recordings",
        ROOT / "tests" / "package" / "rewards_c" / "attempts",
    ),
}
# The corpora tests/package/test_targets.py holds to TARGETS (issue 28's three joined once fixed).
TARGETED = ("team", "tuned", "heldout", "paths", "rewards", "rewards_heldout", "rewards_c")
# Attempts that must not pass, each for what it got wrong.
WRONG_KINDS = (
    "missing_write",  # a required write left out
    "wrong_entity",  # a write aimed at another entity (another sibling, issue, document, cart)
    "wrong_order",  # two dependent writes swapped
    "wrong_answer",  # an answer task's report is wrong
    "wrong_content",  # a write sends the wrong content
    "failed_write",  # a required write sent, and refused the protocol's way (also inside a 2xx)
    "other_operation",  # another operation on the same endpoint (another GraphQL mutation)
    "stray_write",  # the task done, plus a write on another entity of the same kind
)


def is_good(kind: str) -> bool:
    """`good` (the task redone later) and `good_<path>` (by another valid path): full marks."""
    return kind == "good" or kind.startswith("good_")


def check_kind(kind: str, where: Path) -> None:
    """Every attempt is good, empty or a known wrong kind: a wrong attempt under an unknown name
    would not be measured at all."""
    if not (is_good(kind) or kind == "empty" or kind in WRONG_KINDS):
        raise ValueError(
            f"{where}: attempt kind {kind!r} is none of good, good_<path>, empty, {', '.join(WRONG_KINDS)}"
        )


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
        for kind, where in kinds.items():
            check_kind(kind, where)
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
    unimported: list[str] = field(default_factory=list)  # attempts that did not import: counted apart
    unscored: list[str] = field(default_factory=list)  # attempts the package could not score: apart

    def items(self) -> list[tuple[str, Rate]]:
        return [(name, rate) for name, rate in vars(self).items() if isinstance(rate, Rate)]


TARGETS = {
    "golden_full_marks": 1.0,
    "empty_scores_zero": 1.0,
    "mutants_caught": 1.0,
    "good_attempts_pass": 1.0,
    "wrong_attempts_fail": 1.0,
    "variants_full_marks": 1.0,
}


class Unimported(Exception):
    """An attempt file the importer refused: a fault of the corpus, not of the package."""


class Unscored(Exception):
    """An attempt that imported but that the package could not score: a fault of the package."""


def _attempt_score(package: TaskPackage, attempt: Path) -> tuple[bool, int, int, str]:
    """(passed, score, points on rubrics the attempt passed, reason of the first failure);
    Unimported when the attempt does not import, Unscored when the package cannot score it."""
    try:
        recording = import_path(attempt)
    except RlautoError as exc:
        raise Unimported(str(exc)) from exc
    try:
        report = score(package, recording)
    except RlautoError as exc:
        raise Unscored(str(exc)) from exc
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
                try:
                    _, points, _, _ = _attempt_score(package, empty)
                    rates.empty_scores_zero.add(points == 0, f"{case.name}: empty attempt scores {points}")
                except Unimported as exc:
                    rates.unimported.append(f"{case.name}: empty: {exc}")
                except Unscored as exc:
                    rates.unscored.append(f"{case.name}: empty: {exc}")
            else:
                rates.empty_scores_zero.add(check.empty_attempt_score == 0, f"{case.name}: empty attempt scores")
            for kind in sorted(k for k in case.attempts if is_good(k)):
                try:
                    passed, points, _, why = _attempt_score(package, case.attempts[kind])
                except Unimported as exc:
                    rates.unimported.append(f"{case.name}: {kind}: {exc}")
                    continue
                except Unscored as exc:
                    rates.unscored.append(f"{case.name}: {kind}: {exc}")
                    continue
                full = passed and points == package.max_score
                rates.good_attempts_pass.add(full, f"{case.name}: {kind} {points}/{package.max_score}: {why}")
            for kind in WRONG_KINDS:
                wrong = case.attempts.get(kind)
                if wrong is not None:
                    try:
                        passed, points, _, _ = _attempt_score(package, wrong)
                    except Unimported as exc:
                        rates.unimported.append(f"{case.name}: {kind}: {exc}")
                        continue
                    except Unscored as exc:
                        rates.unscored.append(f"{case.name}: {kind}: {exc}")
                        continue
                    rates.wrong_attempts_fail.add(
                        not passed, f"{case.name}: {kind} passes {points}/{package.max_score}"
                    )
    return rates
