"""Rewards no wrong attempt can game (issue 28), on small recordings of our own: each class at the
unit level (the corpora in tests/package/rewards* measure them on whole apps)."""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.checkers import score
from rlauto_core.importers import import_bytes
from rlauto_core.judging.selfcheck import cli_dict, self_check
from rlauto_core.judging.validator import validate
from rlauto_core.package.judgement import Dimension
from rlauto_core.package.models import TaskPackage
from rlauto_core.recording import Recording
from tests.package.helpers import package_from
from tests.recording_builders import api_recording, http, task_json, zip_bytes

API = "https://vault.example/api"
KEYS = [{"id": "k_101", "name": "CI runner", "active": True}, {"id": "k_102", "name": "Backup job", "active": True}]


def keys_run(old: str = "k_101", new: str = "k_207", *, revoke: bool = True, instruction: str | None = None) -> bytes:
    calls = [
        http("r1", "GET", f"{API}/keys", response={"keys": KEYS}),
        http("r2", "POST", f"{API}/keys", 201, {"name": "CI runner 2026"}, {"id": new, "name": "CI runner 2026"}),
    ]
    if revoke:
        calls.append(http("r3", "DELETE", f"{API}/keys/{old}", 200, None, {"id": old, "revoked": True}))
    rows: dict[str, Any] = {"inserted": [{"id": new, "name": "CI runner 2026"}]}
    if revoke:
        rows["deleted"] = [{"id": old, "name": next(k["name"] for k in KEYS if k["id"] == old)}]
    text = instruction or "Create the deploy key 'CI runner 2026', then revoke the old 'CI runner' key."
    return api_recording(calls, text, **{"dbdiff.json": {"tables": {"api_keys": rows}}})


def imported(data: bytes, name: str = "r.zip") -> Recording:
    return import_bytes(data, name)


def packaged(data: bytes) -> tuple[TaskPackage, Recording]:
    recording = imported(data)
    return package_from(recording), recording


def test_a_sibling_the_instruction_names_is_required_and_wrong_ones_lose() -> None:
    """The new key is the main entity; the old one, named in the instruction by what the listing
    calls it, is no stray: its revoke is required, a missing or misaimed revoke fails."""
    package, recording = packaged(keys_run())
    check = package.validation.self_check
    assert check is not None
    assert "r3" in [s.call_id for s in package.golden_trajectory]
    assert {w.call_id for w in check.writes_covered} == {"r2", "r3"} and check.writes_excluded == []
    assert score(package, imported(keys_run(new="k_300"))).passed  # redone later: another new id
    assert not score(package, imported(keys_run(revoke=False))).passed
    assert not score(package, imported(keys_run(old="k_102"))).passed
    assert check.recording_mutants and all(m.caught for m in check.recording_mutants)
    assert validate(package, recording).verdict == "PASS"


def test_a_sibling_nobody_names_stays_a_stray_by_rule() -> None:
    package, _ = packaged(keys_run(instruction="Create the deploy key 'CI runner 2026'."))
    check = package.validation.self_check
    assert check is not None
    assert [(w.call_id, w.rule) for w in check.writes_excluded] == [("r3", "stray")]
    assert not check.unruled_exclusions
    # the stray's route is forbidden however it was sent: a delete no golden write makes
    strays = package.rubric_checkers["no_stray_writes"]["match"]
    assert any(m.get("method") == "DELETE" for m in (strays if isinstance(strays, list) else [strays]))
    only_create = keys_run(revoke=False, instruction="Create the deploy key 'CI runner 2026'.")
    assert score(package, imported(only_create)).passed
    report = score(package, imported(keys_run(old="k_102", instruction="Create the deploy key 'CI runner 2026'.")))
    assert [r.id for r in report.rubrics if not r.passed] == [
        next(r.id for r in package.task.rubrics if r.checker_key == "no_stray_writes")
    ]


