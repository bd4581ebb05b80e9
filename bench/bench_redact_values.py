"""Redaction by value: what finding a recording's secrets and removing them everywhere costs, as
ratios against the same work by the rules alone, measured in this process, interleaved.

Run: `python bench/bench_redact_values.py [--requests 6000] [--repeat 3]`.

The recording is bench_import's (list reads with 3-7 KB JSON bodies, writes, assets, beacons,
preflights), with a real session cookie and a fresh CSRF token on every write, so the number of
secret values grows with the recording (about 900 at 6,000 requests; each is searched in five
spellings). Subjects, each against its baseline:
- evidence: `slim_evidence` + `full_evidence` (the search included) vs the same views with no
  value known (the rules alone);
- item: the offline `run_item` (import done; evidence, rules, package, self-check, validator:
  everything the search and the removal touch) vs the same with no value known;
- export: `find_secrets` + `redact_stream(..., secrets)` of network.json vs `redact_stream`
  (the rules alone, what `--redact-secrets` did before).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import string
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.bench_import import build_network  # noqa: E402
from rlauto_core.config import RunOptions  # noqa: E402
from rlauto_core.evidence import build_evidence, full_evidence, slim_evidence  # noqa: E402
from rlauto_core.evidence import views as evidence_views  # noqa: E402
from rlauto_core.importers import import_path  # noqa: E402
from rlauto_core.package.redact_stream import find_secrets, redact_stream  # noqa: E402
from rlauto_core.pipeline import analysis_for, loop, run_item  # noqa: E402
from rlauto_core.secret_values import SecretValues, recorded_secrets  # noqa: E402


def _token(rng: random.Random, size: int = 32) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))


def build(folder: Path, count: int) -> tuple[Path, bytes]:
    rng = random.Random(11)
    network = build_network(count)
    session = _token(rng)
    for request in network["requests"]:
        headers = request["requestHeaders"]
        headers["cookie"] = f"tr_session={session}; theme=dark"
        if request["method"] in ("POST", "PATCH", "DELETE"):
            headers["x-csrf-token"] = _token(rng)
    data = json.dumps(network).encode()
    path = folder / "bench_secrets.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("task.json", json.dumps({"task": {"instruction": "bench", "networkRequests": ["r1"]}}))
        archive.writestr("network.json", data)
    return path, data


@contextmanager
def rules_alone() -> Any:
    """The evidence views and the item loop with no secret value known: what they cost before."""
    saved = evidence_views.recorded_secrets
    evidence_views.recorded_secrets = loop.recorded_secrets = lambda _recording: SecretValues()  # type: ignore[assignment]
    try:
        yield
    finally:
        evidence_views.recorded_secrets = loop.recorded_secrets = saved  # type: ignore[assignment]


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, data = build(Path(tmp), args.requests)
        recording = import_path(path)
        evidence = build_evidence(recording)
        found = recorded_secrets(recording)
        print(f"{args.requests} requests, network.json {len(data) / 2**20:.1f} MiB, {len(found)} secret spellings")

        def views() -> None:
            recorded_secrets.__globals__["_FOUND"].clear()  # the search is paid each time, as once per item
            slim_evidence(recording, evidence)
            full_evidence(recording, evidence)

        def views_rules() -> None:
            with rules_alone():
                slim_evidence(recording, evidence)
                full_evidence(recording, evidence)

        options = RunOptions()

        def item() -> None:
            recorded_secrets.__globals__["_FOUND"].clear()
            run_item(recording, options, *analysis_for(None, options))

        def item_rules() -> None:
            with rules_alone():
                run_item(recording, options, *analysis_for(None, options))

        def opener() -> io.BytesIO:
            return io.BytesIO(data)

        def export_values() -> None:
            redact_stream(opener, io.BytesIO(), find_secrets(opener))

        def export_rules() -> None:
            redact_stream(opener, io.BytesIO())

        pairs = {
            "evidence views": (views_rules, views),
            "item (offline run_item)": (item_rules, item),
            "export (--redact-secrets)": (export_rules, export_values),
        }
        for name, (baseline, subject) in pairs.items():
            base, new = [], []
            for _ in range(args.repeat):
                base.append(timed(baseline))
                new.append(timed(subject))
            b, n = statistics.median(base), statistics.median(new)
            print(f"{name}: rules alone {b:.2f} s, with values {n:.2f} s, ratio {n / b:.2f}")


if __name__ == "__main__":
    main()
