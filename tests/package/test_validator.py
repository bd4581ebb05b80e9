"""The deterministic validator: each dimension moves when the package gets worse in that respect."""

from __future__ import annotations

from rlauto_core.importers import import_path
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.judging.validator import validate
from rlauto_core.package.judgement import Dimension, PassPolicy
from rlauto_core.package.models import GoldenStep, TaskPackage
from tests.conftest import EXAMPLES
from tests.package.conftest import UNINSTRUCTED, Packaged


def fresh(packaged: dict[str, Packaged], name: str) -> TaskPackage:
    package = packaged[name].package
    assert package is not None
    copy = package.model_copy(deep=True)
    copy.validation.self_check = None
    return copy


def dims(package: TaskPackage, name: str) -> dict[Dimension, int]:
    result = validate(package, import_path(EXAMPLES / name))
    assert result.source == "validator" and all(s.explanation for s in result.scores)
    return {s.dimension: s.score for s in result.scores}


def test_examples_score_full_marks_with_explanations(packaged: dict[str, Packaged]) -> None:
    for name, outcome in packaged.items():
        assert outcome.judge is not None
        if name == UNINSTRUCTED:  # all but the instruction the offline analyzer had to write
            assert outcome.judge.total == 10 and outcome.judge.verdict == "NEEDS_REVISION"
        else:
            assert outcome.judge.total == 12 and outcome.judge.verdict == "PASS"


def test_instruction_clarity(packaged: dict[str, Packaged]) -> None:
    name = "issue_tracker.zip"
    package = fresh(packaged, name)
    package.task.instruction = ""
    assert dims(package, name)[Dimension.INSTRUCTION_CLARITY] == 0
    package.task.instruction = "Click the New button, then click Title, type it, click Save, then press the Labels menu"
    assert dims(package, name)[Dimension.INSTRUCTION_CLARITY] == 1


def test_task_complexity_counts_state_changes(packaged: dict[str, Packaged]) -> None:
    name = "issue_tracker.zip"
    package = fresh(packaged, name)
    assert dims(package, name)[Dimension.TASK_COMPLEXITY] == 2
    package.golden_trajectory = [s for s in package.golden_trajectory if s.call_id == "r12"]
    assert dims(package, name)[Dimension.TASK_COMPLEXITY] == 1


def test_alignment_rejects_noise_strays_and_failures(packaged: dict[str, Packaged]) -> None:
    name = "discord_reply.zip"
    package = fresh(packaged, name)
    extra = [GoldenStep(step=90, call_id=cid, name="x", type="mcp") for cid in ("c6", "c7")]
    package.golden_trajectory = package.golden_trajectory + extra
    result = validate(package, import_path(EXAMPLES / name))
    alignment = next(s for s in result.scores if s.dimension is Dimension.TRAJECTORY_TASK_ALIGNMENT)
    assert alignment.score < 2 and "c6 acts on another channelId" in alignment.explanation
    assert "c7 is noise" in alignment.explanation


def test_coverage_wants_a_rubric_per_write(packaged: dict[str, Packaged]) -> None:
    name = "shop_checkout.zip"
    package = fresh(packaged, name)
    package.task.rubrics = [r for r in package.task.rubrics if r.checker_key != "call_r16"]
    result = validate(package, import_path(EXAMPLES / name))
    coverage = next(s for s in result.scores if s.dimension is Dimension.RUBRIC_COVERAGE)
    # a recorded write no rubric checks and no rule leaves out: a wrong attempt skips it free (never PASS)
    assert coverage.score == 0 and "r16 (POST /api/orders): no rubric checks it" in coverage.explanation
    assert result.verdict == "NEEDS_REVISION"


def test_verifiability_follows_the_self_check(packaged: dict[str, Packaged]) -> None:
    name = "notes_jsonrpc.zip"
    package = fresh(packaged, name)
    key = package.task.rubrics[0].checker_key
    assert key is not None
    package.rubric_checkers[key] = {"kind": "mcp_call", "tool": "notes_create", "arguments": {"title": "other"}}
    check = self_check(package, import_path(EXAMPLES / name))
    assert not check.golden_full_marks and any("golden trajectory fails rubric r1" in p for p in check.problems)
    assert dims(package, name)[Dimension.CHECKER_VERIFIABILITY] == 0


def test_grounding_catches_values_the_recording_never_shows(packaged: dict[str, Packaged]) -> None:
    name = "slack_incident_channel.zip"
    package = fresh(packaged, name)
    package.task.instruction += " Also ping 'Zorblax Quintavius' about ticket INC-9999."
    result = validate(package, import_path(EXAMPLES / name))
    grounding = next(s for s in result.scores if s.dimension is Dimension.EVIDENCE_GROUNDING)
    assert grounding.score < 2 and "Zorblax Quintavius" in grounding.explanation


def test_pass_policy_decides_the_verdict(packaged: dict[str, Packaged]) -> None:
    name = "issue_tracker.zip"
    package = fresh(packaged, name)
    package.golden_trajectory = [s for s in package.golden_trajectory if s.call_id in ("r8", "r12")]
    recording = import_path(EXAMPLES / name)
    check = self_check(package, recording)
    policies = [
        PassPolicy(),
        PassPolicy(strict_full_marks=True),
        PassPolicy(strict_full_marks=True, ignore_task_complexity_for_full_marks=True),
    ]
    for policy in policies:
        result = validate(package, recording, check=check, policy=policy)
        assert result.verdict == ("PASS" if policy.satisfied(result) else "NEEDS_REVISION")
        assert f"under policy {policy.name}" in result.rationale
    complexity = validate(package, recording, check=check).score_of(Dimension.TASK_COMPLEXITY)
    assert complexity == 1  # one write and one read
    assert validate(package, recording, check=check, policy=policies[1]).verdict == "NEEDS_REVISION"


def test_a_chinese_instruction_naming_the_content_is_clear_and_grounded(packaged: dict[str, Packaged]) -> None:
    name = "slack_incident_channel.zip"
    package = fresh(packaged, name)
    package.task.instruction = "创建私有频道「incident-2291」，邀请 Dana 和 Lee，然后在频道里发布事故摘要。"
    scores = dims(package, name)
    assert scores[Dimension.INSTRUCTION_CLARITY] == 2
    assert scores[Dimension.EVIDENCE_GROUNDING] == 2
    package.task.instruction = "创建私有频道「incident-9999」，然后发布摘要。"
    assert dims(package, name)[Dimension.EVIDENCE_GROUNDING] < 2


def test_a_checker_pinning_a_server_made_id_fails_a_variant_and_cannot_pass(packaged: dict[str, Packaged]) -> None:
    name = "issue_tracker.zip"
    package = fresh(packaged, name)
    package.rubric_checkers["call_r17"]["path_params"]["issueId"] = "128"  # the number this run got
    recording = import_path(EXAMPLES / name)
    check = self_check(package, recording)
    assert check.golden_full_marks and check.redo_full_marks is False
    failing = check.failing_variant
    assert failing is not None and failing.kind == "ids_renamed"
    assert any(p.startswith(f"valid variant {failing.id} (every id the server created") for p in check.problems)
    result = validate(package, recording, check=check)
    verifiability = next(s for s in result.scores if s.dimension is Dimension.CHECKER_VERIFIABILITY)
    assert verifiability.score == 0 and "checkers fail a good attempt" in verifiability.explanation
    assert result.verdict == "NEEDS_REVISION"
