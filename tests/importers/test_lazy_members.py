"""A recording ZIP is read entry by entry: only the entries the importer parses are held; the
others (attachments, a HAR beside network.json, a second HAR) are checked as they stream past."""

from __future__ import annotations

import json
import os
import tracemalloc
import zipfile
from pathlib import Path

from rlauto_core.importers import import_path
from tests.conftest import EXAMPLES

MiB = 1024 * 1024


def unused_har(size: int) -> str:
    """A HAR document of about `size` bytes (one entry with a large body)."""
    body = os.urandom(size // 2).hex()
    return json.dumps({"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "https://x/a"},
                                                                 "response": {"status": 200, "content": {"text": body}}}]}})  # fmt: skip


def peak_of_import(path: Path) -> int:
    tracemalloc.start()
    try:
        recording = import_path(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert recording.http_calls  # network.json's calls were imported
    return peak


def test_a_har_beside_network_json_and_a_second_har_are_not_held(tmp_path: Path) -> None:
    source = zipfile.ZipFile(EXAMPLES / "issue_tracker.zip")  # task.json + network.json
    path = tmp_path / "rec.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as out:
        for info in source.infolist():
            out.writestr(info, source.read(info))
        out.writestr("a-extra.har", unused_har(12 * MiB))
        out.writestr("b-extra.har", unused_har(12 * MiB))
    recording = import_path(path)
    assert {f.name: f.role for f in recording.files}["a-extra.har"] == "har"  # listed, carried over
    share = peak_of_import(path) / (24 * MiB)
    assert share < 0.25, f"importing held {share:.2f} of the unused HARs' size"
