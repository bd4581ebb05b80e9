"""Import + evidence + rules on a ~100 MB recording, as ratios against `json.loads` of the same bytes.

Run: `python bench/bench_import.py [--requests 28000] [--repeat 3] [--deflate] [--profile]`.

It builds a recording ZIP (task.json + network.json with 20k+ requests with bodies) in a temp
dir, plus network.json as a plain sibling file. Every measurement runs in its own child process
(same interpreter, same imports done before the clock starts), so the baseline and the subject
are measured alike:
- time: perf_counter around the work only;
- peak memory: ru_maxrss after the work minus RSS before it (the kernel's own high-water mark,
  so no sampling gap), cross-checked by a 2 ms psutil sampling thread.
Baseline: `json.loads(Path("network.json").read_bytes())`. Subjects: `import_path` alone, and
`import_path` + `build_evidence` + `run_rules` (the default profile).
Targets (issue 2): time <= 3x the baseline, peak RSS <= 4x the file size.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SUBJECTS = ("json_loads", "import", "import_evidence_rules")


# ----------------------------------------------------------------------------- the recording


def _api_body(rng: random.Random, issue: int, size: int) -> str:
    """A JSON list response of roughly `size` bytes: issues with ids, titles, labels."""
    items = []
    total = 0
    while total < size:
        n = rng.randrange(1, 99_999)
        item = {
            "id": n,
            "number": issue,
            "title": f"Issue {n}: " + " ".join(rng.choice(WORDS) for _ in range(8)),
            "labels": [rng.choice(["bug", "ui", "perf", "docs"])],
            "assignee": {"id": f"u_{rng.randrange(1, 300)}", "login": rng.choice(WORDS)},
            "body": base64.b64encode(rng.randbytes(120)).decode(),
        }
        items.append(item)
        total += 330  # about the JSON size of one item; exact sizes do not matter here
    return json.dumps({"items": items, "total": len(items)})


WORDS = ["login", "redirect", "cache", "token", "retry", "render", "export", "sidebar", "search", "upload"]


def build_network(count: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    api = "https://api.tracker.example.com/v2"
    site = "https://tracker.example.com"
    auth = {"authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.bench.sig", "cookie": "tr_session=bench; theme=dark"}
    t0 = 1_778_075_232_000
    requests = []
    for i in range(count):
        kind = rng.random()
        issue = rng.randrange(1, 5000)
        request: dict[str, Any] = {
            "id": f"r{i + 1}",
            "startedAt": t0 + i * 40,
            "durationMs": rng.randrange(5, 400),
            "resourceType": "fetch",
            "requestHeaders": {"accept": "application/json", "user-agent": "Mozilla/5.0 bench", **auth},
            "requestBody": None,
            "responseHeaders": {"content-type": "application/json"},
            "pageUrl": f"{site}/projects/web/issues",
        }
        if kind < 0.45:  # list/read API call with a sizeable JSON body
            request |= {
                "method": "GET",
                "url": f"{api}/projects/web/issues?page={issue % 40}",
                "status": 200,
                "responseBody": _api_body(rng, issue, rng.randrange(3000, 7000)),
            }
        elif kind < 0.60:  # state-changing call
            method = rng.choice(["POST", "PATCH", "DELETE"])
            body = json.dumps({"title": " ".join(rng.choice(WORDS) for _ in range(12)), "labelIds": ["lbl_bug"]})
            request |= {
                "method": method,
                "url": f"{api}/projects/web/issues/{issue}",
                "status": rng.choice([200, 201, 409]),
                "requestHeaders": {**request["requestHeaders"], "content-type": "application/json"},
                "requestBody": body,
                "responseBody": _api_body(rng, issue, 1500),
            }
        elif kind < 0.80:  # static assets, some base64 images
            ext = rng.choice(["js", "css", "png", "woff2"])
            request |= {
                "method": "GET",
                "url": f"{site}/static/{ext}/asset{issue}.{ext}",
                "status": rng.choice([200, 304]),
                "resourceType": {"js": "script", "css": "stylesheet", "png": "image", "woff2": "font"}[ext],
                "responseHeaders": {"content-type": f"application/{ext}"},
            }
            if ext == "png":
                request |= {
                    "responseBody": base64.b64encode(rng.randbytes(3000)).decode(),
                    "responseBodyEncoding": "base64",
                }
        elif kind < 0.92:  # analytics beacons
            request |= {
                "method": "POST",
                "url": "https://www.google-analytics.com/g/collect?v=2&en=page_view",
                "status": 204,
                "resourceType": "ping",
                "requestBody": "en=page_view&dl=" + site,
            }
        else:  # preflights
            request |= {
                "method": "OPTIONS",
                "url": f"{api}/projects/web/issues/{issue}",
                "status": 204,
                "resourceType": "preflight",
            }
        requests.append(request)
    return {"version": 1, "requests": requests}


def build_recording(folder: Path, count: int, deflate: bool) -> tuple[Path, Path]:
    network = json.dumps(build_network(count)).encode("utf-8")
    task = json.dumps(
        {"metadata": {"recordingId": "rec_bench"}, "task": {"instruction": "bench", "networkRequests": ["r1"]}}
    ).encode()
    zip_path = folder / "bench_recording.zip"
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(zip_path, "w", compression=method, compresslevel=1 if deflate else None) as zf:
        zf.writestr("task.json", task)
        zf.writestr("network.json", network)
    json_path = folder / "network.json"
    json_path.write_bytes(network)
    return zip_path, json_path


# ----------------------------------------------------------------------------- child: one measurement


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(subject: str, zip_path: Path, json_path: Path, profile: bool) -> None:
    import psutil

    from rlauto_core.evidence import build_evidence
    from rlauto_core.importers import import_path
    from rlauto_core.rules import run_rules

    def work() -> Any:
        if subject == "json_loads":
            return json.loads(json_path.read_bytes())
        recording = import_path(zip_path, max_upload_mb=10_000)
        if subject == "import":
            return recording
        evidence = build_evidence(recording)
        return run_rules(recording, evidence)

    process = psutil.Process()
    peak_sampled = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak_sampled
        while not stop.is_set():
            peak_sampled = max(peak_sampled, process.memory_info().rss)
            time.sleep(0.002)

    before = _rss()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    if profile:
        import cProfile
        import io
        import pstats

        profiler = cProfile.Profile()
        start = time.perf_counter()
        result = profiler.runcall(work)
        elapsed = time.perf_counter() - start
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(18)
        sys.stderr.write(out.getvalue())
    else:
        start = time.perf_counter()
        result = work()
        elapsed = time.perf_counter() - start
    stop.set()
    sampler.join()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    del result
    print(json.dumps({"seconds": elapsed, "peak_delta": max(peak - before, 0), "sampled_delta": peak_sampled - before}))


def measure(subject: str, zip_path: Path, json_path: Path, profile: bool = False) -> dict[str, float]:
    command = [sys.executable, __file__, "--child", subject, str(zip_path), str(json_path)]
    if profile:
        command.append("--profile")
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=REPO)
    if profile:
        sys.stderr.write(f"\n--- profile of {subject}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


# ----------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=28_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--deflate", action="store_true", help="deflate the ZIP (default: stored)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of each subject")
    parser.add_argument("--child", nargs=3, metavar=("SUBJECT", "ZIP", "JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]), args.profile)
        return

    with tempfile.TemporaryDirectory(prefix="rlauto-bench-") as tmp:
        start = time.perf_counter()
        zip_path, json_path = build_recording(Path(tmp), args.requests, args.deflate)
        zip_mb, json_mb = zip_path.stat().st_size / 2**20, json_path.stat().st_size / 2**20
        print(
            f"recording: {args.requests} requests, ZIP {zip_mb:.1f} MiB, network.json {json_mb:.1f} MiB "
            f"({'deflated' if args.deflate else 'stored'}), built in {time.perf_counter() - start:.1f} s"
        )
        results: dict[str, list[dict[str, float]]] = {s: [] for s in SUBJECTS}
        for _ in range(args.repeat):  # interleaved, so load changes hit every subject alike
            for subject in SUBJECTS:
                results[subject].append(measure(subject, zip_path, json_path))
        if args.profile:
            for subject in SUBJECTS[1:]:
                measure(subject, zip_path, json_path, profile=True)

    base_time = statistics.median(r["seconds"] for r in results["json_loads"])
    base_mem = statistics.median(r["peak_delta"] for r in results["json_loads"])
    file_bytes = zip_mb * 2**20
    print(f"\n{'subject':<24}{'time s':>9}{'x json':>9}{'peak MiB':>10}{'x json':>9}{'x file':>9}{'sampled MiB':>13}")
    for subject in SUBJECTS:
        seconds = statistics.median(r["seconds"] for r in results[subject])
        peak = statistics.median(r["peak_delta"] for r in results[subject])
        sampled = statistics.median(r["sampled_delta"] for r in results[subject])
        print(
            f"{subject:<24}{seconds:>9.2f}{seconds / base_time:>9.2f}{peak / 2**20:>10.0f}"
            f"{peak / base_mem:>9.2f}{peak / file_bytes:>9.2f}{sampled / 2**20:>13.0f}"
        )
    full = results["import_evidence_rules"]
    time_ratio = statistics.median(r["seconds"] for r in full) / base_time
    rss_ratio = statistics.median(r["peak_delta"] for r in full) / file_bytes
    print(f"\ntarget time <= 3x json.loads: {time_ratio:.2f}x {'MET' if time_ratio <= 3 else 'MISSED'}")
    print(f"target peak RSS <= 4x file size: {rss_ratio:.2f}x {'MET' if rss_ratio <= 4 else 'MISSED'}")


if __name__ == "__main__":
    main()
