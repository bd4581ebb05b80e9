"""Offline honesty: no full clarity for an instruction we wrote ourselves; no package graded on noise;
a read-only recording becomes an answer task or a clear "nothing to check"."""

from __future__ import annotations

import json
from pathlib import Path

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.checkers import score
from rlauto_core.config.options import RunOptions
from rlauto_core.evidence.build import build_evidence
from rlauto_core.importers import import_bytes, import_path
from rlauto_core.judging.validator import NO_INSTRUCTION, validate
from rlauto_core.package.builder import build_package
from rlauto_core.package.io import package_to_json
from rlauto_core.package.judgement import Dimension
from tests.package.helpers import package_from
from tests.package.offline import Packaged, package_offline
from tests.recording_builders import http, task_json, zip_bytes

HERE = Path(__file__).resolve().parent
TUNED, HELDOUT = HERE / "tuned", HERE / "heldout"
SIDE_ONLY = "nothing to check: the recording changes no state (only side calls: ui_state 1), and "


def test_the_create_save_case_is_nothing_to_check(tmp_path: Path) -> None:
    """No instruction, rows read, the grid's column state saved: once a 12/12 PASS whose only rubric
    was 'POST /api/grid/save succeeds' under the instruction 'create save ...'."""
    outcome = package_offline(TUNED / "verdicts" / "grid_save_only.zip", RunOptions(), tmp_path)
    package, judge = outcome.package, outcome.judge
    assert package is not None and judge is not None
    assert (
        outcome.outcome.verdict == "NEEDS_REVISION" and outcome.outcome.status == "failed" and not outcome.package_path
    )
    assert package.task.rubrics == [] and package.rubric_checkers == {}
    assert "/api/grid/save" not in json.dumps(package.rubric_checkers)
    assert package.task.instruction_source == "offline" and "save" not in package.task.instruction
    assert judge.rationale.startswith(f"{NO_INSTRUCTION} (the offline analyzer wrote ")
    assert f"{SIDE_ONLY}no instruction says what to report." in judge.rationale
    assert judge.score_of(Dimension.INSTRUCTION_CLARITY) == 0 and judge.score_of(Dimension.RUBRIC_COVERAGE) == 0
    # the save is not hidden: counted, listed with its reason, flagged by the rules
    assert package.network.noise_removed == {"ui_state": 1}
    assert {f.call_id: f.reason for f in package.network.filtered}["r2"].startswith("side call (ui_state)")
    assert any(f.code == "no_state_change" and "r2" in f.call_ids for f in package.validation.flags)
    assert list(tmp_path.iterdir()) == []


def test_an_instruction_cannot_turn_a_side_call_into_the_task() -> None:
    data = zip_bytes(
        {
            "task.json": task_json("Mark order 4411 as shipped."),
            "network.json": {"version": 1, "requests": [
                http("r1", "GET", "https://ops.example.com/api/orders?status=packed", 200, None, {"rows": [{"id": 4411}]}),
                http("r2", "POST", "https://ops.example.com/api/grid/save", 200, {"grid": "orders"}, {"ok": True}),
            ]},
        }
    )  # fmt: skip
    recording = import_bytes(data, "r.zip")
    package = package_from(recording)
    result = validate(package, recording)
    assert package.task.rubrics == [] and result.verdict == "NEEDS_REVISION"
    assert f"{SIDE_ONLY}no read shows what the instruction asks for" in result.rationale
    assert result.score_of(Dimension.INSTRUCTION_CLARITY) == 2  # the annotator's, so not the problem


def test_other_recordings_with_nothing_to_check(tmp_path: Path) -> None:
    for path in (TUNED / "verdicts" / "lookup_without_instruction.zip", HELDOUT / "verdicts" / "browse_only.har"):
        outcome = package_offline(path, RunOptions(), tmp_path)
        assert outcome.package is not None and outcome.judge is not None, outcome.error
        assert outcome.outcome.verdict == "NEEDS_REVISION" and outcome.package.task.rubrics == []
        assert "nothing to check: the recording changes no state" in outcome.judge.rationale
    assert list(tmp_path.iterdir()) == []


