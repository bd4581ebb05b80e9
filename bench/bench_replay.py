"""Replay environments: the overhead of one step against a stateless replay of the same answers,
and an eval over the example packages with the scripted model (no Prefect, then through the flow).

    python bench/bench_replay.py [--rounds 30] [--flow] [--batches]

Per step: every example's golden trajectory played through `ReplayEnv.step` (match the exchange,
fresh ids, render the answer, log the call) against the baseline a cassette tool pays: a dict
lookup of the recorded answer by call, serialised as JSON. Target: <= 5 ms a step.

`--batches`: a batched GraphQL POST and a `_bulk` (the rewards corpus's linear_gql and es_bulk
recordings as their clients sent them) against the same calls sent one by one, in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rlauto_core.config import RunOptions  # noqa: E402
from rlauto_core.importers import import_path  # noqa: E402
from rlauto_core.package import export_package  # noqa: E402
from rlauto_core.recording import Call  # noqa: E402
from rlauto_core.replay import (  # noqa: E402
    ReplayEnv,
    Replayer,
    ScriptedPackageModel,
    golden_calls,
    open_env,
    run_episode,
)
from tests.package.offline import package_offline  # noqa: E402
from tests.replay.helpers import BATCH_CORPUS, sent_calls  # noqa: E402


def packages(out: Path) -> list[Path]:
    found = []
    sources = sorted(
        [*(ROOT / "examples" / "recordings").glob("*.zip"), *(ROOT / "examples" / "captures").glob("*.har")]
    )
    for source in sources:
        done = package_offline(source, RunOptions(), out)
        assert done.package is not None
        found.append(
            done.package_path or export_package(source, done.package, out, root_prefix=import_path(source).root_prefix)
        )
    return found


def _timed(env: ReplayEnv, calls: list[Call], rounds: int, picked: set[str]) -> list[float]:
    """ms of each step whose recorded call is one of `picked` (ids), over `rounds` sessions."""
    found: list[float] = []
    for _ in range(rounds):
        env.reset()
        replayer = Replayer(calls)
        for index, recorded in enumerate(calls):
            call = replayer.call(index)
            started = time.perf_counter()
            answer = env.step(call)
            if recorded.id in picked:
                found.append((time.perf_counter() - started) * 1000)
            replayer.learn(index, answer)
        env.close()
    return found


def batch_figures(out: Path, rounds: int) -> None:
    """A request carrying several calls against its calls sent alone: ms per call, and the ratio."""
    for app, source in BATCH_CORPUS.items():
        done = package_offline(source, RunOptions(), out)
        assert done.package_path is not None
        env = open_env(done.package_path)
        whole: list[Call] = list(sent_calls(source))
        alone = import_path(source).calls  # the recording split on import: each part its own call
        parts = {c.id for c in alone if "bulk" in c.extra or "graphqlBatch" in c.extra}
        batches = {c.id for c in whole if c.path.endswith("/_bulk") or (c.request_body or "").startswith("[")}
        joined = _timed(env, whole, rounds, batches)
        single = _timed(env, alone, rounds, parts)
        per_joined = sum(joined) / (rounds * len(parts))
        per_single = statistics.mean(single)
        print(f"{app}: {len(batches)} request(s) carrying {len(parts)} calls: {per_joined:.3f} ms a call joined, "
              f"{per_single:.3f} ms sent alone; ratio {per_joined / per_single:.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--flow", action="store_true", help="also run the eval through the eval-agent flow")
    parser.add_argument("--batches", action="store_true", help="also time batched requests against their calls")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        if args.batches:
            batch_figures(Path(scratch), args.rounds)
        paths = packages(Path(scratch))
        envs = [open_env(p) for p in paths]
        step_ms: list[float] = []
        base_ms: list[float] = []
        for env in envs:
            golden = golden_calls(
                env.environment.world.recording, [s.call_id for s in env.environment.package.golden_trajectory]
            )
            cassette = {c.id: c for c in golden}
            for _ in range(args.rounds):
                env.reset()
                replayer = Replayer(golden)
                for index in range(len(golden)):
                    call = replayer.call(index)
                    started = time.perf_counter()
                    answer = env.step(call)
                    step_ms.append((time.perf_counter() - started) * 1000)
                    replayer.learn(index, answer)
                    started = time.perf_counter()
                    recorded = cassette[golden[index].id]
                    json.dumps(recorded.model_dump(include={"status", "response_body", "result"}))
                    base_ms.append((time.perf_counter() - started) * 1000)
                env.close()
        median, p95 = statistics.median(step_ms), sorted(step_ms)[int(len(step_ms) * 0.95)]
        base = statistics.median(base_ms)
        print(f"steps: {len(step_ms)} over {len(envs)} packages x {args.rounds} sessions")
        print(f"replay step: median {median:.3f} ms, p95 {p95:.3f} ms  (target <= 5 ms)")
        print(f"baseline (stateless cassette lookup): median {base:.4f} ms; ratio {median / base:.0f}x")
        started = time.perf_counter()
        rewards = []
        for path in paths:
            env = open_env(path)
            package = env.environment.package
            model = ScriptedPackageModel(
                package, golden_calls(env.environment.world.recording, [s.call_id for s in package.golden_trajectory])
            )
            rewards.append(run_episode(env, model).reward.passed)
        elapsed = time.perf_counter() - started
        print(
            f"eval, scripted model, {len(paths)} packages in process: {elapsed:.2f} s, success rate {sum(rewards)}/{len(rewards)}"
        )
        if args.flow:
            from flows import runtime

            runtime.configure()
            from flows.evals import eval_agent

            started = time.perf_counter()
            outcome = eval_agent([str(p) for p in paths], "scripted", storage_url=(Path(scratch) / "store").as_uri())
            print(f"eval through the eval-agent flow: {time.perf_counter() - started:.2f} s, "
                  f"success rate {outcome.summary['success_rate']:.0%}")  # fmt: skip


if __name__ == "__main__":
    main()
