"""Orchestration overhead: `package_batch` against a plain asyncio loop over the same core calls.

Both sides package the same recordings against the same fake model server (fixed latency per
answer), in one run, interleaved: baseline, pipeline, floor, `--pairs` times (3), so a change of
the machine's load reaches all three alike; the medians are the figures. The baseline works
`--concurrency` recordings at once; the pipeline and the floor run with the same two limits:
`--concurrency` model calls in flight and `--items-in-flight` recordings at once (default twice
the model calls).

Prefect's floor, on the same server in the same run: a batch flow with the same number of named
child flow runs, each running as many task runs as a packaged item does (counted on the server)
and waiting as long as the item's model calls, each wait holding a slot of the same model-call
limit. `package_batch / floor` is what the pipeline adds on top of Prefect itself.

It also counts the Prefect API requests per item, by endpoint, on a separate batch (counts do
not depend on the machine's load), and the re-run ratio (0 model calls: every item reused).

`--offline-embedded N` instead packages N recordings offline on the embedded default (Prefect's
temporary server on SQLite, no PREFECT_API_URL), in a child process, and prints the failed
items and the orchestration seconds per item (the batch's time less the same core calls').

    python -m bench.bench_orchestration [--recordings 40] [--latency 2.0] [--concurrency 8]
        [--items-in-flight N] [--pairs 3] [--sqlite]
    python -m bench.bench_orchestration --offline-embedded 200

The Prefect server runs on the machine's PostgreSQL (a fresh database, dropped after) unless --sqlite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.api_requests import counting_api_requests
from rlauto_core.config import RunOptions, Settings, default_items_in_flight
from rlauto_core.evidence import build_evidence
from rlauto_core.importers import import_bytes
from rlauto_core.llm import open_clients
from rlauto_core.pipeline import analysis_for, run_item
from rlauto_core.rules import run_rules
from tests.fakes.llm_scripts import faithful_analyzer, judge_answer
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest
from tests.orchestration.conftest import model_env
from tests.orchestration.recordings import write_variants
from tests.servers import prefect_env, prefect_server


def slow(step: Any, latency: float) -> Any:
    def answer(request: RecordedRequest) -> dict[str, Any]:
        out = step(request) if callable(step) else dict(step)
        return {**out, "delay": latency}

    return answer


def baseline(files: list[Path], concurrency: int, options: RunOptions | None = None) -> float:
    """The same core calls, no orchestration: asyncio + threads, `concurrency` recordings at once."""
    settings, options = Settings(), options or RunOptions()

    def one(path: Path) -> bool:
        recording = import_bytes(path.read_bytes(), path.name)
        evidence = build_evidence(recording)
        flags = run_rules(recording, evidence, options.rule_profile)
        with open_clients(settings, options) as clients:
            analyzer, judge = analysis_for(clients, options)
            return run_item(recording, options, analyzer, judge, evidence=evidence, flags=flags).outcome.passed

    async def main() -> list[bool]:
        gate = asyncio.Semaphore(concurrency)
        # as many threads as items at once (the default executor has only cores + 4)
        threads = ThreadPoolExecutor(max_workers=concurrency)

        async def guarded(path: Path) -> bool:
            async with gate:
                return await asyncio.get_running_loop().run_in_executor(threads, one, path)

        try:
            return await asyncio.gather(*(guarded(p) for p in files))
        finally:
            threads.shutdown()

    started = time.perf_counter()
    passed = asyncio.run(main())
    assert all(passed), "baseline: every recording should pass"
    return time.perf_counter() - started


def orchestrated(
    files: list[Path], concurrency: int, items_in_flight: int, storage_url: str, options: RunOptions | None = None
) -> tuple[float, int]:
    from flows.pipeline import package_batch

    started = time.perf_counter()
    batch = asyncio.run(package_batch([str(p) for p in files], options or RunOptions(), concurrency, None,
                                      storage_url, None, items_in_flight))  # fmt: skip
    elapsed = time.perf_counter() - started
    assert len(batch.completed) == len(files), [i.error for i in batch.items if i.status != "completed"][:3]
    return elapsed, sum(i.reused for i in batch.items)


def task_runs_per_item(name: str) -> int:
    """How many task runs one recording's item flow run made (what the floor must run too)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId, FlowRunFilterName

    with get_client(sync_client=True) as client:
        [run] = client.read_flow_runs(flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[name])))
        return len(client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id]))))


