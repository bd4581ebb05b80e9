"""Huge captures in the new layouts import whole: 100k-line client logs and SDK logs give every
call, and the evidence and rules run on them (the order rule was quadratic before)."""

from __future__ import annotations

import pytest

from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.rules import run_rules
from tests.importers.mcp_samples import claude_line, jsonl, sdk_records

CALLS = 50_000  # two lines each


def _client_log() -> bytes:
    lines = []
    for n in range(CALLS):
        tool = "notes_create" if n % 2 else "notes_list"
        request = {"method": "tools/call", "params": {"name": tool, "arguments": {"title": f"t{n}"}}, "jsonrpc": "2.0"}
        lines.append(claude_line("2025-01-01T10:00:00.000Z", "notes", "client", {**request, "id": n}))
        answer = {"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": f"N{n}"}]}}
        lines.append(claude_line("2025-01-01T10:00:00.010Z", "notes", "server", answer))
    return "\n".join(lines).encode()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["client log", "sdk records"])
def test_100k_lines(kind: str) -> None:
    if kind == "client log":
        recording = import_bytes(_client_log(), "mcp-server-notes.log")
    else:
        records = sdk_records(*[("read_file", {"path": f"f{n}"}, "x") for n in range(CALLS)])
        recording = import_bytes(jsonl(records), "session.jsonl")
    assert len(recording.calls) == CALLS
    assert recording.calls[-1].id == ("49999" if kind == "client log" else str(CALLS + 2))
    assert all(c.answered for c in recording.calls)
    evidence = build_evidence(recording)
    run_rules(recording, evidence)
    assert len(evidence.calls) == CALLS
