"""The demo phone (the product's emulated phone) behind its ADB server; adbutils is pointed at it so no real adb starts."""

from __future__ import annotations

import os
from collections.abc import Iterator

import adbutils
import psutil
import pytest

from device_flows.demo import DemoAdbServer, DemoPhone
from tests.fakes.getevent_writer import CAPS_LP, line_stroke, write_trace
from tests.fixtures.adb import adb_spawns

SERIAL = "fake-1"
# A 300 ms upward flick, then a 500 ms leftward drag, on the fts_ts panel (4 raw units per px).
TRACE = write_trace(
    [line_stroke((400, 8000), (400, 2000), 50.0, 0.300), line_stroke((4000, 4000), (400, 4000), 50.6, 0.500)],
    "B",
    device=None,
)
ELEMENTS = [
    {"text": "OK", "resourceId": "com.example:id/ok", "bounds": [100, 200, 300, 400]},
    {"text": "¥ 99", "resourceId": "com.example:id/price", "bounds": [0, 500, 1080, 600]},
]


@pytest.fixture
def demo_device() -> DemoPhone:
    return DemoPhone(SERIAL, caps=CAPS_LP, trace=TRACE, elements=[dict(e) for e in ELEMENTS])


def _adb_daemons() -> set[int]:
    return {p.pid for p in psutil.process_iter(["name"]) if p.info["name"] == "adb"}


@pytest.fixture
def demo_adb(
    demo_device: DemoPhone, monkeypatch: pytest.MonkeyPatch, adb_close_unpaused: None
) -> Iterator[DemoAdbServer]:
    before = _adb_daemons()
    with DemoAdbServer([demo_device]) as server:
        monkeypatch.setenv("ANDROID_ADB_SERVER_HOST", "127.0.0.1")
        monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(server.port))
        yield server
    # adbutils starts a real adb daemon when it cannot reach its server: it never had to.
    assert _adb_daemons() <= before, "a real adb server was started"
    here = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    assert adb_spawns(here) == [], "adbutils could not reach the demo server and asked for an adb daemon"


@pytest.fixture
def adb_client(demo_adb: DemoAdbServer) -> adbutils.AdbClient:
    return adbutils.AdbClient(host="127.0.0.1", port=demo_adb.port)
