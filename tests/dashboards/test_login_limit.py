"""Wrong passwords are rate-limited per client: after five, a growing wait that a page reload
(a new session in the same server process) does not reset, and the message says how long."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from dashboards.login_throttle import MAX_WAIT, THROTTLE, LoginThrottle
from dashboards.repository import Repository
from tests.dashboards.apptest_support import dashboard, texts

PASSWORD = "correct horse"


@pytest.fixture(autouse=True)
def _fresh_throttle(monkeypatch: pytest.MonkeyPatch, loopback_address: None) -> Iterator[None]:
    monkeypatch.setenv("RLAUTO_DASHBOARD_PASSWORD", PASSWORD)
    monkeypatch.setenv("RLAUTO_DASHBOARD_LOGIN_WAIT", "1")
    THROTTLE.clear()  # the limit is per server process: this test's process is shared
    yield
    THROTTLE.clear()


def _try(at, password: str):  # type: ignore[no-untyped-def]
    at.text_input(key="login_password").input(password)
    at.button[0].click().run()
    return at


def _wait_said(at) -> float | None:  # type: ignore[no-untyped-def]
    for text in texts(at, "error"):
        found = re.search(r"wait ([0-9.]+) s", text)
        if found:
            return float(found.group(1))
    return None


def test_five_wrong_passwords_start_a_wait_that_survives_a_reload(
    repository: Repository, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RLAUTO_DASHBOARD_LOGIN_WAIT", "60")  # far longer than the test
    at = dashboard(repository).run()
    for _ in range(4):
        _try(at, "wrong")
        assert "Wrong password." in texts(at, "error") and _wait_said(at) is None, texts(at, "error")
    _try(at, "wrong")  # the fifth
    assert _wait_said(at) == 60

    reloaded = dashboard(repository).run()  # a reload: a new session, the same process and client
    waited = _wait_said(reloaded)
    assert waited is not None and 50 < waited <= 60
    _try(reloaded, PASSWORD)  # even the right password is not checked during the wait
    assert not reloaded.dataframe and _wait_said(reloaded) is not None


def test_each_wrong_password_over_the_limit_doubles_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RLAUTO_DASHBOARD_LOGIN_WAIT", "5")
    throttle = LoginThrottle()
    assert [throttle.failed("ip:10.0.0.7") for _ in range(7)] == [0, 0, 0, 0, 5, 10, 20]
    assert throttle.wait_left("ip:10.0.0.8") == 0, "one client's guesses do not lock another"
    for _ in range(20):
        last = throttle.failed("ip:10.0.0.7")
    assert last == MAX_WAIT
    throttle.succeeded("ip:10.0.0.7")
    assert throttle.wait_left("ip:10.0.0.7") == 0 and throttle.failed("ip:10.0.0.7") == 0


@pytest.mark.slow
def test_after_the_wait_a_sixth_wrong_password_waits_twice_as_long(repository: Repository) -> None:
    at = dashboard(repository).run()
    for _ in range(5):
        _try(at, "wrong")
    first = _wait_said(at)
    assert first is not None and 0 < first <= 1.0
    time.sleep(1.1)
    _try(at, "wrong")  # the sixth wrong one: twice the wait
    second = _wait_said(at)
    assert second is not None and 1.0 < second <= 2.0
    time.sleep(2.1)
    _try(at, PASSWORD)
    assert not at.exception
    assert at.dataframe, "the right password after the wait signs in"


def test_a_right_password_before_the_limit_forgets_the_wrong_ones(repository: Repository) -> None:
    at = dashboard(repository).run()
    for _ in range(4):
        _try(at, "wrong")
    _try(at, PASSWORD)
    assert at.dataframe
    again = dashboard(repository).run()
    for _ in range(4):
        _try(again, "wrong")
    assert _wait_said(again) is None, "the count started again after the sign-in"
