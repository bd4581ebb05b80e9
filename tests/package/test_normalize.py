"""Normalisation to the value roles: the offline analyzer's checkers are already normal (a second pass
changes nothing), and hostile or broken checkers a model writes never crash the builder: they end
as DSL flags, and a refused regex never runs against a recorded body."""

from __future__ import annotations

from typing import Any

from rlauto_core.analysis.offline import analyze_offline
from rlauto_core.evidence.build import build_evidence
from rlauto_core.importers import import_bytes, import_path
from rlauto_core.judging.selfcheck import self_check
from rlauto_core.package.builder import build_package
from rlauto_core.package.draft import DraftRubric
from rlauto_core.package.normalize import normalize_draft
from rlauto_core.recording import Recording
from tests.package.corpora import ROOT, cases
from tests.recording_builders import http, task_json, zip_bytes


def test_the_offline_draft_is_a_fixed_point() -> None:
    for case in cases("paths") + cases("tuned"):
        recording = import_path(case.recording)
        evidence = build_evidence(recording)
        draft = analyze_offline(recording, evidence)
        again, roles, changes = normalize_draft(draft, recording, evidence)
        assert again == draft and changes == [], case.name
        assert roles and all(r.reason for field in roles.values() for r in field.values())


def _recording() -> Recording:
    body = {"title": "a" * 150_000 + "!", "version": 3, "password": "hunter2-CANARY-pw"}
    calls = [
        http("r1", "GET", "https://app.example.com/api/boards/b_12", 200, None, {"id": "b_12", "version": 3}),
        http("r2", "POST", "https://app.example.com/api/boards/b_12/cards", 201, body, {"id": "card_9"}),
    ]
    data = zip_bytes({"task.json": task_json("Add the card to board b_12."), "network.json": {"requests": calls}})
    return import_bytes(data, "hostile.zip")


HOSTILE: dict[str, Any] = {
    "not_an_object": ["http_call"],
    "no_kind": {"method": "POST"},
    "request_is_a_list": {"kind": "http_call", "method": "POST", "request": ["title"]},
    "template_is_a_number": {"kind": "http_call", "method": "POST", "path_template": 7, "path_params": {"x": 1}},
    # refused by the DSL: it would backtrack for ever on the 150 000 characters of the recorded title
    "catastrophic": {"kind": "http_call", "method": "POST", "request": {"title": {"regex": "^(a+)+$"}}},
    "ghost_refs": {"kind": "http_call", "method": "POST", "path": "/api/boards/b_12/cards",
                   "request": {"version": {"same_as": {"checker": "ghost", "field": "response.version"}},
                               "title": {"created": "nobody"}, "password": "hunter2-CANARY-pw"}},
    "deep": {"kind": "order", "before": {"kind": "http_call", "request": {"a": {"not": {"not": {"not": {"not": {
        "not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {"not": {
            "not": "x"}}}}}}}}}}}}}}}}}}}}, "after": "catastrophic"},
}  # fmt: skip


def test_hostile_model_checkers_end_as_flags_not_crashes() -> None:
    recording = _recording()
    evidence = build_evidence(recording)
    offline = analyze_offline(recording, evidence)
    rubrics = [
        DraftRubric(title=key, checker_key=key, checker=checker if isinstance(checker, dict) else None)
        for key, checker in HOSTILE.items()
    ]
    draft = offline.model_copy(update={"rubrics": [*offline.rubrics, *rubrics]})
    # were the refused regex run against the 150 000 characters, this would never return (the
    # suite's timeout fails it)
    package = build_package(recording, evidence, draft)
    flagged = " ".join(f.message for f in package.validation.flags if f.code.startswith("dsl_"))
    for key in ("no_kind", "request_is_a_list", "template_is_a_number", "catastrophic"):
        assert f'"{key}"' in flagged, key
    assert "nested quantifiers" in flagged and "nested deeper than 16" in flagged
    # references to nothing, on values the golden shows, became what the values' roles ask for:
    # the lock version is not compared, the title (content) is compared as recorded
    ghost = package.rubric_checkers["ghost_refs"]
    assert ghost["request"] == {"title": "a" * 150_000 + "!"} and '"ghost_refs"' not in flagged
    normalised = [f.message for f in package.validation.flags if f.code == "checker_normalised"]
    assert any(m.startswith('checker "ghost_refs" request.version: not compared, volatile (lock') for m in normalised)
    # a credential a model pinned is never compared, so it never reaches the package's checkers
    assert "hunter2-CANARY-pw" not in package.model_dump_json()
    assert package.value_roles["ghost_refs"]["request.password"].reason.startswith("a credential")
    check = self_check(package, recording)
    assert check.problems and check.problems[0].startswith("checker DSL")


def test_the_examples_keep_their_roles_in_the_exported_package() -> None:
    recording = import_path(ROOT / "examples" / "recordings" / "issue_tracker.zip")
    evidence = build_evidence(recording)
    package = build_package(recording, evidence, analyze_offline(recording, evidence))
    roles = package.value_roles["call_r17"]
    assert roles["path_params.issueId"].role == "created" and "r12" in roles["path_params.issueId"].reason
    assert roles["path_params.projectId"].role == "stable" and roles["request.labelIds"].role == "stable"
    assert package.rubric_checkers["core_r12"]["description"].startswith("r12 by its essential features")
