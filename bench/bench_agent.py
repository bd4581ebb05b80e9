"""Agent loop benchmark: the loop's own time per step, and the size of each screenshot sent.

A run on the real fakes (the fake model server answering every call after `--latency` seconds,
the fake ADB server's notes app behind the real uiautomator2 client, storage on a local disk):
each model round taps or goes back, so every round is one model call, one tool call and the
fresh screenshot the loop attaches after a state change. Per round, from the run's own events:

    round = from the start of one model call to the start of the next
    model = the model call (request, the fake's latency, the streamed answer)
    tools = the tool calls (phone RPCs through uiautomator2)
    own   = round - model - tools   (building the request, scaling and storing screenshots,
                                     the event log, the step log, the state)

Prints own / round (target: at most 10% at 1 s model latency) and the screenshots sent to the
model against the cap (target: at most 200 KB by default), with the phone's raw screenshot.

With `--suite`: the eval's overhead per task beside the agent's own time, on the shipped demo
suite with the scripted model (answering after `--latency` seconds) on the demo phone, in one
process. Per task, the agent = `AgentLoop.start` alone (the baseline); the eval in-process =
the reset, the checks and the record with its index row around it (`run_task` + `save_record`);
the eval through Prefect = the `eval-agent-suite` flow on a local Prefect server (SQLite), a
subflow run per task: its wall time per task minus the agent's.

Run: python bench/bench_agent.py [--latency 1.0] [--rounds 20]
     python bench/bench_agent.py --suite [--latency 0.0]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from itertools import count
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import adbutils
from pydantic import SecretStr

from device_flows.demo import DemoAdbServer, DemoPhone, Home, ScriptedModel, demo_phone
from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.events import EventLog, ModelCalled, ToolCalled
from rlauto_core.agent.run import AgentLoop, AgentSettings
from rlauto_core.agent.suite import EvalSetup, EvalStore, LoopParts, load_suite, run_task
from rlauto_core.llm import RetryPolicy, ToolCallingClient
from rlauto_core.store.storage import open_storage
from tests.fakes.llm_requests import RecordedRequest
from tests.fakes.llm_server import FakeLlmServer


def _script(rounds: int, latency: float) -> Any:
    turns = count()

    def model(request: RecordedRequest) -> dict[str, Any]:
        n = next(turns)
        if n == 0:
            calls = [{"name": "app_start", "arguments": {"package": "com.example.notes"}}]
        elif n > rounds:
            calls = [
                {
                    "name": "report_task",
                    "arguments": {"kind": "completion", "summary": "done", "checked": ["x"], "evidence": ["y"]},
                }
            ]
        elif n % 2:
            calls = [{"name": "tap", "arguments": {"text": "New note"}}]
        else:
            calls = [{"name": "press_key", "arguments": {"key": "back"}}]
        return {"delay": latency, "tool_calls": calls, "text": ""}

    return model


def _rounds(events: list[Any]) -> list[tuple[float, float, float]]:
    """(round, model, tools) seconds per complete round."""
    starts: list[tuple[float, float]] = []
    tools: list[float] = []
    for event in events:
        if isinstance(event, ModelCalled):
            starts.append((event.at.timestamp() - event.duration_s, event.duration_s))
            tools.append(0.0)
        elif isinstance(event, ToolCalled) and tools:
            tools[-1] += event.duration_s
    return [
        (starts[i + 1][0] - starts[i][0], starts[i][1], tools[i])
        for i in range(1, len(starts) - 1)  # the first round holds the app start, the last the report
    ]


def _image_sizes(requests: list[RecordedRequest]) -> list[int]:
    sizes = []
    for request in requests:
        for message in request.messages():
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if part.get("type") == "image_url":
                    sizes.append(len(base64.b64decode(part["image_url"]["url"].split(",", 1)[1])))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds the fake model takes per answer")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--suite", action="store_true", help="the eval's overhead per task (the demo suite)")
    args = parser.parse_args()
    if args.suite:
        bench_suite(args.latency)
        return
    home = Home()
    with (
        FakeLlmServer() as fake,
        DemoAdbServer([DemoPhone("bench-1", home=home)]) as adb,
        tempfile.TemporaryDirectory() as root,
    ):
        fake.script("agent", _script(args.rounds, args.latency))
        settings = AgentSettings(
            _env_file=None,
            base_url=fake.base_url(),
            model="agent",
            api_key=SecretStr("sk-bench"),
        )
        storage = open_storage(Path(root).as_uri())
        client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
        log = EventLog(storage, "bench-run")
        with ToolCallingClient(settings.endpoint(), retry=RetryPolicy(max_attempts=2)) as model:
            loop = AgentLoop(
                model=model,
                phone=U2Phone("bench-1", client),
                devices=AdbDirectory(client),
                storage=storage,
                sink=log,
                settings=settings,
            )
            result = loop.start("bench-run", "Open and close the editor")
        assert result.outcome == "completed", result
        rounds = _rounds([logged.event for logged in log.read(0)])
        images = _image_sizes(fake.requests("agent"))
        raw = len(home.render())
    own = [r - m - t for r, m, t in rounds]
    step = statistics.mean(r for r, _, _ in rounds)
    print(f"rounds measured: {len(rounds)} (model latency {args.latency:.2f} s)")
    print(f"round (step) time:  mean {step * 1000:7.1f} ms")
    print(f"model call:         mean {statistics.mean(m for _, m, _ in rounds) * 1000:7.1f} ms")
    print(f"tool calls:         mean {statistics.mean(t for _, _, t in rounds) * 1000:7.1f} ms")
    print(f"loop's own time:    mean {statistics.mean(own) * 1000:7.1f} ms, max {max(own) * 1000:.1f} ms")
    print(f"own / step:         {statistics.mean(own) / step:.1%} (target <= 10%)")
    cap = settings.screenshot_max_bytes
    print(
        f"screenshots sent:   {len(images)}, max {max(images) / 1000:.1f} KB, mean {statistics.mean(images) / 1000:.1f} KB"
    )
    print(
        f"largest / cap:      {max(images) / cap:.1%} of {cap // 1000} KB (the phone's raw screenshot: {raw / 1000:.1f} KB)"
    )


class _Slowed:
    """The scripted model answering after `latency` seconds, as a model over the network does."""

    def __init__(self, latency: float) -> None:
        self._model, self._latency = ScriptedModel(), latency

    def turn(self, items: Any, tools: Any, **kwargs: Any) -> Any:
        time.sleep(self._latency)
        return self._model.turn(items, tools, **kwargs)


class _Logs:
    def __init__(self, storage: Any) -> None:
        self._storage = storage

    def emit(self, event: Any) -> None:
        EventLog(self._storage, event.run_id).emit(event)


def _in_process(latency: float, root: Path) -> list[tuple[str, float, float]]:
    """(task, agent s, eval overhead s) per task of the demo suite, no Prefect."""
    suite = load_suite()
    storage = open_storage((root / "in-process").as_uri())
    setup = EvalSetup(eval_id="bench", suite=suite.name, suite_digest=suite.digest(), model="scripted",
                      serial="bench-1", tasks=[t.id for t in suite.tasks])  # fmt: skip
    out = []
    with DemoAdbServer([demo_phone("bench-1")]) as adb:
        client = adbutils.AdbClient(host="127.0.0.1", port=adb.port)
        parts = LoopParts(model=_Slowed(latency), phone=U2Phone("bench-1", client), devices=AdbDirectory(client),
                          storage=storage, sink=_Logs(storage),
                          settings=AgentSettings(_env_file=None, model="scripted"))  # type: ignore[call-arg]  # fmt: skip
        for task in suite.tasks:
            began = time.perf_counter()
            record = run_task(suite.resolved(task), eval_id="bench", run=1, run_id=f"bench-{task.id}", parts=parts)
            EvalStore(storage).save_record(setup, record)
            out.append((task.id, record.agent_s, time.perf_counter() - began - record.agent_s))
    return out


def _through_prefect(latency: float, root: Path) -> tuple[float, list[float], int]:
    """(the eval flow's wall time, the agent's time per task, tasks) on a local Prefect server."""
    import os

    from tests.servers import prefect_env, prefect_server

    with prefect_server(root / "prefect") as api_url, DemoAdbServer([demo_phone("bench-1")]) as adb:
        os.environ.update(prefect_env(api_url, root / "prefect"))
        os.environ.update({"ANDROID_ADB_SERVER_HOST": "127.0.0.1", "ANDROID_ADB_SERVER_PORT": str(adb.port)})
        from prefect.context import refresh_global_settings_context

        refresh_global_settings_context()
        from device_flows import agent_model
        from device_flows.agent_eval_flow import eval_agent_suite
        from rlauto_core.agent.run import ModelChoice

        agent_model.ScriptedModel = lambda: _Slowed(latency)  # type: ignore[assignment,misc]  # the same latency
        url = (root / "prefect-store").as_uri()
        eval_agent_suite("bench-1", model=ModelChoice(model="scripted"), storage_url=url)  # warm-up (excluded)
        began = time.perf_counter()
        state = eval_agent_suite("bench-1", model=ModelChoice(model="scripted"), storage_url=url, return_state=True)
        wall = time.perf_counter() - began
        records = EvalStore(open_storage(url)).records(str(state.state_details.flow_run_id))
    return wall, [r.agent_s for r in records], len(records)


def bench_suite(latency: float) -> None:
    with tempfile.TemporaryDirectory() as root:
        rows = _in_process(latency, Path(root))
        wall, agent_times, tasks = _through_prefect(latency, Path(root))
    agent = statistics.mean(a for _, a, _ in rows)
    overhead = statistics.mean(o for _, _, o in rows)
    print(f"demo suite, {len(rows)} tasks, the scripted model answering after {latency:.2f} s")
    print(f"the agent (baseline):     mean {agent * 1000:7.1f} ms a task")
    print(f"eval in-process overhead: mean {overhead * 1000:7.1f} ms a task, max {max(o for *_, o in rows) * 1000:.1f} ms"
          f" (reset, checks, record + index row): {overhead / agent:.1%} of the agent's time")  # fmt: skip
    flow_agent = statistics.mean(agent_times)
    per_task = wall / tasks
    print(f"eval through Prefect:     {per_task * 1000:7.1f} ms a task, the agent {flow_agent * 1000:.1f} ms of it: "
          f"overhead {(per_task - flow_agent) * 1000:.1f} ms a task, {(per_task - flow_agent) / flow_agent:.1%} "
          f"of the agent's time")  # fmt: skip


if __name__ == "__main__":
    main()
