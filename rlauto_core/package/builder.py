"""The builder: a draft (offline analyzer's or a model's) plus the recording become a TaskPackage."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from rlauto_core import __version__
from rlauto_core.checkers.dsl import check_catalog
from rlauto_core.evidence.models import Evidence
from rlauto_core.package.calls import api_call
from rlauto_core.package.draft import PackageDraft
from rlauto_core.package.golden import golden_steps
from rlauto_core.package.judgement import PassPolicy
from rlauto_core.package.models import (
    DbDiffCriteria,
    GeneratorInfo,
    GoldenStep,
    JudgePolicy,
    NetworkSummary,
    PackageMetadata,
    PackagePassPolicy,
    PackageTask,
    PackageValidation,
    Rubric,
    Subtask,
    TaskPackage,
)
from rlauto_core.package.normalize import normalize_draft
from rlauto_core.recording import Call, HttpCall, Mode, Recording
from rlauto_core.redact import redact_json
from rlauto_core.rules.flags import Flag
from rlauto_core.rules.profiles import DEFAULT_PROFILE

# task.json keys the builder writes; any other top-level key of the recorded task.json is kept.
_OWN_KEYS = frozenset(
    {
        "metadata",
        "task",
        "rule_profile",
        "rubric_checkers",
        "value_roles",
        "dbdiff_criteria",
        "pass_policy",
        "golden_trajectory",
        "network",
        "validation",
    }
)


def pass_policy_of(policy: PassPolicy) -> PackagePassPolicy:
    return PackagePassPolicy(
        judge=JudgePolicy(
            name=policy.name,
            strict_full_marks=policy.strict_full_marks,
            ignore_task_complexity_for_full_marks=policy.ignore_task_complexity_for_full_marks,
            rule=policy.describe(),
        )
    )


def build_package(
    recording: Recording,
    evidence: Evidence,
    draft: PackageDraft,
    *,
    rule_profile: str = DEFAULT_PROFILE,
    pass_policy: PassPolicy | None = None,
    flags: list[Flag] | None = None,
    generated_at: datetime | None = None,
) -> TaskPackage:
    """Assemble the package; checker problems of the draft become flags, never exceptions. Whoever wrote
    the checkers, they are normalised to the value model first (normalize.py)."""
    draft, value_roles, changes = normalize_draft(draft, recording, evidence)
    normalised = [Flag(code="checker_normalised", message=change, severity="info") for change in changes]
    steps = golden_steps(recording, evidence, draft.golden_call_ids)
    index = {c.id: n for n, c in enumerate(recording.calls)}
    by_id = {c.id: c for c in recording.calls}
    group_mode = "mcp" if recording.mode is Mode.MCP else "api"
    subtasks: list[Subtask] = []
    for number, group in enumerate(draft.groups, start=1):
        calls = [api_call(by_id[cid], index[cid]) for cid in group.call_ids if cid in by_id]
        subtasks.append(
            Subtask(
                id=f"s{number}", title=group.title, description=group.description, groupMode=group_mode, apiCalls=calls
            )
        )
    _add_landing_pages(subtasks, steps, by_id, index)
    checkers: dict[str, Any] = dict(draft.extra_checkers)
    rubrics: list[Rubric] = []
    for number, item in enumerate(draft.rubrics, start=1):
        if item.checker is not None:
            checkers[item.checker_key] = item.checker
        rubrics.append(
            Rubric(
                id=f"r{number}",
                title=item.title,
                description=item.description,
                max_score=item.max_score,
                checker_key=item.checker_key,
            )
        )
    raw_task = recording.task_json.get("task")
    task_extra = (
        {
            k: v
            for k, v in raw_task.items()
            if k not in {"instruction", "instructionSource", "networkRequests", "subtasks", "rubrics"}
        }
        if isinstance(raw_task, dict)
        else {}
    )
    kept = redact_json(task_extra)
    task = PackageTask.model_validate(
        {
            **kept,
            "instruction": draft.instruction,
            "instructionSource": instruction_source(recording, draft),
            "answer": redact_json(draft.answer) if draft.answer is not None else kept.get("answer"),
            "networkRequests": [s.call_id for s in steps],
            "subtasks": subtasks,
            "rubrics": rubrics,
        }
    )
    dsl_flags = check_catalog(checkers, [(r.id, r.checker_key) for r in rubrics])
    extras = {k: redact_json(v) for k, v in recording.task_json.items() if k not in _OWN_KEYS}
    return TaskPackage(
        metadata=_metadata(recording, generated_at),
        task=task,
        rule_profile=rule_profile,
        rubric_checkers=checkers,
        value_roles=value_roles,
        dbdiff_criteria=DbDiffCriteria(
            criteria=draft.dbdiff_criteria,
            golden_diff=redact_json(recording.dbdiff.model_dump(mode="json")) if recording.dbdiff else None,
        ),
        pass_policy=pass_policy_of(pass_policy or PassPolicy()),
        golden_trajectory=steps,
        network=network_summary(recording, evidence, draft),
        validation=PackageValidation(flags=[*(flags or []), *dsl_flags, *normalised]),
        **extras,
    )


def _add_landing_pages(
    subtasks: list[Subtask], steps: list[GoldenStep], by_id: dict[str, Call], index: dict[str, int]
) -> None:
    """A trajectory step no subtask holds (the page a write's redirect led to, which golden_steps
    adds to a draft's own choice) joins the subtask of the write it follows, so the package alone
    can replay its golden trajectory."""
    held = {c.id for st in subtasks for c in st.api_calls}
    for step in steps:
        if step.call_id in held or step.call_id not in by_id or not step.depends_on:
            continue
        home = next((st for st in subtasks if any(c.id == step.depends_on[-1] for c in st.api_calls)), None)
        if home is not None:
            home.api_calls.append(api_call(by_id[step.call_id], index[step.call_id]))
            home.api_calls.sort(key=lambda c: index.get(c.id, 0))
            held.add(step.call_id)


def instruction_source(recording: Recording, draft: PackageDraft) -> str | None:
    """The draft's own word; else the recorded text kept as is is "recorded", any other text the model's
    (the offline analyzer always says which it wrote)."""
    if draft.instruction_source is not None:
        return draft.instruction_source
    text = draft.instruction.strip()
    if not text:
        return None
    return "recorded" if text == recording.task.instruction.strip() else "model"


def _metadata(recording: Recording, generated_at: datetime | None) -> PackageMetadata:
    raw = recording.task_json.get("metadata")
    recorded = redact_json(raw) if isinstance(raw, dict) else {}
    recorded = {k: v for k, v in recorded.items() if k not in {"generator", "generatedAt", "sourceSha256"}}
    when = (generated_at or datetime.now(UTC)).isoformat().replace("+00:00", "Z")
    return PackageMetadata.model_validate(
        {
            **recorded,
            "generator": GeneratorInfo(version=__version__),
            "generatedAt": when,
            "sourceSha256": recording.source_sha256,
        }
    )


def network_summary(recording: Recording, evidence: Evidence, draft: PackageDraft) -> NetworkSummary:
    calls = recording.calls
    times = sorted(c.started_at for c in calls if c.started_at is not None)
    hosts = sorted({c.host for c in calls if isinstance(c, HttpCall) and c.host})
    servers = sorted({c.server for c in recording.tool_calls if c.server})
    return NetworkSummary(
        mode="mcp" if recording.mode is Mode.MCP else "api",
        calls=len(calls),
        significant=len(evidence.significant),
        state_changing=len(evidence.state_changing),
        failed=sum(1 for c in evidence.calls if c.failed),
        hosts=hosts,
        servers=servers,
        started_at=times[0].isoformat() if times else None,
        ended_at=times[-1].isoformat() if times else None,
        span_seconds=(times[-1] - times[0]).total_seconds() if len(times) > 1 else None,
        main_entity=evidence.main_entity,
        noise_removed=evidence.noise_removed,
        filtered=draft.filtered,
        dbdiff_rows=recording.dbdiff.row_count() if recording.dbdiff else 0,
    )