def floor(count: int, tasks_per_item: int, calls: int, latency: float, concurrency: int, in_flight: int) -> float:
    """Prefect alone: `count` child flow runs of `tasks_per_item` no-op task runs and `calls`
    waits of `latency`, each holding one of `concurrency` model-call slots; `in_flight` at once."""
    from prefect import flow, task
    from prefect.cache_policies import NONE

    from flows.control import in_item_thread

    slots = threading.BoundedSemaphore(concurrency)

    @task(name="floor-step", cache_policy=NONE, persist_result=False)
    def step(n: int) -> int:
        return n

    def body() -> None:
        for n in range(tasks_per_item):
            step(n)
        for _ in range(calls):
            with slots:
                time.sleep(latency)

    # named runs, as the pipeline's must be (one run per recording, named after its file)
    @flow(name="floor-item", flow_run_name="rec-{n}", persist_result=False)
    async def item(n: int) -> int:
        await in_item_thread(body)
        return n

    @flow(name="floor-batch", persist_result=False)
    async def batch() -> None:
        gate = asyncio.Semaphore(in_flight)

        async def one(n: int) -> None:
            async with gate:
                await item(n)

        await asyncio.gather(*(one(n) for n in range(count)))

    started = time.perf_counter()
    asyncio.run(batch())
    return time.perf_counter() - started


def requests_per_item(files: list[Path], concurrency: int, in_flight: int, storage_url: str, api_url: str) -> None:
    with counting_api_requests(api_url) as counts:
        orchestrated(files, concurrency, in_flight, storage_url)
    total = sum(counts.values())
    print(f"Prefect API requests, {len(files)} items ({total} in all), per item by endpoint:")
    for name, n in counts.most_common():
        print(f"  {n / len(files):6.2f}  {name}")
    print(f"requests per item: {total / len(files):.1f}")


