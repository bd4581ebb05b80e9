"""Public captures written by real tools (tests/data, see SOURCES.md) import to the calls they
record: ids per formats.md section 5, tool names exactly as recorded, arguments and results.
Each is read bare (as uploaded) and inside a recording ZIP, and the evidence and rules run on it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes, import_path
from rlauto_core.recording import HttpCall, Mode, Recording, ToolCall
from rlauto_core.rules import run_rules
from tests.importers.corpus import TASK
from tests.importers.zipcraft import jbytes, zip_bytes

DATA = Path(__file__).resolve().parents[1] / "data"

# (file, git blob id recorded in SOURCES.md): the copies must stay unchanged
BLOBS = {
    "mcp/cassette/mcp-recorder_mock_session.json": "d991c8d9619460cf7921ce563d3f8b2c9b04b607",
    "mcp/cassette/agent-vcr_calculator-errors.vcr": "032982b01f053f0d2c988ac51ef81f5c78d80a2d",
    "har/chrome_postdata.har": "21932bc87fe8b484dbe0e0e3f51c4e2a2332a032",
    "har/firefox_head-content-length.har": "ec549cbe9da2ee564013525861e7b563621f7e55",
    "har/insomnia.har": "b738971e653deb43478bcab5619cb94d27ac6fd9",
    "har/mitmproxy_successful_log.har": "f3229fadef1b9eb5eb91e351163ddee083ce680b",
    "har/charles_rails_login.har": "f54e67074edc0616fdf479b7dcc31173c7f8132f",
}


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\x00" % len(data) + data).hexdigest()


@pytest.mark.parametrize("name", sorted(BLOBS))
def test_copies_are_unchanged_and_listed(name: str) -> None:
    data = (DATA / name).read_bytes()
    assert git_blob_id(data) == BLOBS[name]
    assert f"`{name}`" in (DATA / "SOURCES.md").read_text()


def tool_calls(recording: Recording) -> list[ToolCall]:
    assert recording.mode is Mode.MCP
    return [c for c in recording.calls if isinstance(c, ToolCall)]


def http_calls(recording: Recording) -> list[HttpCall]:
    assert recording.mode is Mode.API
    return [c for c in recording.calls if isinstance(c, HttpCall)]


def in_zip(name: str, member: str) -> Recording:
    data = zip_bytes({"task.json": jbytes(TASK), member: (DATA / name).read_bytes()}, folder="rec")
    return import_bytes(data, "rec.zip")


def test_mcp_recorder_cassette() -> None:
    for recording in (
        import_path(DATA / "mcp/cassette/mcp-recorder_mock_session.json"),
        in_zip("mcp/cassette/mcp-recorder_mock_session.json", "mcp_calls.json"),
    ):
        calls = tool_calls(recording)
        # initialize, the notification, tools/list and the two lifecycle entries are not calls
        assert [(c.id, c.tool, c.arguments) for c in calls] == [
            ("2", "add", {"a": 2, "b": 3}),
            ("3", "multiply", {"a": 3.5, "b": 2.0}),
            ("4", "echo", {"message": "hello mcp-recorder"}),
            ("5", "get_weather", {"city": "London"}),
        ]
        assert {c.server for c in calls} == {"Test Calculator"}
        assert [c.duration_ms for c in calls] == [18, 4, 6, 6]  # latency_ms
        assert all(c.answered and not c.is_error for c in calls)
        weather = calls[3].result
        assert weather["structuredContent"] == {"city": "London", "temp_c": 22, "condition": "sunny", "humidity": 45}
        assert weather["content"][0]["text"] == '{"city":"London","temp_c":22,"condition":"sunny","humidity":45}'
        assert recording.import_notes == []


def test_agent_vcr_cassette_with_error_responses() -> None:
    recording = import_path(DATA / "mcp/cassette/agent-vcr_calculator-errors.vcr")
    calls = tool_calls(recording)
    assert [(c.id, c.tool, c.arguments, c.is_error) for c in calls] == [
        ("2", "divide", {"a": 10, "b": 0}, True),
        ("3", "nonexistent_tool", {}, True),
        ("4", "add", {"a": 100, "b": 200}, False),
    ]
    assert calls[0].result == {
        "code": -32603,
        "message": "Division by zero",
        "data": {"details": "Cannot divide 10 by 0", "tool": "divide", "input": {"a": 10, "b": 0}},
    }
    assert calls[2].result == {"content": [{"type": "text", "text": "300"}]}
    assert {c.server for c in calls} == {"calculator-server"}
    assert [c.duration_ms for c in calls] == [4.3, 2.1, 5.9]
    assert calls[0].started_at is not None and calls[0].started_at.isoformat() == "2026-02-08T16:00:01.050000+00:00"


HAR_EXPECTED: dict[str, list[tuple[str, str, str, int]]] = {
    "har/chrome_postdata.har": [
        ("0", "POST", "https://signal-metrics-collector-beta.s-onetag.com/metrics", 200),
    ],
    "har/firefox_head-content-length.har": [
        (
            "0",
            "HEAD",
            "https://files.pythonhosted.org/packages/00/e5/f12a80907d0884e6dff9c16d0c0114d81b8cd07dc3ae54c5e962cc83037e/"
            "tqdm-4.66.1-py3-none-any.whl",
            200,
        ),
    ],
    "har/insomnia.har": [("0", "GET", "http://mitm.it/", 200)],
    "har/mitmproxy_successful_log.har": [
        ("0", "GET", "https://example.com/", 200),
        ("1", "POST", "https://httpbin.org/post", 200),
    ],
    "har/charles_rails_login.har": [
        ("0", "GET", "https://testerhome.com/account/sign_in", 200),
        (
            "1",
            "GET",
            "https://testerhome.com/assets/big_logo-cd32144f74c18746f3dce33e1040e7dfe4c07c8e611e37f3868b1c16b5095da3.png",
            200,
        ),
        ("2", "POST", "https://testerhome.com/account/sign_in", 200),
        ("3", "GET", "https://testerhome.com/", 200),
    ],
}


@pytest.mark.parametrize("name", sorted(HAR_EXPECTED))
def test_public_har_exports(name: str) -> None:
    for recording in (import_path(DATA / name), in_zip(name, Path(name).name)):
        calls = http_calls(recording)
        assert [(c.id, c.method, c.url, c.status) for c in calls] == HAR_EXPECTED[name]


def test_har_bodies_as_recorded() -> None:
    chrome = http_calls(import_path(DATA / "har/chrome_postdata.har"))[0]
    assert chrome.request_body is not None and chrome.request_body.startswith('{"metadata":{"pageViewId":1689428126308')
    assert chrome.resource_type == "ping"  # Chrome's _resourceType, used by the noise filter
    mitm = http_calls(import_path(DATA / "har/mitmproxy_successful_log.har"))
    assert mitm[1].request_body == "key1=value1&key2=value2"
    assert '"form": {\n    "key1": "value1"' in (mitm[1].response_body or "")
    insomnia = http_calls(import_path(DATA / "har/insomnia.har"))[0]
    assert "traffic is not passing through mitmproxy" in (insomnia.response_body or "")


@pytest.mark.parametrize("name", sorted(BLOBS))
def test_evidence_and_rules_run_on_every_public_capture(name: str) -> None:
    recording = import_path(DATA / name)
    evidence = build_evidence(recording)
    flags = run_rules(recording, evidence)
    assert len(evidence.calls) == len(recording.calls)
    known = {c.id for c in recording.calls}
    assert all(set(f.call_ids) <= known for f in flags), [f.code for f in flags]
