"""Property tests: whatever JSON value or bytes sit in a recording file, the importers either
return a Recording (with unique call ids) or raise RecordingError; nothing else escapes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlauto_core.errors import RecordingError
from rlauto_core.importers import import_bytes
from rlauto_core.recording import Recording
from tests.importers.corpus import TASK
from tests.importers.zipcraft import jbytes, zip_bytes

PROPERTY = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.sampled_from(["", "base64", "2026-05-06T13:47:20Z", "1778075240114", "GET", "tools/call", "r1", "-1"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def shaped(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with the keys an importer looks for, each holding any JSON value (or absent)."""
    return st.fixed_dictionaries({}, optional={key: json_values for key in keys})


ECHO_REQUEST = [
    "id",
    "startedAt",
    "durationMs",
    "method",
    "url",
    "resourceType",
    "requestHeaders",
    "requestBody",
    "requestBodyEncoding",
    "status",
    "responseHeaders",
    "responseBody",
    "responseBodyEncoding",
    "pageUrl",
]
ECHO_CALL = ["id", "server", "tool", "name", "arguments", "result", "isError", "startedAt", "durationMs"]
RPC_MESSAGE = ["jsonrpc", "id", "method", "params", "result", "error"]
HAR_REQUEST = ["method", "url", "headers", "postData", "queryString", "cookies"]
HAR_RESPONSE = ["status", "headers", "content", "redirectURL"]
HAR_ENTRY = ["startedDateTime", "time", "timings", "_resourceType", "cache", "pageref"]

echo_requests = st.lists(shaped(ECHO_REQUEST) | json_values, max_size=4)
network_docs = st.one_of(json_values, echo_requests, st.builds(lambda r: {"version": 1, "requests": r}, echo_requests))
echo_calls = st.lists(shaped(ECHO_CALL) | json_values, max_size=4)
rpc_params = st.fixed_dictionaries({}, optional={"name": json_values | st.text(max_size=5), "arguments": json_values})
rpc_messages = st.lists(
    st.builds(lambda m, p: {**m, "params": p} if "params" in m else m, shaped(RPC_MESSAGE), rpc_params)
    | st.builds(
        lambda d, t, m: {"direction": d, "timestamp": t, "message": m}, json_values, json_values, shaped(RPC_MESSAGE)
    ),
    max_size=6,
)
mcp_docs = st.one_of(json_values, echo_calls, st.builds(lambda c: {"calls": c}, echo_calls), rpc_messages)
har_entries = st.lists(
    st.builds(
        lambda e, q, r: {**e, "request": q, "response": r},
        shaped(HAR_ENTRY),
        shaped(HAR_REQUEST) | json_values,
        shaped(HAR_RESPONSE) | json_values,
    ),
    max_size=3,
)
har_docs = st.one_of(json_values, st.builds(lambda e: {"log": {"version": "1.2", "entries": e}}, har_entries))
task_docs = st.one_of(
    json_values,
    st.builds(
        lambda m, t: {"metadata": m, "task": t},
        json_values,
        shaped(["instruction", "networkRequests", "subtasks", "rubrics"]) | json_values,
    ),
)
session_docs = st.one_of(
    json_values,
    st.builds(
        lambda s: {"sessionId": "s", "servers": s},
        st.lists(shaped(["name", "version", "tools"]) | json_values, max_size=3) | json_values,
    ),
)
dbdiff_docs = st.one_of(
    json_values,
    st.builds(
        lambda t: {"tables": t},
        st.dictionaries(st.text(max_size=6), shaped(["inserted", "updated", "deleted"]) | json_values, max_size=3),
    ),
)


def import_or_refuse(data: bytes, name: str) -> Recording | None:
    try:
        recording = import_bytes(data, name)
    except RecordingError as err:
        assert err.file and err.problem
        return None
    ids = [call.id for call in recording.calls]
    assert len(ids) == len(set(ids)), "call ids must point at one call each"
    return recording


def with_file(name: str, content: bytes) -> bytes:
    files = {"task.json": jbytes(TASK), name: content}
    return zip_bytes(files)


def dumps(value: Any) -> bytes:
    return json.dumps(value).encode("utf-8")


@PROPERTY
@given(network_docs)
def test_network_json_any_value(value: Any) -> None:
    import_or_refuse(with_file("network.json", dumps(value)), "rec.zip")


@PROPERTY
@given(mcp_docs, st.booleans())
def test_mcp_calls_json_any_value(value: Any, as_lines: bool) -> None:
    lines = as_lines and isinstance(value, list)
    content = b"".join(dumps(item) + b"\n" for item in value) if lines else dumps(value)
    import_or_refuse(with_file("mcp_calls.json", content), "rec.zip")


@PROPERTY
@given(task_docs)
def test_task_json_any_value(value: Any) -> None:
    import_or_refuse(zip_bytes({"task.json": dumps(value)}), "rec.zip")


@PROPERTY
@given(session_docs)
def test_session_json_any_value(value: Any) -> None:
    import_or_refuse(with_file("session.json", dumps(value)), "rec.zip")


@PROPERTY
@given(dbdiff_docs)
def test_dbdiff_json_any_value(value: Any) -> None:
    import_or_refuse(with_file("dbdiff.json", dumps(value)), "rec.zip")


@PROPERTY
@given(har_docs)
def test_har_any_value_bare_and_zipped(value: Any) -> None:
    content = dumps(value)
    import_or_refuse(content, "capture.har")
    import_or_refuse(with_file("capture.har", content), "rec.zip")


@PROPERTY
@given(
    st.sampled_from(["task.json", "network.json", "mcp_calls.json", "session.json", "dbdiff.json", "x.har"]),
    st.binary(max_size=300),
)
def test_any_bytes_in_any_file(name: str, content: bytes) -> None:
    files = {name: content} if name == "task.json" else {"task.json": jbytes(TASK), name: content}
    import_or_refuse(zip_bytes(files), "rec.zip")


@PROPERTY
@given(st.binary(max_size=400), st.sampled_from(["rec.zip", "capture.har", "upload"]))
def test_any_bytes_as_the_whole_upload(content: bytes, name: str) -> None:
    import_or_refuse(content, name)


@PROPERTY
@given(st.binary(min_size=1, max_size=40), st.integers(min_value=0, max_value=10_000))
def test_flipped_bytes_in_a_valid_archive(noise: bytes, where: int) -> None:
    valid = with_file("network.json", dumps({"requests": [{"id": "r1", "url": "https://a.example/"}]}))
    at = where % len(valid)
    import_or_refuse(valid[:at] + noise + valid[at + len(noise) :], "rec.zip")
