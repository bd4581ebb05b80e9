"""`--redact-secrets` streams: a HAR is held one entry at a time (the peak of a 24 MiB HAR's export
stays a small share of its size), and the bytes written are those the whole-document redaction
gave, on HARs real tools wrote, with tiny read chunks, on JSON Lines, text, broken and hostile
input."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.package import TaskPackage, export_package
from rlauto_core.package import redact_stream as streaming
from rlauto_core.redact import REDACTED, redact_json, redact_text

TESTS = Path(__file__).resolve().parents[1]
# HARs real tools wrote (browsers, proxies, clients; tests/data/SOURCES.md names their origins)
REAL_HARS = {p.name: p for folder in (TESTS / "importers" / "corpus" / "har", TESTS / "data" / "har")
             for p in folder.glob("*.har") if p.stat().st_size < 2 * 1024 * 1024}  # fmt: skip
MiB = 1024 * 1024
CANARY = "Bearer CANARY-STREAM-4c1d9e77a0"


def whole_document_redaction(data: bytes) -> bytes:
    """What `--redact-secrets` wrote before it streamed (the reference the stream must match)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data
    try:
        return json.dumps(redact_json(json.loads(text)), ensure_ascii=False, indent=1).encode("utf-8")
    except (ValueError, RecursionError):
        pass
    lines: list[str] = []
    for line in text.splitlines():
        try:
            lines.append(json.dumps(redact_json(json.loads(line)), ensure_ascii=False) if line.strip() else line)
        except (ValueError, RecursionError):
            lines.append(redact_text(line))
    return ("\n".join(lines) + ("\n" if text.endswith("\n") else "")).encode("utf-8")


def streamed(data: bytes) -> bytes:
    sink = io.BytesIO()
    streaming.redact_stream(lambda: io.BytesIO(data), sink)
    return sink.getvalue()


@pytest.mark.parametrize("chunk", [streaming.CHUNK, 7, 1])
@pytest.mark.parametrize("har", sorted(REAL_HARS))
def test_real_hars_stream_to_the_whole_document_redaction(
    har: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(streaming, "CHUNK", chunk)  # values and numbers cut at every boundary
    data = REAL_HARS[har].read_bytes()
    assert streamed(data) == whole_document_redaction(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"  \n",
        b"42",
        b'"a bare string with Bearer abcdefghijklmnop"',
        b'\xef\xbb\xbf{"log": {"entries": []}}',  # a BOM
        b'{"log": {"entries": [{"request": {"headers": [{"name": "Cookie", "value": "s=1"}]}}], "pages": []}}',
        b'[{"url": "https://x/a?token=abc&q=1"}, 1.5e10, null, true, {"password": "p", "nested": {"k": [1, {}]}}]',
        b'{"a": 1}\n{"authorization": "Bearer abcdefghijkl"}\nnot json Bearer abcdefghijkl\n\n',  # JSON Lines
        b'{"a": 1}\r\n{"b": 2}\rlast',
        b'{"log": {"entries": [{"a": 1}, ',  # cut short
        b'{"log": {"entries": [1 2]}}',  # broken inside the walked levels
        b"[" * 5000 + b"]" * 5000,  # deeper than the decoder goes
        '\u2028{"k": "\u00e9\u4e2d"}\u2029'.encode(),
        b"\xff\xfe not UTF-8 at all",
    ],
)
def test_other_and_hostile_input_streams_to_the_same_bytes(data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "CHUNK", 5)
    assert streamed(data) == whole_document_redaction(data)


def test_a_header_pair_in_a_walked_object_is_redacted_whatever_its_order() -> None:
    for document in ({"log": {"value": "hunter2-secret", "entries": [], "name": "Authorization"}},
                     [{"value": "hunter2-secret", "name": "x-api-key", "other": "kept"}]):  # fmt: skip
        out = json.loads(streamed(json.dumps(document).encode()))
        assert "hunter2-secret" not in json.dumps(out)
        assert REDACTED in json.dumps(out)


def _big_har(entries: int, body_bytes: int) -> bytes:
    body = "x" * body_bytes
    return json.dumps({"log": {"version": "1.2", "creator": {"name": "test"}, "entries": [
        {"request": {"method": "POST", "url": f"https://api.example/v1/items/{n}?access_token=tok{n}",
                     "headers": [{"name": "Authorization", "value": CANARY}]},
         "response": {"status": 200, "content": {"text": body}}}
        for n in range(entries)]}}).encode()  # fmt: skip


def _peak_of(work: Any) -> int:
    tracemalloc.start()
    try:
        work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak


@pytest.mark.slow  # a HAR of many megabytes, redacted under tracemalloc: about 5 s
def test_a_huge_har_is_held_one_entry_at_a_time(tmp_path: Path) -> None:
    har = _big_har(entries=384, body_bytes=64 * 1024)  # about 24 MiB, one entry about 64 KiB
    recording = tmp_path / "rec.zip"
    with zipfile.ZipFile(recording, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("network.har", har)
    size = len(har)
    del har
    out = tmp_path / "out"
    peak = _peak_of(lambda: export_package(recording, TaskPackage(), out, redact_secrets=True))
    share = peak / size
    assert share < 0.2, f"redacting held {share:.2f} of the HAR's size"
    [package] = out.glob("*.task-package.zip")
    with zipfile.ZipFile(package) as archive, archive.open("network.har") as written:
        document = json.load(written)
    entries = document["log"]["entries"]
    assert len(entries) == 384
    assert {e["request"]["headers"][0]["value"] for e in entries} == {REDACTED}
    assert entries[7]["request"]["url"].endswith(f"access_token={REDACTED}")


def test_a_bare_har_streams_too(tmp_path: Path) -> None:
    har = _big_har(entries=96, body_bytes=64 * 1024)
    recording = tmp_path / "capture.har"
    recording.write_bytes(har)
    out = tmp_path / "out"
    peak = _peak_of(lambda: export_package(recording, TaskPackage(), out, redact_secrets=True))
    assert peak / len(har) < 0.5
    with zipfile.ZipFile(next(out.glob("*.task-package.zip"))) as archive:
        assert archive.read("capture.har") == whole_document_redaction(har)
