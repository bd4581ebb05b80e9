"""The launcher's phone list (the dashboard's Agent page, `rlauto agent stop`) on a machine whose
ADB server is not running: empty, and no adb daemon asked for. adbutils runs `adb start-server`
when it finds no server; the test suite's adb is a stub that writes down each ask
(tests/fixtures/adb.py), so an ask fails this test instead of leaving a daemon behind."""

from __future__ import annotations

import os

import pytest

from device_flows.demo import DemoAdbServer, DemoPhone
from flows.agent_launch import PrefectAgentLauncher
from tests.fixtures.adb import adb_spawns
from tests.servers import free_port


def _here() -> str:
    return os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0]


def test_no_adb_server_lists_no_phone_and_starts_no_daemon(
    prefect_api_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))  # nothing listens there
    launcher = PrefectAgentLauncher("file:///unused")
    assert [d for d in launcher.devices() if d.state == "device"] == []
    assert adb_spawns(_here()) == []
    # the same list with a server there: the phone it reports
    with DemoAdbServer([DemoPhone("demo-list-1")]) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        assert "demo-list-1" in {d.serial for d in launcher.devices()}
    assert adb_spawns(_here()) == []
