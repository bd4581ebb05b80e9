"""The form-app corpus (tests/forms/corpus, written by make_corpus.py): `rlauto inspect` finds each
app's state changes, the offline analyzer packages each one (golden full marks, empty attempt 0),
good attempts made another day pass and wrong ones fail: among them the same forms in another UI
language (helpdesk `good_german_ui`: only the submit buttons' labels differ) and another file of
the same name and size (documents `wrong_file`: only its sha256 differs).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from flows.cli import app
from rlauto_core.checkers import score
from rlauto_core.config import RunOptions
from rlauto_core.importers import import_path
from tests.forms.make_corpus import HERE, files
from tests.package.offline import Packaged, package_offline

RECORDINGS = HERE / "recordings"
ATTEMPTS = HERE / "attempts"
APPS = sorted(p.stem for p in RECORDINGS.glob("*.zip"))
GOOD = ("good", "good_after_error", "good_german_ui")
WRONG = ("wrong_option", "wrong_content", "wrong_file", "missing_write", "empty")

# what `rlauto inspect` must find: (write name, Location) per write, ids the writes created
# (value, call id, where), the main entity, and the CSRF field every write sends
EXPECTED = {
    "helpdesk": {
        "writes": [
            ("POST /tickets (ticket[subject], ticket[queue_id], ticket[priority], ...)", "/tickets/88123"),
            ("PATCH /tickets/88123 (ticket[assignee_id])", "/tickets/88123"),
            ("POST /tickets/88123/comments (comment[body], comment[internal])", "/tickets/88123#comment-99812"),
        ],
        "created": [("88123", "location.segments.1"), ("99812", "location.fragment_id")],
        "main": {"key": "ticketId", "value": "88123"},
        "csrf": "request.authenticity_token",
    },
    "admin_console": {
        "writes": [
            ("PUT /admin/users/42 (name, email, role)", None),  # the 422 re-render
            ("PUT /admin/users/42 (name, email, role)", "/admin/users/42/edit"),
            ("DELETE /admin/users/42/api-keys/5521", "/admin/users/42/edit"),
        ],
        "created": [],
        "main": {"key": "userId", "value": "42"},
        "csrf": "request._token",
    },
    "documents": {
        "writes": [
            (
                "POST /accounts/311/documents (document[title], document[visibility], document[file])",
                "/accounts/311/documents/7781",
            ),
            (
                "POST /accounts/311/documents/7781/shares (share[email], share[permission])",
                "/accounts/311/documents/7781#share-4410",
            ),
        ],
        "created": [("7781", "location.segments.3"), ("4410", "location.fragment_id")],
        "main": {"key": "accountId", "value": "311"},
        "csrf": "request.authenticity_token",
    },
    "django_crm": {
        "writes": [
            ("POST /crm/contacts/512/calls/add/ (outcome, notes, follow_up)", None),  # the 200 re-render
            ("POST /crm/contacts/512/calls/add/ (outcome, notes, follow_up)", "/crm/contacts/512/calls/9131/"),
            ("POST /crm/calls/9131/flag/ (reason)", "/crm/contacts/512/"),
        ],
        "created": [("9131", "location.segments.4")],
        "main": {"key": "contactId", "value": "512"},
        "csrf": "request.csrfmiddlewaretoken",
    },
    "laravel_board": {
        "writes": [
            ("POST /projects/7/cards (title, priority, column_id, ...)", "/projects/7/cards/create"),  # back()
            ("POST /projects/7/cards (title, priority, column_id, ...)", "/projects/7/cards/4410"),
            ("PATCH /projects/7/cards/4410 (column_id, position)", None),  # X-HTTP-Method-Override, 204
            ("DELETE /projects/7/cards/4410/labels/12", None),
        ],
        "created": [("4410", "location.segments.3")],
        "main": {"key": "projectId", "value": "7"},
        "csrf": "request._token",
        "csrf_writes": [0, 1, 3],  # the PATCH sends its token in the X-CSRF-TOKEN header
    },
    "webforms_expenses": {
        "writes": [
            (
                "POST /Claims/New.aspx (ctl00$MainContent$txtDescription, ctl00$MainContent$ddlCategory, "
                "ctl00$MainContent$txtAmount, ...)",
                "/Claims/Detail.aspx?id=20931",
            ),
            (  # the submit button the page showed (`btnSubmit`) names nothing
                "POST /Claims/Detail.aspx (ctl00$MainContent$ddlApprover)",
                "/Claims/Detail.aspx?id=20931&submitted=1",
            ),
        ],
        "created": [("20931", "location.query.id")],
        "main": None,
        "csrf": "request.__RequestVerificationToken",
    },
    "turbo_stock": {
        "writes": [
            ("POST /transfers (transfer[item_id], transfer[from_id], transfer[to_id], ...)", None),  # a stream
            ("POST /transfers/7710/approval", None),
        ],
        "created": [("7710", "html.data.data-transfer-id"), ("/transfers/7710/approval", "html.links")],
        "main": {"key": "transferId", "value": "7710"},
        "csrf": "request.authenticity_token",
    },
}
FAILURES = {
    "laravel_board": "redirected back to the form, which shows errors: The title field is required.",
    "admin_console": "the form came back with errors: The email field must be a valid email address.",
    "django_crm": "the form came back with errors: Enter a valid date.",
}


def test_corpus_files_are_what_the_script_writes() -> None:
    written = files()
    assert sorted(written) == sorted(p for p in HERE.rglob("*.zip"))
    for path, data in written.items():
        assert path.read_bytes() == data, path
    assert sorted(EXPECTED) == APPS
    assert len(APPS) == 7


@pytest.mark.parametrize("name", APPS)
def test_inspect_finds_the_form_writes_created_ids_main_entity_and_csrf(name: str) -> None:
    result = CliRunner().invoke(app, ["inspect", str(RECORDINGS / f"{name}.zip"), "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    expected = EXPECTED[name]
    assert [(w["name"], w.get("location")) for w in report["writes"]] == expected["writes"]
    assert report["state_changing"] == [w["id"] for w in report["writes"]]
    failed = [w for w in report["writes"] if w["failed"]]
    assert [w.get("failure") for w in failed] == ([FAILURES[name]] if name in FAILURES else [])
    ids = {w["id"] for w in report["writes"]}
    created = [(c["value"], c["field"]) for c in report["created"] if c["field"] != "location.fragment"]
    assert created == expected["created"]
    assert all(c["call_id"] in ids for c in report["created"])
    assert report["main_entity"] == expected["main"]
    csrf = {v["call_id"] for v in report["volatile"] if v["field"] == expected["csrf"] and v["kind"] == "csrf"}
    writes = [w["id"] for w in report["writes"]]
    assert csrf == {writes[n] for n in expected.get("csrf_writes", range(len(writes)))}


def test_webforms_page_state_is_volatile_and_never_pinned(packaged: dict[str, Packaged]) -> None:
    """`__VIEWSTATE` and `__EVENTVALIDATION` differ on every page view: volatile, never in a checker."""
    package = packaged["webforms_expenses"].package
    assert package is not None
    roles = [(field, role) for fields in package.value_roles.values() for field, role in fields.items()]
    state = [(f, r) for f, r in roles if f in ("request.__VIEWSTATE", "request.__EVENTVALIDATION")]
    assert state and all(r.role == "volatile" for _, r in state)
    text = json.dumps(package.rubric_checkers)
    assert '__VIEWSTATE"' not in text and "__EVENTVALIDATION" not in text


def test_a_submit_button_label_is_ui_wording_and_never_compared(packaged: dict[str, Packaged]) -> None:
    """The page showed `commit` as the form's one submit button: its value is a label, not the task."""
    package = packaged["helpdesk"].package
    assert package is not None
    commit = [role for fields in package.value_roles.values() for f, role in fields.items() if f == "request.commit"]
    assert len(commit) == 3 and all(r.role == "volatile" and "submit button" in r.reason for r in commit)
    assert all("commit" not in c.get("request", {}) for c in package.rubric_checkers.values())


