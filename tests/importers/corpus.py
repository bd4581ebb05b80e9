"""The bad-input corpus: broken and hostile recordings, built by code into a directory.

Each `BadCase` writes one input file and says which file the RecordingError must name
(`file`, a substring of `err.file`) and what it must say (`phrase`, a case-insensitive
substring of `err.problem`; a tuple lists accepted alternatives).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.importers.zipcraft import RawEntry, deflate, jbytes, raw_zip, zip_bytes

MB = 1024 * 1024

TASK: dict[str, Any] = {
    "metadata": {"recordingId": "rec_t1", "recordedAt": "2026-05-06T13:47:12Z", "extensionVersion": "05061347"},
    "task": {"instruction": "create an issue", "networkRequests": ["r1"], "subtasks": [], "rubrics": []},
}


def request(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "r1",
        "startedAt": "2026-05-06T13:47:20.114Z",
        "durationMs": 83,
        "method": "POST",
        "url": "https://tracker.example.com/api/issues",
        "requestHeaders": {"content-type": "application/json"},
        "requestBody": '{"title":"x"}',
        "status": 201,
        "responseHeaders": {"content-type": "application/json"},
        "responseBody": '{"id":7}',
    }
    base.update(overrides)
    return base


NETWORK: dict[str, Any] = {"version": 1, "requests": [request()]}
CALL: dict[str, Any] = {
    "id": "c1",
    "server": "notes",
    "tool": "notes_create",
    "arguments": {"title": "t"},
    "result": {"content": [{"type": "text", "text": "ok"}], "isError": False},
    "startedAt": "2026-05-06T13:47:20.114Z",
    "durationMs": 40,
}


def recording(**files: bytes | Any) -> bytes:
    """A ZIP holding a valid task.json and network.json unless overridden; bytes go in as is,
    other values are JSON-encoded; a value of None drops the file."""
    contents: dict[str, Any] = {"task.json": TASK, "network.json": NETWORK}
    contents.update({name.replace("__", "."): value for name, value in files.items()})
    return zip_bytes({n: v if isinstance(v, bytes) else jbytes(v) for n, v in contents.items() if v is not None})


def deep_array(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def deep_object(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


def random_text(size: int) -> str:
    """Incompressible printable text, so a ZIP holding it is not refused as a bomb first."""
    return base64.b64encode(os.urandom(size * 3 // 4 + 3)).decode()[:size]


def jsonrpc_lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(
        jbytes({"direction": d, "timestamp": 1778310300000 + i, "message": m}) + b"\n"
        for i, (d, m) in enumerate(("send" if "method" in m else "recv", m) for m in messages)
    )


@dataclass(frozen=True)
class BadCase:
    id: str
    name: str  # the input's file name
    build: Callable[[], bytes]
    file: str
    phrase: str | tuple[str, ...]
    max_upload_mb: float = 100
    requested_mode: str | None = None
    heavy: bool = False  # big inputs: tested through import_path only

    def phrases(self) -> tuple[str, ...]:
        return (self.phrase,) if isinstance(self.phrase, str) else self.phrase


def _truncated() -> bytes:
    data = recording()
    return data[: len(data) // 2]


def _bomb_ratio() -> bytes:
    # 64 MiB of zeros deflate to ~64 KiB: a 1000x entry.
    zeros = bytes(64 * MB)
    return raw_zip([RawEntry("task.json", jbytes(TASK)), RawEntry("screen.raw", zeros)])


def _bomb_total() -> bytes:
    # 1100 entries of 1 MiB each (one shared compressed block): >1 GiB inflated, no entry over 4 MiB.
    block = bytes(MB)
    packed = deflate(block)
    entries = [RawEntry("task.json", jbytes(TASK))]
    entries += [RawEntry(f"frames/{i:04d}.raw", block, compressed=packed) for i in range(1100)]
    return raw_zip(entries)


def _bomb_lying_header() -> bytes:
    # The headers declare 1 KiB; the deflate stream inflates to 64 MiB (CRC of the real data).
    zeros = bytes(64 * MB)
    return raw_zip([RawEntry("task.json", jbytes(TASK)), RawEntry("notes.txt", zeros, file_size=1024)])


def _bomb_lying_compressed_size() -> bytes:
    # The central directory claims 2 GiB of compressed data, so a ratio computed from the
    # header would never fire; the real stream is ~64 KiB inflating to 64 MiB.
    zeros = bytes(64 * MB)
    return raw_zip(
        [RawEntry("task.json", jbytes(TASK)), RawEntry("screen.raw", zeros, declared_compress_size=0x7FFFFFFF)]
    )


def _one_raw(name: str | bytes, **kw: Any) -> Callable[[], bytes]:
    return lambda: raw_zip([RawEntry("task.json", jbytes(TASK)), RawEntry(name, b"payload", **kw)])


def _crc_mismatch() -> bytes:
    data = jbytes(TASK)
    return raw_zip([RawEntry("task.json", data, crc=0xDEADBEEF)])


def _corrupt_deflate() -> bytes:
    return raw_zip([RawEntry("task.json", jbytes(TASK), compressed=b"\xff\xfe\xfd\xfc" * 16)])


def _too_many_entries() -> bytes:
    return raw_zip([RawEntry("task.json", jbytes(TASK))] + [RawEntry(f"e/{i}", b"", method=0) for i in range(10_001)])


def _over_limit() -> bytes:
    return recording(**{"screen__bin": os.urandom(int(1.5 * MB))})


def _50mb(where: str) -> Callable[[], bytes]:
    def build() -> bytes:
        big = random_text(50 * MB)
        if where == "body":
            net = {"requests": [request(requestBody=big)]}
        elif where == "url":
            net = {"requests": [request(url="https://x.example.com/?q=" + big)]}
        elif where == "header":
            net = {"requests": [request(requestHeaders={"x-big": big})]}
        else:
            net = {"requests": [request(**{big: 1})]}  # a 50 MB key
        return zip_bytes({"task.json": jbytes(TASK), "network.json": jbytes(net)}, stored=True)

    return build


def _har(entries: Any = None, **log: Any) -> bytes:
    body: dict[str, Any] = {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}}
    body["entries"] = entries if entries is not None else []
    body.update(log)
    return jbytes({"log": body})


HAR_REQUEST = {"method": "GET", "url": "https://board.example.com/api/boards/b_12", "headers": []}

R = "rec.zip"
CASES: list[BadCase] = [
    # --- the archive itself
    BadCase("not_a_zip", R, lambda: b"this is a text file, not an archive\n" * 4, R, "not a valid zip"),
    BadCase(
        "not_zip_nor_har",
        "recording.bin",
        # random bytes, but never starting like a JSON document ('{' or '['), which is read as a capture
        lambda: b"\x00" + os.urandom(511).replace(b"PK", b"pk"),
        "recording.bin",
        "not a zip archive or a har",
    ),
    BadCase("truncated_zip", R, _truncated, R, ("not a valid zip", "corrupt", "truncated")),
    BadCase("empty_file", R, lambda: b"", R, "empty"),
    BadCase("zip_bomb_ratio", R, _bomb_ratio, R, ("zip bomb", "inflates"), heavy=True),
    BadCase("zip_bomb_total", R, _bomb_total, R, ("zip bomb", "inflates past"), heavy=True),
    BadCase("zip_bomb_lying_header", R, _bomb_lying_header, R, ("corrupt", "zip bomb", "crc"), heavy=True),
    BadCase(
        "zip_bomb_lying_compress_size",
        R,
        _bomb_lying_compressed_size,
        R,
        ("zip bomb", "cannot be read", "corrupt"),
        heavy=True,
    ),
    BadCase("dotdot_entry", R, _one_raw("../evil.sh"), R, "escapes the archive"),
    BadCase("dotdot_nested_entry", R, _one_raw("rec/../../etc/evil"), R, "escapes the archive"),
    BadCase("dotdot_backslash_entry", R, _one_raw("..\\..\\evil.dll"), R, "escapes the archive"),
    BadCase("absolute_entry", R, _one_raw("/etc/cron.d/evil"), R, "absolute path"),
    BadCase("drive_letter_entry", R, _one_raw("C:\\Windows\\evil.dll"), R, "absolute path"),
    BadCase("symlink_entry", R, _one_raw("screens/final.png", external_attr=0o120777 << 16), R, "symbolic link"),
    BadCase("duplicate_names", R, lambda: raw_zip([RawEntry("task.json", jbytes(TASK))] * 2), R, "duplicate"),
    BadCase("encrypted_entry", R, _one_raw("network.json", flags=0x1), R, "encrypted"),
    BadCase("crc_mismatch", R, _crc_mismatch, R, ("crc", "corrupt")),
    BadCase("corrupt_deflate", R, _corrupt_deflate, R, ("cannot be read", "corrupt")),
    BadCase("zip_version_too_new", R, _one_raw("notes.txt", version=64), R, ("unsupported", "corrupt")),
    BadCase("unsupported_method", R, _one_raw("video.mp4", method=99), R, "unsupported"),
    BadCase("too_many_entries", R, _too_many_entries, R, "over the limit"),
    BadCase("over_max_upload", R, _over_limit, R, "MAX_UPLOAD_MB", max_upload_mb=1),
    BadCase("unknown_mode", R, recording, R, "unknown mode", requested_mode="graphql"),
    # --- task.json
    BadCase("task_missing", R, lambda: recording(task__json=None), R, "task.json is missing"),
    BadCase("task_invalid_json", R, lambda: recording(task__json=b'{"metadata": {'), "task.json", "invalid json"),
    BadCase("task_empty", R, lambda: recording(task__json=b"  \n"), "task.json", "empty"),
    BadCase("task_is_array", R, lambda: recording(task__json=[TASK]), "task.json", "must be an object"),
    BadCase("task_without_task", R, lambda: recording(task__json={"metadata": {}}), "task.json", '"task"'),
    BadCase(
        "task_instruction_number",
        R,
        lambda: recording(task__json={"task": {"instruction": 42}}),
        "task.json",
        "instruction must be a string",
    ),
    BadCase(
        "task_network_requests_string",
        R,
        lambda: recording(task__json={"task": {"instruction": "x", "networkRequests": "r1,r2"}}),
        "task.json",
        "networkRequests",
    ),
    BadCase(
        "task_metadata_array",
        R,
        lambda: recording(task__json={"metadata": [], "task": {}}),
        "task.json",
        "metadata must be an object",
    ),
    BadCase(
        "task_invalid_utf8",
        R,
        lambda: recording(task__json=b'{"task": {"instruction": "caf\xe9 au lait"}}'),
        "task.json",
        "utf-8",
    ),
    BadCase(
        "task_nan", R, lambda: recording(task__json=b'{"task": {"instruction": "x", "score": NaN}}'), "task.json", "nan"
    ),
    BadCase(
        "task_10k_deep_array",
        R,
        lambda: recording(task__json=b'{"task": {"instruction": "x", "notes": ' + deep_array(10_000) + b"}}"),
        "task.json",
        ("too deep", "nest"),
    ),
    BadCase(
        "task_500_deep_object",
        R,
        lambda: recording(task__json=b'{"task": {"instruction": "x", "notes": ' + deep_object(500) + b"}}"),
        "task.json",
        ("too deep", "nest"),
    ),
    # --- network.json
    BadCase(
        "network_url_number",
        R,
        lambda: recording(network__json={"requests": [request(url=12345)]}),
        "network.json",
        "url",
    ),
    BadCase(
        "network_url_missing",
        R,
        lambda: recording(network__json=[{k: v for k, v in request().items() if k != "url"}]),
        "network.json",
        '"url"',
    ),
    BadCase(
        "network_headers_string",
        R,
        lambda: recording(network__json={"requests": [request(requestHeaders="content-type: text/plain")]}),
        "network.json",
        "requestHeaders",
    ),
    BadCase(
        "network_nan", R, lambda: recording(network__json=jbytes(NETWORK).replace(b"83", b"NaN")), "network.json", "nan"
    ),
    BadCase(
        "network_infinity",
        R,
        lambda: recording(network__json=jbytes(NETWORK).replace(b"201", b"-Infinity")),
        "network.json",
        "infinity",
    ),
    BadCase(
        "network_invalid_utf8",
        R,
        lambda: recording(network__json=jbytes(NETWORK).replace(b"tracker", b"tr\xc3\x28cker")),
        "network.json",
        "utf-8",
    ),
    BadCase(
        "network_10k_deep_array",
        R,
        lambda: recording(network__json=deep_array(10_000)),
        "network.json",
        ("too deep", "nest"),
    ),
    BadCase(
        "network_deep_extra_field",
        R,
        lambda: recording(network__json=b'[{"id":"r1","url":"https://a.example/","trace":' + deep_object(300) + b"}]"),
        "network.json",
        ("too deep", "nest"),
    ),
    BadCase(
        "network_requests_string",
        R,
        lambda: recording(network__json={"requests": "none"}),
        "network.json",
        "must be an array",
    ),
    BadCase(
        "network_request_is_string", R, lambda: recording(network__json=["GET /"]), "network.json", "must be an object"
    ),
    BadCase(
        "network_duplicate_ids", R, lambda: recording(network__json=[request(), request()]), "network.json", "twice"
    ),
    BadCase(
        "network_bad_base64",
        R,
        lambda: recording(network__json=[request(responseBody="abc", responseBodyEncoding="base64")]),
        "network.json",
        "base64",
    ),
    BadCase(
        "network_bad_timestamp",
        R,
        lambda: recording(network__json=[request(startedAt="yesterday")]),
        "network.json",
        "timestamp",
    ),
    BadCase(
        "network_timestamp_out_of_range",
        R,
        lambda: recording(network__json=[request(startedAt=1e300)]),
        "network.json",
        "out of range",
    ),
    BadCase("network_50mb_body", R, _50mb("body"), "network.json", ("limit", "too large"), heavy=True),
    BadCase("network_50mb_url", R, _50mb("url"), "network.json", ("limit", "too large", "too long"), heavy=True),
    BadCase("network_50mb_header", R, _50mb("header"), "network.json", ("limit", "too large", "too long"), heavy=True),
    BadCase("network_50mb_key", R, _50mb("key"), "network.json", ("limit", "too large", "too long"), heavy=True),
    # --- HAR
    BadCase(
        "har_entry_without_request",
        "capture.har",
        lambda: _har([{"response": {"status": 200}}]),
        "capture.har",
        "no request",
    ),
    BadCase(
        "har_in_zip_entry_without_request",
        R,
        lambda: recording(network__json=None, capture__har=_har([{"request": HAR_REQUEST}, {"time": 3}])),
        "capture.har",
        "entry 1 has no request",
    ),
    BadCase("har_without_log", "capture.har", lambda: jbytes({"entries": []}), "capture.har", '"log"'),
    BadCase("har_entries_string", "capture.har", lambda: _har("none"), "capture.har", "log.entries"),
    BadCase("har_invalid_json", "capture.har", lambda: b'{"log": {"entries": [', "capture.har", "invalid json"),
    BadCase(
        "har_url_number", "capture.har", lambda: _har([{"request": {**HAR_REQUEST, "url": 7}}]), "capture.har", "url"
    ),
    BadCase(
        "har_headers_string",
        "capture.har",
        lambda: _har([{"request": {**HAR_REQUEST, "headers": "Accept: */*"}}]),
        "capture.har",
        "headers",
    ),
    BadCase(
        "har_postdata_string",
        "capture.har",
        lambda: _har([{"request": {**HAR_REQUEST, "method": "POST", "postData": "a=1"}}]),
        "capture.har",
        "postData",
    ),
    # --- mcp_calls.json
    BadCase(
        "mcp_jsonl_bad_line_3",
        R,
        lambda: recording(
            mcp_calls__json=jsonrpc_lines(
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "notes_list"}},
                {"jsonrpc": "2.0", "id": 1, "result": {}},
            )
            + b'{"direction": "send", "message": {\n'
        ),
        "mcp_calls.json",
        "line 3",
    ),
    BadCase(
        "mcp_call_without_tool",
        R,
        lambda: recording(mcp_calls__json={"calls": [{"id": "c1"}]}),
        "mcp_calls.json",
        '"tool"',
    ),
    BadCase(
        "mcp_arguments_string",
        R,
        lambda: recording(mcp_calls__json={"calls": [{**CALL, "arguments": "title=t"}]}),
        "mcp_calls.json",
        "arguments must be an object",
    ),
    BadCase(
        "mcp_float_id",
        R,
        lambda: recording(
            mcp_calls__json=[{"jsonrpc": "2.0", "id": 1.5, "method": "tools/call", "params": {"name": "notes_list"}}]
        ),
        "mcp_calls.json",
        "id must be",
    ),
    BadCase(
        "mcp_tools_call_without_name",
        R,
        lambda: recording(mcp_calls__json=[{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {}}]),
        "mcp_calls.json",
        '"name"',
    ),
    BadCase(
        "mcp_response_without_id",
        R,
        lambda: recording(mcp_calls__json=[{"jsonrpc": "2.0", "result": {}}]),
        "mcp_calls.json",
        "without an id",
    ),
    BadCase(
        "mcp_calls_object",
        R,
        lambda: recording(mcp_calls__json={"calls": {"c1": CALL}}),
        "mcp_calls.json",
        "must be an array",
    ),
    BadCase(
        "mcp_10k_deep", R, lambda: recording(mcp_calls__json=deep_array(10_000)), "mcp_calls.json", ("too deep", "nest")
    ),
    BadCase("mcp_duplicate_echo_ids", R, lambda: recording(mcp_calls__json=[CALL, CALL]), "mcp_calls.json", "twice"),
    # --- session.json and dbdiff.json
    BadCase(
        "session_servers_string",
        R,
        lambda: recording(mcp_calls__json=[CALL], session__json={"servers": "discord"}),
        "session.json",
        "servers",
    ),
    BadCase(
        "session_tool_without_name",
        R,
        lambda: recording(mcp_calls__json=[CALL], session__json={"servers": [{"name": "d", "tools": [{}]}]}),
        "session.json",
        "name",
    ),
    BadCase(
        "session_is_array",
        R,
        lambda: recording(mcp_calls__json=[CALL], session__json=[]),
        "session.json",
        "must be an object",
    ),
    BadCase("dbdiff_without_tables", R, lambda: recording(dbdiff__json={"rows": []}), "dbdiff.json", '"tables"'),
    BadCase("dbdiff_tables_array", R, lambda: recording(dbdiff__json={"tables": []}), "dbdiff.json", "tables"),
    BadCase(
        "dbdiff_inserted_object",
        R,
        lambda: recording(dbdiff__json={"tables": {"issues": {"inserted": {"id": 1}}}}),
        "dbdiff.json",
        "inserted",
    ),
]


def write_case(case: BadCase, directory: Path) -> Path:
    path = directory / case.name
    path.write_bytes(case.build())
    return path
