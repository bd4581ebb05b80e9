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

Run: python bench/bench_agent.py [--latency 1.0] [--rounds 20]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
from itertools import count
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import adbutils
from pydantic import SecretStr

from device_flows.demo import DemoAdbServer, DemoPhone, Home
from device_flows.phone import AdbDirectory, U2Phone
from rlauto_core.agent.events import EventLog, ModelCalled, ToolCalled
from rlauto_core.agent.run import AgentLoop, AgentSettings
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