def test_inspect_prints_form_writes_by_name() -> None:
    result = CliRunner().invoke(app, ["inspect", str(RECORDINGS / "helpdesk.zip")])
    assert result.exit_code == 0, result.stderr
    assert "PATCH /tickets/88123 (ticket[assignee_id]) [303] -> /tickets/88123" in result.stdout
    assert "88123 by 7 (location.segments.1)" in result.stdout
    assert "request.authenticity_token of 7 (csrf)" in result.stdout


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Packaged]:
    out = tmp_path_factory.mktemp("form-packages")
    return {name: package_offline(RECORDINGS / f"{name}.zip", RunOptions(), out) for name in APPS}


@pytest.mark.parametrize("name", APPS)
def test_the_offline_analyzer_packages_each_app(name: str, packaged: dict[str, Packaged]) -> None:
    outcome = packaged[name]
    assert outcome.passed and outcome.package_path is not None, outcome.error
    package = outcome.package
    assert package is not None and package.validation.self_check is not None
    check = package.validation.self_check
    assert check.golden_full_marks and check.golden_score == check.max_score > 0
    assert check.empty_attempt_score == 0
    # a rubric for each successful form write (one write of each app with a failure failed), each checked by a call checker
    writes = EXPECTED[name]["writes"][1 if name in FAILURES else 0 :]
    call_rubrics = [r for r in package.task.rubrics if package.rubric_checkers[r.checker_key]["kind"] == "http_call"]
    assert len(call_rubrics) == len(writes)


