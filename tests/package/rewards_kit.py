"""What the rewards corpora (issue 28) add to tests/package/corpus_kit.py: each recording's ground
truth of writes, and GraphQL helpers.

The simulators know what each call of a recording really did, which the analyzer has to find out:
`Truth` lists every state-changing call the recorded script sent, with what it is: `required` (a
write the task is about: a rubric must check it), or one of a closed list of reasons a reward may
leave it out (`failed`: the protocol said no, inside a 2xx or not; `ui_state`: a preference or a
"seen" marker; `side_call`: telemetry on another host; `noise`: a heartbeat). The generator writes it beside the
recordings as `truth/<app>.json`; bench/bench_rewards_writes.py compares it with what the package
checks ("the recording made three writes, the package checks two").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.package.corpus_kit import write_corpus

REASONS = ("required", "failed", "ui_state", "side_call", "noise")


@dataclass
class Truth:
    """The writes of one run, in call order: (call id, what it did, reason)."""

    writes: list[dict[str, str]] = field(default_factory=list)

    def add(self, call: str, what: str, reason: str = "required") -> None:
        assert reason in REASONS, reason
        self.writes.append({"call": call, "what": what, "reason": reason})

    def document(self, instruction: str) -> dict[str, Any]:
        successful = [w for w in self.writes if w["reason"] != "failed"]
        return {
            "instruction": instruction,
            "successful_writes": len(successful),
            "required_writes": sum(w["reason"] == "required" for w in self.writes),
            "writes": self.writes,
        }


def hexid(seed: str, size: int = 24) -> str:
    """A deterministic hex id (Trello's 24-hex object ids, hashes, request ids)."""
    out = ""
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(f"{seed}/{counter}".encode()).hexdigest()
        counter += 1
    return out[:size]


def uuid_from(seed: str) -> str:
    """A deterministic UUID v4-shaped id."""
    h = hexid(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def gql(query: str, variables: dict[str, Any] | None = None, operation: str | None = None) -> dict[str, Any]:
    """One GraphQL request body as Apollo and urql send it."""
    body: dict[str, Any] = {}
    if operation is not None:
        body["operationName"] = operation
    body["variables"] = variables or {}
    body["query"] = query
    return body


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


App = Callable[[], tuple[bytes, dict[str, bytes], dict[str, Any]]]


def corpus_files(root: Path, apps: dict[str, App]) -> dict[Path, bytes]:
    """Every app's recording, attempts and `truth/<app>.json`."""
    out: dict[Path, bytes] = {}
    for name, build in apps.items():
        recording, attempts, truth = build()
        out.update(write_corpus(root, name, recording, attempts))
        out[root / "truth" / f"{name}.json"] = (json.dumps(truth, indent=1, ensure_ascii=False) + "\n").encode()
    return out
