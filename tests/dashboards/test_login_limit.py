"""Wrong passwords are rate-limited per client: after five, a growing wait that a page reload
(a new session in the same server process) does not reset, and the message says how long."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from dashboards.login_throttle import THROTTLE
from dashboards.repository import Repository
from tests.dashboards.apptest_support import dashboard, texts

PASSWORD = "correct horse"


@pytest.fixture(autouse=True)
def _fresh_throttle(monkeypatch: pytest.MonkeyPatch, loopback_address: None) -> Iterator[None]:
    monkeypatch.setenv("RLAUTO_DASHBOARD_PASSWORD", PASSWORD)
    monkeypatch.setenv("RLAUTO_DASHBOARD_LOGIN_WAIT", "0.5")
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


def test_five_wrong_passwords_start_a_wait_that_grows_and_survives_a_reload(repository: Repository) -> None:
    at = dashboard(repository).run()
    for _ in range(4):
        _try(at, "wrong")
        assert "Wrong password." in texts(at, "error") and _wait_said(at) is None, texts(at, "error")
    _try(at, "wrong")  # the fifth
    first = _wait_said(at)
    assert first is not None and 0 < first <= 0.5, texts(at, "error")

    reloaded = dashboard(repository).run()  # a reload: a new session, the same process and client
    assert _wait_said(reloaded) is not None
    _try(reloaded, PASSWORD)  # even the right password is not checked during the wait
    assert not reloaded.dataframe and _wait_said(reloaded) is not None

    time.sleep(0.6)
    _try(reloaded, "wrong")  # the sixth wrong one: twice the wait
    second = _wait_said(reloaded)
    assert second is not None and 0.5 < second <= 1.0

    time.sleep(1.1)
    _try(reloaded, PASSWORD)
    assert not reloaded.exception
    assert reloaded.dataframe, "the right password after the wait signs in"
    assert THROTTLE.wait_left("unknown-address") == 0


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