def test_a_write_left_out_with_no_rule_is_never_pass() -> None:
    """A draft (a model's) that drops a write's rubric and its golden step: three writes recorded,
    two checked; the package says which and is NEEDS_REVISION."""
    package, recording = packaged(keys_run())
    package.task.rubrics = [r for r in package.task.rubrics if "r3" not in (r.checker_key or "")]
    package.golden_trajectory = [s for s in package.golden_trajectory if s.call_id != "r3"]
    check = self_check(package, recording)
    assert [(w.call_id, w.rule) for w in check.unruled_exclusions] == [("r3", None)]
    assert any("r3 (DELETE /api/keys/k_101) is left out with no rule" in p for p in check.problems)
    result = validate(package, recording, check=check)
    coverage = next(s for s in result.scores if s.dimension is Dimension.RUBRIC_COVERAGE)
    assert coverage.score == 0 and result.verdict == "NEEDS_REVISION"
    report = cli_dict(check)
    assert report["writes_excluded"][0]["call_id"] == "r3" and report["writes_excluded"][0]["rule"] is None


def test_a_loose_checker_is_caught_by_a_recording_mutant() -> None:
    """A checker that does not pin which key is revoked keeps full marks when the revoke hits another
    key the recording shows: the mutant drawn from the recording names it."""
    package, recording = packaged(keys_run())
    key = next(r.checker_key for r in package.task.rubrics if (r.checker_key or "").endswith("r3"))
    assert key is not None
    package.rubric_checkers[key] = {"kind": "http_call", "method": "DELETE", "path_template": "/api/keys/{keyId}"}
    package.rubric_checkers.pop("no_stray_writes", None)
    package.task.rubrics = [r for r in package.task.rubrics if r.checker_key != "no_stray_writes"]
    check = self_check(package, recording)
    missed = check.missed_recording_mutants
    # aimed at the other key, or refused by the server: the loose checker cannot tell either from the task
    assert [m.kind for m in missed] == ["retarget", "protocol_error"] and "k_102" in missed[0].description
    verifiability = next(
        s for s in validate(package, recording, check=check).scores if s.dimension is Dimension.CHECKER_VERIFIABILITY
    )
    assert verifiability.score == 0 and "recording mutant" in verifiability.explanation


SEARCH = "https://search.example/docs"


def doc_run(seq: int, term: int, title: str = "Rotated keys") -> bytes:
    """A document store's update guarded by a sequence number and a term sent as query parameters
    under names no word list holds (`at_seq`, `at_term`; Elasticsearch says `if_seq_no`, which the
    precondition names already cover): only what the values do gives them away."""
    calls = [
        http("r1", "GET", f"{SEARCH}/_doc/runbook-7", response={"_id": "runbook-7", "_seq_no": seq, "_primary_term": term,
                                                                 "_source": {"title": "Keys"}}),
        http("r2", "POST", f"{SEARCH}/_update/runbook-7?at_seq={seq}&at_term={term}", 200,
             {"doc": {"title": title}}, {"_id": "runbook-7", "result": "updated", "_seq_no": seq + 1, "_primary_term": term}),
    ]  # fmt: skip
    diff = {
        "tables": {
            "docs": {
                "updated": [
                    {"before": {"id": "runbook-7", "title": "Keys"}, "after": {"id": "runbook-7", "title": title}}
                ]
            }
        }
    }
    return api_recording(calls, f"Rename the runbook-7 document to '{title}'.", **{"dbdiff.json": diff})


def test_concurrency_values_under_unknown_names_are_learned_from_behaviour() -> None:
    package, recording = packaged(doc_run(4101, 3))
    roles = {f: r for fields in package.value_roles.values() for f, r in fields.items()}
    assert roles["query.at_seq"].role == "volatile" and "counter" in roles["query.at_seq"].reason
    assert roles["query.at_term"].role == "volatile" and "beside a counter" in roles["query.at_term"].reason
    assert score(package, imported(doc_run(9770, 8))).passed  # another cluster, other sequence numbers
    assert not score(package, imported(doc_run(9770, 8, "Keys v2"))).passed
    check = package.validation.self_check
    assert check is not None and [v.full_marks for v in check.behaviour_variants] == [True]
    assert validate(package, recording).verdict == "PASS"


def test_the_behaviour_variant_fails_a_checker_that_pins_a_counter() -> None:
    package, recording = packaged(doc_run(4101, 3))
    key = next(k for k, c in package.rubric_checkers.items() if k.startswith("call_") and c.get("method") == "POST")
    package.rubric_checkers[key].setdefault("query", {})["at_seq"] = "4101"
    check = self_check(package, recording)
    failing = check.failing_variant
    assert failing is not None and failing.kind == "behaviour_changed"
    assert any("at_seq" in b.reason for b in failing.broken)


