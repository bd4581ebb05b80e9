"""The eval with a model behind an OpenAI-compatible endpoint (the project's fake server, no
scripted model): its answers are tool calls decided from the conversation (tests/replay/
model_answers.py), sent through the agent's real streamed client (ToolCallingClient), each call
holding a slot of the global `rlauto-llm` limit. The reward stored with each attempt is what the
checkers give its attempt file; a fault the endpoint injects is retried as transient or ends the
attempt with a clear error; the key (a planted canary) is in no log, artifact, stored attempt or
index row."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rlauto_core.replay import Environment
from rlauto_core.store import open_storage
from tests.fakes.llm_server import FakeLlmServer, RecordedRequest, Step
from tests.in_process_cli import invoke
from tests.replay.model_answers import RECORDED_NOTE, careless_agent, notes_agent

KEY = "sk-canary-eval-agent-5d1e7a93c2f0"
MODEL = "actor"  # the fake server answers a request by its model name
PACKAGE = "notes_jsonrpc.zip"


@pytest.fixture
def endpoint(fake_model: FakeLlmServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeLlmServer:
    """The fake model server, with the agent's settings cleared (no stray .env, no key) and storage
    of the test's own."""
    monkeypatch.chdir(tmp_path)
    for name in ("AGENT_API_KEY", "AGENT_MODEL", "AGENT_BASE_URL", "AGENT_API_MODE", "AGENT_UPSTREAM_PROXY",
                 "UPSTREAM_PROXY", "AGENT_TIMEOUT_SECONDS", "AGENT_MAX_ATTEMPTS"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RLAUTO_STORAGE_URL", (tmp_path / "storage").as_uri())
    return fake_model


def _scored(package: Path, attempt: bytes, tmp_path: Path) -> dict[str, Any]:
    file = tmp_path / f"attempt-{uuid.uuid4().hex[:6]}.zip"
    file.write_bytes(attempt)
    done = invoke("score", str(package), str(file), "--json")
    scored = dict(json.loads(done.stdout))
    assert done.returncode == (0 if scored["passed"] else 1), done.stderr  # `rlauto score` fails a failed attempt
    return scored


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@contextmanager
def our_log() -> Iterator[_Lines]:
    """Every line our loggers (`rlauto.*`) write, at any level, whatever handlers others set."""
    lines, ours = _Lines(), logging.getLogger("rlauto")
    level = ours.level
    ours.addHandler(lines)
    ours.setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        ours.removeHandler(lines)
        ours.setLevel(level)


def _nowhere(storage_url: str, *texts: str) -> None:
    from tests.orchestration.leak_scan import storage_holdings

    files = storage_holdings(open_storage(storage_url))
    assert files, "the eval stored nothing"
    assert [path for path, text in files if KEY in text] == []
    assert all(KEY not in text for text in texts)


@pytest.mark.prefect
@pytest.mark.slow  # a flow run through Prefect and a retry's backoff: 5-10 s
def test_rlauto_eval_run_with_a_model_endpoint_scores_each_attempt_and_keeps_its_key_nowhere(
    prefect_api_url: str,
    endpoint: FakeLlmServer,
    example_packages: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    from prefect.blocks.system import Secret
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_LOGGING_LEVEL, temporary_settings

    from tests.orchestration.leak_scan import found_in, prefect_holdings

    secret = f"eval-key-{uuid.uuid4().hex[:8]}"
    Secret(value=KEY).save(secret)
    monkeypatch.setenv("GLOBAL_LLM_CONCURRENCY", "1")
    slots: list[int] = []

    def holding(request: RecordedRequest) -> dict[str, Any]:
        """The agent's answer, noting how many slots of `rlauto-llm` are taken while it is asked."""
        with get_client(sync_client=True) as client:
            slots.append(client.read_global_concurrency_limit_by_name("rlauto-llm").active_slots)
        return notes_agent(request)

    # the second request gets a 500 once: the client asks again after a backoff
    endpoint.script(MODEL, holding, {"status": 500, "error": "upstream overloaded"}, holding)
    package = example_packages[PACKAGE]
    since = datetime.now(UTC) - timedelta(seconds=1)
    # the runs log at INFO to the API, for the scan below (the test server's level is WARNING): the
    # CLI hands the environment's level to Prefect's loggers, and Prefect may set them up again
    # from its settings during the run (tests/conftest.py restores the loggers' levels)
    monkeypatch.setenv("PREFECT_LOGGING_LEVEL", "INFO")
    for name in ("prefect", "prefect.flow_runs", "prefect.task_runs"):
        logging.getLogger(name).setLevel(logging.INFO)
    with temporary_settings(updates={PREFECT_LOGGING_LEVEL: "INFO"}), our_log() as ours:
        done = invoke("eval", "run", str(package), "--model", MODEL, "--base-url", endpoint.base_url(),
                      "--key-secret", secret, "--attempts", "2", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    rows = outcome["rows"]
    assert outcome["summary"]["success_rate"] == 1.0 and len(rows) == 2
    assert all(r["passed"] and r["score"] == r["max_score"] > 0 and r["stopped"] == "done" for r in rows)
    assert [r["turns"] for r in rows] == [3, 3] and [r["calls"] for r in rows] == [3, 3]

    # the real client: streamed chat completions carrying the environment's tools and the key
    asked = endpoint.requests(MODEL)
    assert len(asked) == 2 * 3 + 1  # three turns an attempt, and the one the 500 made it ask again
    assert {r.headers.get("authorization") for r in asked} == {f"Bearer {KEY}"}
    assert all(r.path == "/v1/chat/completions" and r.body["stream"] is True for r in asked)
    tools = {t.name for t in Environment(package).tools}
    assert all({t["function"]["name"] for t in r.body["tools"]} == tools for r in asked)
    assert "retry 1/2" in ours.text  # the 500 was taken as transient
    # every model call held a slot of the global limit; the two attempts never asked at once
    assert len(slots) == 6 and min(slots) >= 1 and endpoint.max_in_flight() == 1

    # logs and events reach the server in the background: wait until the run's last ones are there
    deadline = time.monotonic() + 60
    held = prefect_holdings(since)
    while not (any("Finished in state Completed" in t for t in held["logs"]) and any(
            "prefect.flow-run.Completed" in t for t in held["events"])):  # fmt: skip
        assert time.monotonic() < deadline, f"the eval's run never logged its end to the API: {held['logs']}"
        time.sleep(0.5)
        held = prefect_holdings(since)
    assert held["artifacts"] and held["task runs"]
    assert any(f'"key_secret":"{secret}"' in run.replace(" ", "") for run in held["flow runs"])  # its name only
    assert found_in(held, [KEY]) == {}

    storage_url = outcome["storage_url"]
    storage = open_storage(storage_url)
    for row in rows:
        stored = _scored(package, storage.read_bytes(row["attempt_path"]), tmp_path)
        assert (stored["score"], stored["max_score"], stored["passed"]) == (row["score"], row["max_score"], True)
        episode = json.loads(storage.read_bytes(row["episode_path"]))
        assert episode["reward"]["score"] == row["score"] and episode["model"] == MODEL

    _nowhere(storage_url, done.stdout, done.stderr, ours.text)


def test_wrong_tool_calls_get_the_reward_the_checkers_give_their_stored_attempt(
    endpoint: FakeLlmServer,
    example_packages: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    """The eval's attempt task itself (what each of the flow's attempts runs), no limit set."""
    from tasks.eval_tasks import EvalModel, run_attempt

    monkeypatch.setenv("AGENT_API_KEY", KEY)
    monkeypatch.setenv("GLOBAL_LLM_CONCURRENCY", "0")
    endpoint.script(MODEL, careless_agent)
    package = example_packages[PACKAGE]
    storage_url = (tmp_path / "storage").as_uri()
    with caplog.at_level(logging.INFO):
        row = run_attempt.fn(str(package), 1, "ev-careless", EvalModel(model=MODEL, base_url=endpoint.base_url()),
                             10, storage_url)  # fmt: skip
    assert (row.stopped, row.turns, row.calls, row.unknown_calls) == ("done", 3, 4, 1)
    assert not row.passed and 0 < row.score < row.max_score and row.rubrics_failed
    storage = open_storage(storage_url)
    stored = _scored(package, storage.read_bytes(row.attempt_path), tmp_path)
    assert (stored["score"], stored["max_score"], stored["passed"]) == (row.score, row.max_score, False)
    assert sorted(r["id"] for r in stored["rubrics"] if not r["passed"]) == sorted(
        f.split(" ", 1)[0] for f in row.rubrics_failed
    )
    episode = json.loads(storage.read_bytes(row.episode_path))
    outcomes = [(c["name"], c["outcome"]) for c in episode["calls"]]
    assert outcomes == [("notes_create", "answered"), ("notes_add_tag", "missing"), ("notes_share", "answered"),
                        ("notes_publish", "unknown")]  # fmt: skip
    assert episode["calls"][1]["arguments"]["noteId"] == RECORDED_NOTE and episode["calls"][1]["is_error"]
    assert endpoint.calls(MODEL) == 3
    _nowhere(storage_url, caplog.text, row.model_dump_json())


FAULTS: dict[str, tuple[Step, dict[str, str], str]] = {
    # slower than the client waits, on every try: the attempt ends when the tries are used up
    "timeout": ({"delay": 3.0}, {"AGENT_TIMEOUT_SECONDS": "0.5"}, "timed out"),
    # a gateway's 500 whose message repeats the Authorization header it was sent
    "500 repeating the key": (
        {"status": 500, "echo_auth": True},
        {},
        "HTTP 500: fake error 500 (received Authorization: Bearer [REDACTED])",
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_that_lasts_ends_the_attempt_with_a_clear_error_and_its_partial_reward(
    endpoint: FakeLlmServer,
    example_packages: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
    fault: str,
) -> None:
    from tasks.eval_tasks import EvalModel, run_attempt

    step, settings, says = FAULTS[fault]
    for name, value in {"AGENT_API_KEY": KEY, "AGENT_MAX_ATTEMPTS": "2", "GLOBAL_LLM_CONCURRENCY": "0",
                        **settings}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    endpoint.script(MODEL, notes_agent, step)  # the first turn is answered, then the fault on every try
    package = example_packages[PACKAGE]
    storage_url = (tmp_path / "storage").as_uri()
    with caplog.at_level(logging.INFO):
        row = run_attempt.fn(str(package), 1, "ev-fault", EvalModel(model=MODEL, base_url=endpoint.base_url()),
                             10, storage_url)  # fmt: skip
    assert row.stopped == "model_error" and row.error is not None
    assert row.error.startswith("agent model at 127.0.0.1") and says in row.error and "gave up after 2" in row.error
    assert endpoint.calls(MODEL) == 1 + 2  # the first turn, then both tries of the second
    assert row.calls == 1 and not row.passed  # the note made, never tagged nor shared
    stored = _scored(package, open_storage(storage_url).read_bytes(row.attempt_path), tmp_path)
    assert (stored["score"], stored["max_score"]) == (row.score, row.max_score)
    _nowhere(storage_url, caplog.text, row.model_dump_json())
