"""No secret value reaches the page; nobody off loopback sees anything without the password."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit import config as streamlit_config

from dashboards.auth import is_loopback
from dashboards.repository import Repository
from rlauto_core.redact import REDACTED, Redactor, secret_environment_values
from tests.dashboards.apptest_support import dashboard, go, open_item_page, rendered_bytes, texts
from tests.dashboards.conftest import CANARY_API_KEY, CANARY_AUTH, CANARY_COOKIE

CANARIES = [CANARY_API_KEY, CANARY_AUTH.split()[1], CANARY_COOKIE.split("=")[1]]


@pytest.fixture
def exposed_address() -> Iterator[None]:
    saved = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "0.0.0.0")
    try:
        yield
    finally:
        streamlit_config.set_option("server.address", saved)


@pytest.mark.usefixtures("loopback_address")
def test_no_canary_appears_on_any_page(repository: Repository, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEFAULT_API_KEY", CANARY_API_KEY)
    monkeypatch.setenv("JUDGE_API_KEY", CANARY_API_KEY)
    at = open_item_page(repository, "job-b", "it-canary")
    assert not at.exception
    # the canary item's package really carries the planted headers, so the check below means something
    package = repository.read_json("exports/job-b/it-canary/task-package.json")
    headers = package["task"]["subtasks"][0]["apiCalls"][0]["input"]["headers"]
    assert headers["Authorization"] == CANARY_AUTH and headers["Cookie"] == CANARY_COOKIE
    assert "first analyzer call refused key \\[REDACTED\\]; retried" in texts(at, "error")
    page = rendered_bytes(at)
    assert REDACTED.encode() in page
    at.selectbox(key="diff_from").set_value(1).run()
    pages = [page, rendered_bytes(at)]
    for name in ("Overview", "Items", "Upload", "Polish"):
        go(at, name.lower())
        assert not at.exception
        pages.append(rendered_bytes(at))
    for rendered in pages:
        for canary in CANARIES:
            assert canary.encode() not in rendered, f"{canary} was rendered"


def test_the_redactor_covers_header_maps_pairs_queries_bearer_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-CANARY-ENV-123")
    redactor = Redactor()
    value = {
        "headers": {"X-Api-Key": "k1", "set-cookie": "a=b", "content-type": "json", "X_AUTH_TOKEN": "t"},
        "har": [{"name": "Authorization", "value": "Basic dXNlcjpwYXNz"}, {"name": "Accept", "value": "*/*"}],
        "url": "https://h/x?access_token=abc123&page=2",
        "note": "sent Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig and tok-CANARY-ENV-123",
    }
    out = redactor.value(value)
    assert out["headers"] == {"X-Api-Key": REDACTED, "set-cookie": REDACTED, "content-type": "json",
                              "X_AUTH_TOKEN": REDACTED}  # fmt: skip
    assert out["har"] == [{"name": "Authorization", "value": REDACTED}, {"name": "Accept", "value": "*/*"}]
    assert out["url"] == f"https://h/x?access_token={REDACTED}&page=2"
    assert "eyJhbGci" not in out["note"] and "tok-CANARY-ENV-123" not in out["note"]


def test_with_a_password_nothing_shows_before_sign_in(
    repository: Repository, monkeypatch: pytest.MonkeyPatch, exposed_address: None
) -> None:
    monkeypatch.setenv("RLAUTO_DASHBOARD_PASSWORD", "correct horse")
    at = dashboard(repository).run()
    assert texts(at, "title") == ["RL-Auto review"]
    assert not at.dataframe and not at.metric and not at.sidebar.button  # no navigation, no Reload index
    at.text_input(key="login_password").input("wrong")
    at.button[0].click().run()
    assert "Wrong password." in texts(at, "error")
    assert not at.dataframe
    at.text_input(key="login_password").input("correct horse")
    at.button[0].click().run()
    assert not at.exception
    assert at.dataframe and "job-a" in list(at.dataframe[0].value["job"])
    assert b"correct horse" not in rendered_bytes(at)


def test_exposed_without_a_password_refuses_to_serve(
    repository: Repository, monkeypatch: pytest.MonkeyPatch, exposed_address: None
) -> None:
    monkeypatch.delenv("RLAUTO_DASHBOARD_PASSWORD", raising=False)
    at = dashboard(repository).run()
    assert any("RLAUTO_DASHBOARD_PASSWORD is not set" in text for text in texts(at, "error"))
    assert not at.dataframe and not at.metric and not at.sidebar.button  # no navigation, no Reload index


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("[::1]", True), ("localhost", True),
     ("0.0.0.0", False), ("", False), (None, False), ("192.168.1.5", False), ("example.org", False)],
)  # fmt: skip
def test_loopback_addresses(host: str | None, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_recorded_text_cannot_form_links_images_or_html_in_markdown() -> None:
    hostile = "see ![x](http://198.51.100.7/p.png) [here](javascript:alert(1)) <img src=x> `code`"
    shown = Redactor().markdown(hostile)
    assert shown == (
        "see \\!\\[x\\](http://198.51.100.7/p.png) \\[here\\](javascript:alert(1)) \\<img src=x\\> \\`code\\`"
    )


def test_identifiers_beside_secrets_are_not_blanked() -> None:
    env = {"AWS_ACCESS_KEY_ID": "rlauto-user", "AWS_SECRET_ACCESS_KEY": "minio-secret-value", "API_KEY": "short"}
    assert secret_environment_values(env) == ["minio-secret-value"]
