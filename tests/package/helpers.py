"""Package a recording in memory the way the offline pipeline does (no export), for tests."""

from __future__ import annotations

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.evidence.build import build_evidence
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.package.builder import build_package
from rlauto_core.package.models import TaskPackage
from rlauto_core.recording import Recording
from rlauto_core.rules import run_rules


def package_from(recording: Recording) -> TaskPackage:
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence)
    package = build_package(recording, evidence, analyze_offline(recording, evidence, flags), flags=flags)
    package.validation.self_check = self_check(package, recording)
    return package
