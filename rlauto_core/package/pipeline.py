"""The offline packaging path for one recording: import, evidence, rules, offline analyzer, builder,
self-check, validator, export. Pure: the CLI and (later) Prefect tasks call it."""

from __future__ import annotations

import glob
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.config.options import RunOptions
from rlauto_core.errors import RlautoError
from rlauto_core.evidence.build import build_evidence
from rlauto_core.importers import import_path
from rlauto_core.judging.selfcheck import cli_dict, self_check
from rlauto_core.judging.validator import validate
from rlauto_core.package.builder import build_package
from rlauto_core.package.export import export_package
from rlauto_core.package.judgement import JudgeResult
from rlauto_core.package.models import JudgeIteration, TaskPackage
from rlauto_core.rules import run_rules

RECORDING_SUFFIXES = (".zip", ".har")
Status = Literal["packaged", "needs_revision", "error"]


class PackageOutcome(BaseModel):
    source: str
    status: Status
    verdict: str | None = None
    total_score: int | None = None
    package_path: str | None = None
    self_check: dict[str, Any] | None = None
    error: str | None = None
    package: TaskPackage | None = None
    judge: JudgeResult | None = None

    def cli_dict(self) -> dict[str, Any]:
        """The `rlauto package --json` item."""
        return self.model_dump(
            include={"source", "status", "verdict", "total_score", "package_path", "self_check", "error"}
        )


def expand_paths(paths: Iterable[str | Path]) -> tuple[list[Path], list[str]]:
    """Files as given, folders' recordings (sorted, not recursive), globs; and paths that matched nothing."""
    found: list[Path] = []
    missing: list[str] = []
    for raw in paths:
        text = str(raw)
        path = Path(text)
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in RECORDING_SUFFIXES))
        elif path.is_file():
            found.append(path)
        elif any(ch in text for ch in "*?["):
            matches = sorted(Path(m) for m in glob.glob(text, recursive=True) if Path(m).is_file())
            found.extend(matches) if matches else missing.append(text)
        else:
            missing.append(text)
    unique: dict[str, Path] = {}
    for path in found:
        unique.setdefault(str(path.resolve()), path)
    return list(unique.values()), missing


def package_recording(path: Path, options: RunOptions, out_dir: Path) -> PackageOutcome:
    """One recording through the offline path; a bad recording is an `error` outcome, never a raise."""
    try:
        recording = import_path(path, options.requested_mode)
        evidence = build_evidence(recording)
        flags = run_rules(recording, evidence, options.rule_profile)
        draft = analyze_offline(recording, evidence, flags)
        package = build_package(
            recording, evidence, draft, rule_profile=options.rule_profile, pass_policy=options.pass_policy, flags=flags
        )
        check = self_check(package, recording)
        package.validation.self_check = check
        judged = validate(package, recording, evidence=evidence, flags=flags, check=check, policy=options.pass_policy)
        package.validation.judge = [JudgeIteration(iteration=1, result=judged)]
        package.validation.iterations_used = 1
        package.validation.verdict = judged.verdict
        written = None
        if judged.verdict == "PASS":
            written = export_package(
                path, package, out_dir, root_prefix=recording.root_prefix, redact_secrets=options.redact_secrets
            )
        return PackageOutcome(
            source=str(path),
            status="packaged" if written else "needs_revision",
            verdict=judged.verdict,
            total_score=judged.total,
            package_path=str(written) if written else None,
            self_check=cli_dict(check),
            package=package,
            judge=judged,
        )
    except RlautoError as exc:
        return PackageOutcome(source=str(path), status="error", error=str(exc))


def package_paths(
    paths: Iterable[str | Path],
    options: RunOptions,
    out_dir: str | Path,
    on_done: Callable[[PackageOutcome], None] | None = None,
) -> list[PackageOutcome]:
    """Every recording the paths name, in order; paths that match nothing are error outcomes."""
    files, missing = expand_paths(paths)
    outcomes = [PackageOutcome(source=m, status="error", error=f"{m}: no such file or folder") for m in missing]
    for outcome in outcomes:
        if on_done is not None:
            on_done(outcome)
    for path in files:
        outcome = package_recording(path, options, Path(out_dir))
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)
    return outcomes