def test_clauses_no_rubric_checks_are_listed() -> None:
    package, recording = packaged(
        keys_run(instruction="Create the deploy key 'CI runner 2026' and label it 'prod-eu'.")
    )
    check = package.validation.self_check
    assert check is not None and check.ungrounded == ["prod-eu"]
    coverage = next(s for s in validate(package, recording).scores if s.dimension is Dimension.RUBRIC_COVERAGE)
    assert coverage.score < 2 and "'prod-eu'" in coverage.explanation


GQL = "https://tracker.example/graphql"
COMMENT = {"query": "mutation Add($id: ID!, $body: String!) { addComment(input: {subjectId: $id, body: $body}) { comment { id } } }",
           "operationName": "Add", "variables": {"id": "I_9", "body": "Fixed in 2.4"}}  # fmt: skip
SEEN = {"query": 'mutation { markNotificationsSeen(ids: ["N_1"]) { ok } }'}


def comment_run(answer: dict[str, Any], *, seen: bool = True, throttled_first: bool = False) -> bytes:
    calls = []
    if throttled_first:
        calls.append(
            http(
                "r0", "POST", GQL, 200, COMMENT, {"errors": [{"message": "rate limited"}], "data": {"addComment": None}}
            )
        )
    if seen:
        calls.append(http("r1", "POST", GQL, 200, SEEN, {"data": {"markNotificationsSeen": {"ok": True}}}))
    calls.append(http("r2", "POST", GQL, 200, COMMENT, answer))
    return zip_bytes(
        {
            "task.json": task_json("Comment 'Fixed in 2.4' on issue I_9."),
            "network.json": {"version": 1, "requests": calls},
        }
    )


OK = {"data": {"addComment": {"comment": {"id": "C_5"}}}}


def test_a_failure_inside_a_200_is_never_golden_and_never_scores() -> None:
    package, _ = packaged(comment_run(OK, throttled_first=True))
    check = package.validation.self_check
    assert check is not None
    assert [s.call_id for s in package.golden_trajectory] == ["r2"]
    excluded = {w.call_id: w.rule for w in check.writes_excluded}
    assert excluded == {"r0": "failed", "r1": "ui_state"}  # the seen marker is UI state, as /seen is in REST
    assert score(package, imported(comment_run(OK, seen=False))).passed
    failed = {"errors": [{"message": "rate limited"}], "data": {"addComment": None}}
    assert not score(package, imported(comment_run(failed))).passed
    checker = package.rubric_checkers["call_r2"]
    assert checker["operation"] == {"type": "mutation", "name": "addComment"} and checker["succeeds"] is True
    assert "query" not in checker.get("request", {}) and checker["request"]["variables.body"]["eq"] == "Fixed in 2.4"


def test_validate_json_has_the_same_keys_for_every_package() -> None:
    reports = [cli_dict(p.validation.self_check) for p, _ in (packaged(keys_run()), packaged(comment_run(OK)))]  # type: ignore[arg-type]
    keys = {"writes_covered", "writes_excluded", "recording_mutants_total", "recording_mutants_caught",
            "behaviour_variants_total", "behaviour_variants_passed", "ungrounded"}  # fmt: skip
    for report in reports:
        assert keys <= set(report)
        assert report["recording_mutants_total"] == report["recording_mutants_caught"] > 0
    assert json.dumps(reports)  # plain JSON


def test_a_checker_that_stops_comparing_what_the_instruction_states_is_caught() -> None:
    """The create's name is the instruction's 'CI runner 2026': a checker that forgets it passes a
    key named anything; the mutant that sends other stated values names it."""
    package, recording = packaged(keys_run())
    key = next(r.checker_key for r in package.task.rubrics if (r.checker_key or "").endswith("r2"))
    assert key is not None
    package.rubric_checkers[key].pop("request")
    check = self_check(package, recording)
    missed = check.missed_recording_mutants
    assert [m.kind for m in missed] == ["wrong_content"] and "'CI runner 2026'" in missed[0].description
    assert validate(package, recording, check=check).verdict == "NEEDS_REVISION"


