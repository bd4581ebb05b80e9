"""The model path learns the value roles: its prompts state them, and the checkers a model writes are
normalised to them before the self-check, so a model cannot bring back a pinned lock version, a
pinned token or a provenance from one recorded read. Real loop, fake model server."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr

from rlauto_core.checkers import score
from rlauto_core.config.options import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.llm import EndpointConfig, HttpModelClient, ModelClients, RetryPolicy, Role
from rlauto_core.pipeline import analysis_for, run_item
from rlauto_core.prompts import PROMPT_VERSION
from rlauto_core.recording import Recording
from tests.fakes.llm_requests import RecordedRequest, analyzer_answer, draft_in
from tests.fakes.llm_scripts import judge_answer
from tests.fakes.llm_server import FakeLlmServer
from tests.package.corpora import ROOT

SHOP = ROOT / "tests" / "package" / "tuned"


@pytest.fixture
def clients(fake_llm: FakeLlmServer) -> Iterator[ModelClients]:
    made: dict[Role, HttpModelClient] = {}
    for role in (Role.ANALYZER, Role.JUDGE, Role.RUBRIC):
        config = EndpointConfig(role=role, base_url=fake_llm.base_url(), model=str(role),
                                api_key=SecretStr(f"sk-test-{role}-0001"), key_source=f"{role.upper()}_KEY")  # fmt: skip
        made[role] = HttpModelClient(config, retry=RetryPolicy(max_attempts=2, base_seconds=0.01))
    yield ModelClients(analyzer=made[Role.ANALYZER], judge=made[Role.JUDGE], rubric=made[Role.RUBRIC])
    for client in made.values():
        client.close()


def over_strict(request: RecordedRequest) -> dict[str, Any]:
    """A model that agrees with the draft but pins what a later run sends differently, ties the cart
    to one recorded read, and orders the full write checkers (what the issue's reviewers saw)."""
    draft = draft_in(request)
    answer = analyzer_answer(draft)
    drafted = {r["checker_key"]: r["checker"] for r in draft["rubrics"] if r.get("checker")}
    first, second, checkout = (copy.deepcopy(drafted[k]) for k in ("call_r7", "call_r9", "call_r11"))
    first["path_params"]["cartId"] = {"same_as": {"checker": "read_r4", "field": "response.id"}}
    second["request"].update({"version": 6, "csrf": "c5Rf8Kq2Wm"})
    checkout["request"]["version"] = {"same_as": {"checker": "call_r9", "field": "response.cart.version"}}
    checkout["request"]["expectedTotal"] = 4880
    answer["rubric_checkers"] = {
        "call_r7": first,
        "call_r9": second,
        "call_r11": checkout,
        "read_r4": {"kind": "http_call", "method": "GET", "path": "/api/cart", "status": {"lt": 400}},
        "order_add_then_checkout": {"kind": "order", "before": "call_r7", "after": "call_r11"},
    }
    answer["recommended_rubrics"].append(
        {"title": "The bags are added before the checkout", "max_score": 1, "checker_key": "order_add_then_checkout"}
    )
    return {"json": answer}


def run(recording: Recording, clients: ModelClients) -> Any:
    options = RunOptions()
    return run_item(recording, options, *analysis_for(clients, options), on_iteration=lambda _: {})


def test_model_checkers_are_normalised_to_the_value_roles(fake_llm: FakeLlmServer, clients: ModelClients) -> None:
    recording = import_path(SHOP / "recordings" / "shop_locks.zip")
    fake_llm.script("analyzer", over_strict)
    fake_llm.script("judge", judge_answer())
    finished = run(recording, clients)
    package = finished.package

    checkers = package.rubric_checkers
    # the lock version, the token and the server's total are not compared; the cart is the session's
    assert not {"version", "csrf", "expectedTotal"} & set(checkers["call_r9"]["request"])
    assert not {"version", "expectedTotal"} & set(checkers["call_r11"]["request"])
    assert checkers["call_r9"]["request"]["productId"] == "p_guate"  # what the model kept of the content
    assert checkers["call_r7"]["path_params"]["cartId"] == {"any": ["cart_5510", {"created": True}]}
    assert "read_r4" not in checkers  # nothing points at the read any more: it left the catalog
    assert checkers["order_add_then_checkout"] == {"kind": "order", "before": "core_r7", "after": "core_r11"}
    roles = package.value_roles["call_r9"]
    assert roles["request.version"].role == "volatile" and roles["request.csrf"].role == "volatile"
    assert roles["path_params.cartId"].role == "created" and roles["request.quantity"].role == "content"
    # what the builder changed is said, where a reviewer looks (the package's flags)
    changed = [f.message for f in package.validation.flags if f.code == "checker_normalised"]
    assert any(m.startswith('checker "call_r9" request.version: not compared, volatile (lock') for m in changed)
    assert any(m.startswith('checker "call_r11" request.expectedTotal: not compared, volatile (total') for m in changed)

    check = package.validation.self_check
    assert check is not None and check.golden_full_marks and check.problems == []
    assert check.variants_total >= 4 and check.variants_passed == check.variants_total
    assert {"volatile_changed", "ids_renamed", "stable_without_read"} <= {v.kind for v in check.variants}
    assert finished.outcome.passed and package.validation.model_extra["prompt_version"] == PROMPT_VERSION

    # and the package now scores a later run (other cart, versions, token, no failed retry) at full marks
    later = import_path(SHOP / "attempts" / "shop_locks" / "good.zip")
    report = score(package, later)
    assert report.score == report.max_score, [r for r in report.rubrics if not r.passed]
    assert not score(package, import_path(SHOP / "attempts" / "shop_locks" / "wrong_entity.zip")).passed


def test_the_prompts_state_the_value_roles(fake_llm: FakeLlmServer, clients: ModelClients) -> None:
    recording = import_path(SHOP / "recordings" / "shop_locks.zip")
    fake_llm.script("analyzer", over_strict)
    fake_llm.script("judge", judge_answer())
    run(recording, clients)
    analyzer = fake_llm.requests("analyzer")[0].prompt_text()
    assert "VALUE ROLES" in analyzer and "never compared" in analyzer and '{"created": true}' in analyzer
    judge = fake_llm.requests("judge")[0].prompt_text()
    assert "a good attempt by another valid path passes" in judge and "failing_variant" in judge
    assert '"value_roles"' in judge and "volatile:" in judge and "variants_passed" in judge
    # the judge sees the evidence the generator did not write: writes accounted for, unchecked clauses
    assert '"writes_covered"' in judge and '"writes_excluded"' in judge and '"ungrounded"' in judge
    assert "recording_mutants" in judge and "keep_their_points" in judge and "rule null means 0" in judge
    assert "mutants_keep_their_points" in judge and "any mutant" in judge
    assert PROMPT_VERSION == "rlauto-prompts-6"