def test_an_offline_instruction_never_gets_full_clarity(packaged: dict[str, Packaged]) -> None:
    recording = import_path(HERE.parents[1] / "examples" / "recordings" / "discord_reply.zip")
    package = packaged["discord_reply.zip"].package
    assert package is not None and package.task.instruction_source == "recorded"
    copy = package.model_copy(deep=True)
    for source, points in (("recorded", 2), ("model", 2), ("offline", 0)):
        copy.task.instruction_source = source  # type: ignore[assignment]
        result = validate(copy, recording, check=package.validation.self_check)
        clarity = next(s for s in result.scores if s.dimension is Dimension.INSTRUCTION_CLARITY)
        assert clarity.score == points, (source, clarity.explanation)
    assert clarity.explanation.startswith(NO_INSTRUCTION) and result.verdict == "NEEDS_REVISION"


def test_the_builder_records_who_wrote_the_instruction() -> None:
    recording = import_path(HERE.parents[1] / "examples" / "recordings" / "issue_tracker.zip")
    evidence = build_evidence(recording)
    draft = analyze_offline(recording, evidence)
    assert draft.instruction_source == "recorded"
    unsaid = draft.model_copy(update={"instruction_source": None})
    assert build_package(recording, evidence, unsaid).task.instruction_source == "recorded"
    rewritten = unsaid.model_copy(update={"instruction": "File the login-loop issue in web, label it, assign Rafael."})
    built = build_package(recording, evidence, rewritten)
    assert built.task.instruction_source == "model"
    assert package_to_json(built)["task"]["instructionSource"] == "model"


def test_a_read_only_recording_with_a_question_is_an_answer_task() -> None:
    recording = import_path(TUNED / "recordings" / "order_lookup.zip")
    package = package_from(recording)
    keys = [r.checker_key for r in package.task.rubrics]
    assert keys == ["lookup_r3", "answer_1", "answer_2"]
    assert package.task.answer == "in_transit; DHL Express"
    assert package.rubric_checkers["lookup_r3"]["path_params"] == {"orderId": "ORD-77120"}
    check = package.validation.self_check
    assert check is not None and check.golden_full_marks and check.problems == [] and check.empty_attempt_score == 0
    assert {m.kind for m in check.mutants} == {"drop", "retarget", "answer"} and all(m.caught for m in check.mutants)
    assert validate(package, recording, check=check).verdict == "PASS"
    attempts = TUNED / "attempts" / "order_lookup"
    verdicts = {kind: score(package, import_path(attempts / f"{kind}.zip")).passed for kind in
                ("good", "empty", "missing_write", "wrong_entity", "wrong_answer")}  # fmt: skip
    assert verdicts == {
        "good": True,
        "empty": False,
        "missing_write": False,
        "wrong_entity": False,
        "wrong_answer": False,
    }


def test_an_answer_recorded_by_the_annotator_decides_what_is_checked_and_is_redacted() -> None:
    canary = "Bearer CANARY-answer-7f3e0123456789"
    task = task_json("Where is order ORD-1 now?")  # names no field: the annotator's answer does
    task["task"]["answer"] = f"With DHL Express, arriving 2026-05-19 (checked with {canary})"
    data = zip_bytes({"task.json": task, "network.json": {"version": 1, "requests": [
        http("r1", "GET", "https://t.example.com/api/orders/ORD-1", 200, None,
             {"id": "ORD-1", "carrier": "DHL Express", "eta": "2026-05-19", "status": "in_transit", "hub": 12}),
    ]}})  # fmt: skip
    recording = import_bytes(data, "r.zip")
    package = package_from(recording)
    assert [r.title for r in package.task.rubrics] == [
        "GET /api/orders/ORD-1 on orderId ORD-1 succeeds",
        "The answer reports carrier 'DHL Express'",
        "The answer reports eta '2026-05-19'",
    ]
    text = json.dumps(package_to_json(package))
    assert "CANARY" not in text and "arriving 2026-05-19" in text  # kept as the golden answer, redacted
    check = package.validation.self_check
    assert check is not None and check.golden_full_marks and check.problems == []