def test_a_golden_mutant_that_loses_nothing_is_never_pass() -> None:
    """Without the no-stray-writes rubric, revoking a second key the task never named costs nothing:
    one golden mutant of four keeps full marks. That is a wrong attempt rewarded in full, so the
    package is NEEDS_REVISION and names the mutant (a 95 % bar let it PASS at 11/12)."""
    package, recording = packaged(keys_run())
    package.rubric_checkers.pop("no_stray_writes", None)
    package.task.rubrics = [r for r in package.task.rubrics if r.checker_key != "no_stray_writes"]
    check = self_check(package, recording)
    kept = [m for m in check.mutants if not m.caught]
    assert [m.kind for m in kept] == ["stray"] and all(m.caught for m in check.recording_mutants)
    result = validate(package, recording, check=check)
    verifiability = next(s for s in result.scores if s.dimension is Dimension.CHECKER_VERIFIABILITY)
    assert verifiability.score == 0 and f"mutant {kept[0].id} (add a stray DELETE" in verifiability.explanation
    assert result.verdict == "NEEDS_REVISION"


STOCK = "https://stock.example/api"


def stock_run(first: int, second: int | None, expected: int = 24) -> bytes:
    """Read the count, set it with the count as a precondition; refused as stale when `second` is
    given (the count moved), then read again and set with the new count."""
    calls = [
        http(
            "r1", "GET", f"{STOCK}/items/sku-7", response={"sku": "sku-7", "levels": [{"site": "ber", "onHand": first}]}
        )
    ]
    if second is not None:
        calls += [
            http(
                "r2",
                "POST",
                f"{STOCK}/items/sku-7/set",
                409,
                {"site": "ber", "quantity": expected, "expected": first},
                {"error": "stale", "message": "expected no longer matches"},
            ),
            http(
                "r3",
                "GET",
                f"{STOCK}/items/sku-7",
                response={"sku": "sku-7", "levels": [{"site": "ber", "onHand": second}]},
            ),
        ]
    last = second if second is not None else first
    calls.append(http("r4", "POST", f"{STOCK}/items/sku-7/set", 200, {"site": "ber", "quantity": expected, "expected": last},
                      {"sku": "sku-7", "levels": [{"site": "ber", "onHand": expected}]}))  # fmt: skip
    return api_recording(calls, "Set the on-hand stock of sku-7 at the Berlin site to 24.")


def test_a_value_a_refused_write_retries_with_what_a_reread_answered_is_a_precondition() -> None:
    """The count sent as `expected` is refused as stale, read again and sent anew: it is the
    server's, not the task's. A later run reading another count keeps full marks; setting the
    wrong quantity still fails."""
    package, _ = packaged(stock_run(31, 30))
    later = score(package, imported(stock_run(28, None), "later.zip"))
    assert later.passed and later.score == later.max_score, [r.reason for r in later.rubrics if not r.passed]
    wrong = score(package, imported(stock_run(28, None, expected=25), "wrong.zip"))
    assert not wrong.passed


def test_a_checker_comparing_a_redacted_secret_loses_that_comparison_only() -> None:
    """After the package's redaction a checker may hold "[REDACTED]" where it compared a secret: no
    attempt sends that, the golden included. The comparison goes; the rest of the checker stays."""
    from rlauto_core.package.secret_checks import without_secret_comparisons

    package, recording = packaged(keys_run())
    key = next(r.checker_key for r in package.task.rubrics if (r.checker_key or "").endswith("r2"))
    assert key is not None
    checker = package.rubric_checkers[key]
    checker["request"] = {**checker.get("request", {}), "token": "[REDACTED]",
                          "tags": {"contains": ["ci", "[REDACTED]"]}, "owner": {"in": ["[REDACTED]", "ana"]}}  # fmt: skip
    assert not score(package, recording).passed  # as redacted, no attempt could pass it
    cleaned = without_secret_comparisons(package).rubric_checkers[key]
    assert "token" not in cleaned["request"] and "owner" not in cleaned["request"]
    assert (
        cleaned["request"]["tags"] == {"contains": ["ci"]} and cleaned["request"]["name"] == checker["request"]["name"]
    )
    assert without_secret_comparisons(package) is not package
    untouched, _ = packaged(keys_run())
    assert without_secret_comparisons(untouched) is untouched
