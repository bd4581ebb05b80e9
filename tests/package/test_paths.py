"""Issue 20 on its own corpus (tests/package/paths): the classes of cause, one test each.

The good and wrong attempts of every app are scored by tests/package/test_targets.py (corpus
`paths`); these tests look at what each class is about: where the agent learned an id, a lock
version, the cascade from a create's rubric, redaction of `key` fields, the main entity."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli.app import app
from rlauto_core.checkers import score
from rlauto_core.config.options import RunOptions
from rlauto_core.importers import import_path
from rlauto_core.package.models import TaskPackage
from tests.package.corpora import ROOT
from tests.package.offline import Packaged, package_offline
from tests.package.paths.jira_keys import CI_KEY

PATHS = ROOT / "tests" / "package" / "paths"
runner = CliRunner()


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Packaged]:
    out = tmp_path_factory.mktemp("paths")
    return {p.stem: package_offline(p, RunOptions(), out) for p in sorted((PATHS / "recordings").glob("*.zip"))}


def attempt(app_name: str, kind: str) -> Path:
    return PATHS / "attempts" / app_name / f"{kind}.zip"


def package_of(packaged: dict[str, Packaged], name: str) -> TaskPackage:
    package = packaged[name].package
    assert package is not None and packaged[name].passed, packaged[name].error
    return package


@pytest.mark.parametrize(
    ("name", "good"),
    [
        ("cart_lock", ["good", "good_returning", "good_read_first"]),
        ("wiki_space", ["good", "good_returning", "good_reads_back"]),
        ("etag_form", ["good", "good_no_read", "good_after_412"]),
        ("jira_keys", ["good", "good_returning", "good_assign_first"]),
        ("checkout_mcp", ["good", "good_returning", "good_cart_first"]),
    ],
)
def test_good_attempts_by_other_paths_score_full_marks_and_wrong_ones_fail(
    packaged: dict[str, Packaged], name: str, good: list[str]
) -> None:
    package = package_of(packaged, name)
    for kind in good:
        report = score(package, import_path(attempt(name, kind)))
        assert report.passed and report.score == report.max_score, (kind, [r for r in report.rubrics if not r.passed])
    wrong = [p.stem for p in (PATHS / "attempts" / name).glob("*.zip") if not p.stem.startswith("good")]
    assert {"empty", "missing_write", "wrong_entity", "wrong_content"} <= set(wrong)
    for kind in wrong:
        report = score(package, import_path(attempt(name, kind)))
        assert not report.passed and report.score < report.max_score, kind


def test_an_id_is_not_asked_where_it_was_learned(packaged: dict[str, Packaged]) -> None:
    """The space id is compared by value (a returning agent reads nothing); the page id and the cart
    are bound to the attempt's own answers, never to one recorded read."""
    wiki = package_of(packaged, "wiki_space")
    create = wiki.rubric_checkers["call_r2"]
    assert create["request"]["spaceId"] == "98304"
    assert wiki.value_roles["call_r2"]["request.spaceId"].role == "stable"
    assert "shown by r1" in wiki.value_roles["call_r2"]["request.spaceId"].reason
    assert wiki.rubric_checkers["call_r3"]["path_params"]["pageId"] == {"created": "core_r2"}
    assert "same_as" not in json.dumps(wiki.rubric_checkers)
    cart = package_of(packaged, "cart_lock")
    assert cart.rubric_checkers["call_r4"]["request"]["cartId"] == {"created": "core_r3"}
    # the lock version travels in every cart write; a later run's versions start elsewhere
    assert "cartVersion" not in cart.rubric_checkers["call_r4"]["request"]
    assert cart.value_roles["call_r4"]["request.cartVersion"].role == "volatile"
    assert "cartVersion" not in cart.rubric_checkers["call_r6"]["request"]


def test_an_over_strict_create_fails_its_own_rubric_and_nothing_else(packaged: dict[str, Packaged]) -> None:
    """No cascade: the page's update, its label, its rows and the order still find the page the attempt
    created, by the create's essential features; only a missing create fails them."""
    package = package_of(packaged, "wiki_space").model_copy(deep=True)
    create = next(r for r in package.task.rubrics if r.checker_key == "call_r2")
    package.rubric_checkers["call_r2"]["request"]["body.value"] = "<p>Draft v2</p>"  # what no attempt sends
    report = score(package, import_path(attempt("wiki_space", "good")))
    assert [r.id for r in report.rubrics if not r.passed] == [create.id]
    assert report.score == report.max_score - create.max_score
    # the same package on an attempt that never creates the page: its dependents fail too
    golden = import_path(PATHS / "recordings" / "wiki_space.zip")
    without = golden.model_copy(update={"http_calls": [c for c in golden.http_calls if c.id != "r2"]})
    failed = {r.id for r in score(package, without).rubrics if not r.passed}
    dependents = {r.id for r in package.task.rubrics if r.checker_key in ("call_r3", "call_r4")}
    assert dependents <= failed


def test_key_fields_keep_data_and_lose_credentials(packaged: dict[str, Packaged], tmp_path: Path) -> None:
    outcome = packaged["jira_keys"]
    package = package_of(packaged, "jira_keys")
    assert outcome.package_path is not None
    with zipfile.ZipFile(outcome.package_path) as archive:
        text = archive.read("task.json").decode("utf-8")
    assert CI_KEY not in text and "ZGFuYUBhY21l" not in text  # the CI key, the Basic credentials
    calls = {c.id: c for s in package.task.subtasks for c in s.api_calls}
    assert calls["r2"].output["body"]["values"][0]["key"] == "ENG"  # the project's key: data
    assert calls["r4"].output["body"]["key"] == "ENG-42"
    assert package.rubric_checkers["call_r4"]["request"]["fields.project.key"] == "ENG"
    # the package alone replays its golden at full marks: the keys it compares survived redaction
    (tmp_path / "task.json").write_text(text)
    report = json.loads(runner.invoke(app, ["validate", str(tmp_path / "task.json"), "--json"]).stdout)
    assert report["golden_full_marks"] and report["variants_passed"] == report["variants_total"] > 0


@pytest.mark.parametrize("name", ["checkout_mcp", "cart_lock"])
def test_inspect_shows_the_cart_chosen_over_the_address_and_the_runner_up(name: str) -> None:
    result = runner.invoke(app, ["inspect", str(PATHS / "recordings" / f"{name}.zip"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    choice = report["main_entity_choice"]
    assert report["main_entity"]["key"] == "cartId" == choice["chosen"]["key"]
    assert choice["chosen"]["writes"] >= 2 and choice["runner_up"] is not None
    assert choice["runner_up"]["key"] != "addressId"
    parameters = {key for key, _ in choice["parameters"]}
    assert {"addressId", "paymentMethodId"} <= parameters
    text = runner.invoke(app, ["inspect", str(PATHS / "recordings" / f"{name}.zip")]).stdout
    assert "runner-up:" in text and "never the main entity" in text