def offline_embedded(count: int) -> None:
    """N recordings offline through the SDK on the embedded default, in a fresh child process."""
    with tempfile.TemporaryDirectory(prefix="rlauto-bench-embedded-") as tmp:
        root = Path(tmp)
        files = write_variants(root / "in", count)
        base = baseline(files, 8, RunOptions(offline=True))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API_")}
        env.update({"MAX_BATCH_FILES": str(count), "PREFECT_HOME": str(root / "prefect-home"),
                    "RLAUTO_DATA_DIR": str(root / "data")})  # fmt: skip
        code = (
            "import json, sys, time\n"
            "from flows.sdk import run_batch\n"
            "from rlauto_core.config import RunOptions\n"
            "files, store = json.loads(sys.argv[1]), sys.argv[2]\n"
            "run_batch(files[:2], RunOptions(offline=True), 8, storage_url=store + '-warm')\n"
            "started = time.perf_counter()\n"
            "batch = run_batch(files, RunOptions(offline=True), 8, storage_url=store)\n"
            "print(json.dumps({'seconds': time.perf_counter() - started,\n"
            "                  'failed': [f'{i.source_name}: {i.error}' for i in batch.items if not i.passed]}))\n"
        )
        args = [sys.executable, "-c", code, json.dumps([str(f) for f in files]), (root / "store").as_uri()]
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=3600, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the embedded batch died (exit {done.returncode}):\n{done.stderr[-3000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"offline on the embedded default: {count} recordings, concurrency 8")
    print(f"baseline asyncio (same core calls): {base:.1f} s; package_batch: {result['seconds']:.1f} s")
    print(f"failed items: {len(result['failed'])}", *result["failed"][:5], sep="\n  ")
    print(f"orchestration seconds per item offline: {(result['seconds'] - base) / count:.2f} (target <= 0.5)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--recordings", type=int, default=40)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--concurrency", type=int, default=8, help="model calls in flight")
    parser.add_argument("--items-in-flight", type=int, default=None, help="default: twice --concurrency")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--offline-embedded", type=int, default=0, metavar="N")
    # SQLite answered 503 under 8 concurrent items on a loaded 2-core machine; PostgreSQL did not
    parser.add_argument("--sqlite", dest="postgres", action="store_false", help="Prefect server on SQLite")
    args = parser.parse_args()
    if args.offline_embedded:
        offline_embedded(args.offline_embedded)
        return
    in_flight = args.items_in_flight or default_items_in_flight(args.concurrency)
    with tempfile.TemporaryDirectory(prefix="rlauto-bench-") as tmp, FakeLlmServer() as fake:
        root = Path(tmp)
        files = write_variants(root / "in", args.recordings)
        fake.script("analyzer", slow(faithful_analyzer(), args.latency))
        fake.script("judge", slow(judge_answer(), args.latency))
        os.environ.update(model_env(fake))
        os.environ["MAX_BATCH_FILES"] = str(max(args.recordings, 20))
        database = f"rlauto_bench_{uuid.uuid4().hex[:8]}" if args.postgres else None
        if database:
            subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", database], check=True)
        url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database}" if database else None
        started = time.perf_counter()
        with prefect_server(root / "prefect", database_url=url) as api_url:
            print(f"prefect server start-up (excluded): {time.perf_counter() - started:.1f} s")
            os.environ.update(prefect_env(api_url, root / "prefect"))
            # one small batch of other recordings first: the process's first flow, task and model
            # call pay one-time costs (imports, the server's flow and task upserts) that a
            # long-lived worker pays once, not per batch; printed, excluded like the server start-up
            warm = write_variants(root / "warm", args.concurrency, start=args.recordings)
            warm_up, _ = orchestrated(warm, args.concurrency, in_flight, (root / "warm-store").as_uri())
            print(f"warm-up batch of {len(warm)} other recordings (excluded): {warm_up:.1f} s")
            counted = write_variants(root / "counted", args.concurrency, start=args.recordings + args.concurrency)
            requests_per_item(counted, args.concurrency, in_flight, (root / "count-store").as_uri(), api_url)
            tasks_per_item = task_runs_per_item(counted[0].name)
            fake.reset()
            base_times, pipe_times, floor_times = [], [], []
            calls = 0
            for pair in range(args.pairs):
                base_times.append(baseline(files, args.concurrency))
                calls = len(fake.requests()) // len(files)
                fake.reset()
                store = (root / f"store-{pair}").as_uri()
                pipe_times.append(orchestrated(files, args.concurrency, in_flight, store)[0])
                fake.reset()
                floor_times.append(floor(len(files), tasks_per_item, calls, args.latency, args.concurrency, in_flight))
                print(f"pair {pair + 1}: baseline {base_times[-1]:.1f} s, package_batch {pipe_times[-1]:.1f} s, "
                      f"floor {floor_times[-1]:.1f} s", flush=True)  # fmt: skip
            again, reused = orchestrated(files, args.concurrency, in_flight, (root / "store-0").as_uri())
            again_calls = len(fake.requests())
        if database:
            subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--force", database], check=False)
    base, first, least = (statistics.median(t) for t in (base_times, pipe_times, floor_times))
    print(f"recordings={args.recordings} latency={args.latency}s model calls in flight={args.concurrency} "
          f"items in flight={in_flight} pairs={args.pairs} (medians below)")  # fmt: skip
    print(f"baseline asyncio: {base:.1f} s ({calls} model calls per recording)")
    print(f"package_batch:    {first:.1f} s")
    print(f"ratio package_batch / baseline: {first / base:.2f} (target <= 1.15 at 2.0 s, <= 2.0 at 0.3 s)")
    print(f"prefect floor: {least:.1f} s ({len(files)} child flow runs x {tasks_per_item} no-op task runs + the same "
          f"model waits, same two limits), {least / base:.2f} x baseline; package_batch / floor: {first / least:.2f}")  # fmt: skip
    print(f"re-run: {again:.1f} s, {again_calls} model calls, {reused} items reused")
    print(f"re-run ratio: {again / first:.2f} of the first run (target <= 0.10)")


if __name__ == "__main__":
    main()
