"""Peak memory of a batch of large recordings through the real `package-batch` flow.

Builds N recordings of about SIZE MB each in a temp folder (an API recording as a browser
extension writes it: `task.json`, a HAR whose static assets carry large base64 response bodies,
and a screen-recording attachment), then runs them through `flows.sdk.run_batch` on the
ephemeral Prefect at concurrency 8 (offline analyzer: memory, not the model, is measured). Each
scenario runs in a fresh child process whose resident memory, its children included (the
ephemeral Prefect server), is sampled by a thread every 50 ms. Prints, in one run:

- the baseline: the same process with Prefect imported and the ephemeral server up, no batch;
- one recording (the per-item cost), and the batch of N;
- each peak, its ratio to the batch's input size, and the batch's peak over the baseline.

The issue's bound: 8 recordings of 50 MB at concurrency 8 peak at most 1.5 GB.

    python bench/bench_memory.py [--recordings 8] [--size-mb 50] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "recordings" / "project_board_firefox.zip"
ASSET_BYTES = 2 * 1024 * 1024  # one static asset's body before base64 (a bundle, an image)
LIMIT_BYTES = 1.5 * 1024**3


def build_recording(path: Path, n: int, size_mb: int) -> None:
    """A recording of about `size_mb` MB: its HAR holds the example's calls plus static assets
    with base64 bodies (about 40% of the file), the rest is a screen-recording attachment."""
    source = zipfile.ZipFile(EXAMPLE)
    task = json.loads(source.read("task.json"))
    task["task"]["instruction"] += f" [bench-{n:02d}]"
    har = json.loads(source.read("capture.har"))
    target = size_mb * 1024 * 1024
    entries = har["log"]["entries"]
    template = entries[0]
    for k in range(max(1, int(target * 0.4 / (ASSET_BYTES * 1.34)))):
        body = base64.b64encode(os.urandom(ASSET_BYTES)).decode()
        entry = json.loads(json.dumps(template))
        entry["request"]["url"] = f"https://board.example.com/static/asset-{n}-{k}.js"
        entry["request"]["headers"] = [h for h in entry["request"]["headers"] if h["name"] != "Authorization"]
        entry["response"]["content"] = {"mimeType": "application/javascript", "size": ASSET_BYTES,
                                        "text": body, "encoding": "base64"}  # fmt: skip
        entry["_resourceType"] = "script"
        entries.append(entry)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("task.json", json.dumps(task, indent=2))
        out.writestr("capture.har", json.dumps(har))
    room = target - path.stat().st_size
    with zipfile.ZipFile(path, "a", zipfile.ZIP_STORED) as out, out.open("screen-recording.webm", "w") as video:
        while room > 0:
            chunk = os.urandom(min(room, 1024 * 1024))
            video.write(chunk)
            room -= len(chunk)


def rss_tree(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            continue
    return total


class PeakSampler:
    def __init__(self) -> None:
        self.proc, self.peak, self._stop = psutil.Process(), 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_tree(self.proc))
            self._stop.wait(0.05)


def child(files: list[str], concurrency: int, storage_url: str) -> None:
    """One scenario in this fresh process: prints a JSON line with its peaks."""
    from flows import runtime

    with PeakSampler() as sampler:
        runtime.configure()
        from flows.sdk import run_batch
        from rlauto_core.config import RunOptions

        idle = 0
        if not files:  # the baseline: Prefect imported, the ephemeral server started, nothing packaged
            from prefect.client.orchestration import get_client

            with get_client(sync_client=True) as client:
                client.hello()
            time.sleep(2)
            idle = sampler.peak
        else:
            batch = run_batch(files, RunOptions(offline=True), concurrency, storage_url=storage_url)
            assert all(i.status == "completed" for i in batch.items), [i.error for i in batch.items]
            assert batch.all_results_path is not None
    print(json.dumps({"peak": sampler.peak, "idle": idle}))


def run_child(files: list[Path], concurrency: int, tmp: Path, name: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PREFECT_HOME": str(tmp / f"home-{name}"),
           "PREFECT_API_URL": "", "PREFECT_LOGGING_LEVEL": "WARNING", "DEFAULT_API_KEY": ""}  # fmt: skip
    env.pop("PREFECT_API_URL")
    storage = (tmp / f"store-{name}").as_uri()
    args = [sys.executable, __file__, "--child", "--concurrency", str(concurrency), "--storage", storage,
            *[str(f) for f in files]]  # fmt: skip
    done = subprocess.run(args, env=env, cwd=tmp, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr[-3000:]}")
    line = [x for x in done.stdout.splitlines() if x.startswith("{")][-1]
    return int(json.loads(line)["peak"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recordings", type=int, default=8)
    parser.add_argument("--size-mb", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--storage", default="")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.child:
        child(args.files, args.concurrency, args.storage)
        return
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as name:
        tmp = Path(name)
        folder = tmp / "in"
        folder.mkdir()
        files = [folder / f"big-{n:02d}.zip" for n in range(args.recordings)]
        for n, path in enumerate(files):
            build_recording(path, n, args.size_mb)
        total = sum(p.stat().st_size for p in files)
        mb = 1024 * 1024
        print(f"{len(files)} recordings, {total / mb:.0f} MB in all, concurrency {args.concurrency}")
        base = run_child([], args.concurrency, tmp, "idle")
        one = run_child(files[:1], args.concurrency, tmp, "one")
        batch = run_child(files, args.concurrency, tmp, "batch")
        print(f"baseline (Prefect up, no batch): peak RSS {base / mb:7.0f} MB")
        print(
            f"1 recording:                     peak RSS {one / mb:7.0f} MB  ({(one - base) / mb:.0f} MB over baseline)"
        )
        print(f"{len(files)} recordings:                    peak RSS {batch / mb:7.0f} MB  "
              f"({(batch - base) / mb:.0f} MB over baseline)")  # fmt: skip
        print(f"batch peak / input size: {batch / total:.2f}; (batch - baseline) / input: {(batch - base) / total:.2f}")
        print(f"batch peak / 1.5 GB bound: {batch / LIMIT_BYTES:.2f} ({'within' if batch <= LIMIT_BYTES else 'OVER'})")


if __name__ == "__main__":
    main()
