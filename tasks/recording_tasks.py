"""Thin tasks around the pure pipeline: parse, rules, analyze (offline), build, judge, export.

None of them is retried except on transient errors (they have none of their own: a bad ZIP or
a low score fails at once). Their results are not persisted: they are cheap to recompute, and
only model calls (tasks/model_calls.py) are worth caching.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from prefect import task
from prefect.cache_policies import NONE as NO_CACHE
from pydantic import BaseModel, Field

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.config.options import RunOptions
from rlauto_core.evidence import build_evidence, slim_evidence
from rlauto_core.evidence.models import Evidence
from rlauto_core.importers import import_bytes
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.judging.validator import validate
from rlauto_core.package.builder import build_package
from rlauto_core.package.draft import PackageDraft
from rlauto_core.package.export import export_package
from rlauto_core.package.judgement import JudgeResult
from rlauto_core.package.models import JudgeIteration, TaskPackage
from rlauto_core.recording import Recording
from rlauto_core.rules import run_rules
from rlauto_core.rules.flags import Flag
from rlauto_core.store import layout
from tasks.models import UploadRef
from tasks.retry import STORAGE_WRITE
from tasks.storage_io import get_storage

_PLAIN = {"cache_policy": NO_CACHE, "persist_result": False, "result_serializer": "json"}


class Findings(BaseModel):
    """Evidence and local-rule flags of one recording."""

    evidence: Evidence
    flags: list[Flag] = Field(default_factory=list)


@task(name="parse", task_run_name="parse-{upload.source_name}", **_PLAIN)
def parse(upload: UploadRef, data: bytes, options: RunOptions, max_upload_mb: int) -> Recording:
    """The recording's bytes (as staged) -> a Recording; a bad file is a RecordingError."""
    return import_bytes(data, upload.source_name, options.requested_mode, max_upload_mb)


@task(name="rules", **_PLAIN)
def rules(recording: Recording, options: RunOptions) -> Findings:
    evidence = build_evidence(recording)
    return Findings(evidence=evidence, flags=run_rules(recording, evidence, options.rule_profile))


@task(name="analyze-offline", **_PLAIN)
def analyze(recording: Recording, findings: Findings) -> PackageDraft:
    return analyze_offline(recording, findings.evidence, findings.flags)


@task(name="build-package", **_PLAIN)
def build(recording: Recording, findings: Findings, draft: PackageDraft, options: RunOptions) -> TaskPackage:
    package = build_package(
        recording,
        findings.evidence,
        draft,
        rule_profile=options.rule_profile,
        pass_policy=options.pass_policy,
        flags=findings.flags,
    )
    check = self_check(package, recording)
    return package.model_copy(update={"validation": package.validation.model_copy(update={"self_check": check})})


@task(name="judge-validator", **_PLAIN)
def judge(recording: Recording, findings: Findings, package: TaskPackage, options: RunOptions) -> JudgeResult:
    return validate(
        package,
        recording,
        evidence=findings.evidence,
        flags=findings.flags,
        check=package.validation.self_check,
        policy=options.pass_policy,
    )


def finalize_offline(package: TaskPackage, result: JudgeResult) -> TaskPackage:
    """The offline package with its single judged iteration recorded in `validation`."""
    validation = package.validation.model_copy(
        update={
            "judge": [JudgeIteration(iteration=1, result=result)],
            "iterations_used": 1,
            "verdict": result.verdict,
        }
    )
    return package.model_copy(update={"validation": validation})


def slim_view(recording: Recording, findings: Findings) -> dict[str, object]:
    return {
        "slim": slim_evidence(recording, findings.evidence),
        "flags": [f.model_dump(mode="json") for f in findings.flags],
    }


@task(name="export", task_run_name="export-{upload.source_name}", **STORAGE_WRITE)
def export(
    upload: UploadRef,
    recording: Recording,
    package: TaskPackage,
    options: RunOptions,
    storage_url: str,
    best: dict[str, str],
    passed: bool,
    message: str,
) -> str | None:
    """The item's final files: the best iteration's snapshots copied to `best/`, then
    `output.zip` (the recording as uploaded, task.json rewritten; formats.md section 2) when it
    passed, else `error.txt` with why. Returns the output.zip path, or None."""
    storage = get_storage(storage_url)
    for source, target in best.items():
        storage.write_bytes(target, storage.read_bytes(source))
    job, item = upload.job_id, upload.item_id
    if not passed:
        storage.write_bytes(layout.error_path(job, item), f"{message}\n".encode())
        return None
    with tempfile.TemporaryDirectory(prefix="rlauto-export-") as tmp:
        source = Path(tmp) / "in" / (Path(upload.source_name).name or "recording.zip")
        source.parent.mkdir()
        source.write_bytes(storage.read_bytes(upload.upload_path))
        written = export_package(
            source,
            package,
            Path(tmp) / "out",
            root_prefix=recording.root_prefix,
            redact_secrets=options.redact_secrets,
        )
        path = layout.output_zip_path(job, item)
        storage.write_bytes(path, written.read_bytes())  # atomic: never a partial output.zip
        return path