@pytest.mark.parametrize("name", APPS)
def test_good_attempts_pass_and_wrong_ones_fail(name: str, packaged: dict[str, Packaged]) -> None:
    package = packaged[name].package
    assert package is not None
    attempts = {p.stem: p for p in (ATTEMPTS / name).glob("*.zip")}
    assert "good" in attempts and {"empty", "missing_write"} <= set(attempts)
    assert {"wrong_option", "wrong_content"} & set(attempts)
    for kind in GOOD:
        if kind in attempts:
            report = score(package, import_path(attempts[kind]))
            assert report.passed and report.score == report.max_score, (kind, [r.reason for r in report.rubrics])
    for kind in WRONG:
        if kind in attempts:
            report = score(package, import_path(attempts[kind]))
            assert not report.passed, kind


def test_a_later_write_is_tied_to_the_location_of_the_write_that_made_its_id(packaged: dict[str, Packaged]) -> None:
    """The ticket id is created in the attempt (value roles, docs/checkers.md): bound to what the
    answer of the create (its `core_<call>`) carried, here its redirect's Location."""
    package = packaged["helpdesk"].package
    assert package is not None
    ties = {
        key: checker["path_params"]["ticketId"]
        for key, checker in package.rubric_checkers.items()
        if key.startswith("call_") and "ticketId" in checker.get("path_params", {})
    }
    assert ties and all(set(t) == {"created"} and t["created"].startswith("core_") for t in ties.values())
    for key in ties:
        role = package.value_roles[key]["path_params.ticketId"]
        assert role.role == "created" and "(location.segments.1)" in role.reason


@pytest.mark.slow
def test_rlauto_package_offline_packages_the_corpus_folder(
    prefect_api_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The main job on the folder of form-app recordings: one batch, a PASS package each."""
    monkeypatch.setenv("RLAUTO_STORAGE_URL", str(tmp_path / "storage"))
    monkeypatch.delenv("DEFAULT_API_KEY", raising=False)
    result = CliRunner().invoke(app, ["package", str(RECORDINGS), "--offline", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)
    assert sorted(Path(i["source"]).stem for i in items) == APPS
    for item in items:
        assert item["verdict"] == "PASS" and item["self_check"]["golden_full_marks"] is True, item
        assert Path(item["package_file"]).is_file()
