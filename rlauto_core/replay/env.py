"""The replay environment of one package: sessions that answer calls and end with a reward.

`Environment` is what a server holds: the recorded world (read once), any number of sessions at
once, each ended into its attempt and reward. `ReplayEnv` (`rlauto.open_env`) is one session at a
time from Python: `reset()`, `step(call)`, `close()`.
"""

from __future__ import annotations

import itertools
import json
import tempfile
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.checkers import RubricResult, score
from rlauto_core.errors import PackageError
from rlauto_core.importers import import_path
from rlauto_core.recording import Mode
from rlauto_core.replay.attempt import attempt_files, attempt_zip
from rlauto_core.replay.coverage import EnvCoverage, coverage_of
from rlauto_core.replay.dbdiff import session_diff
from rlauto_core.replay.session import EnvSession
from rlauto_core.replay.source import load_source
from rlauto_core.replay.steps import EnvCall, answer_of, parse_call
from rlauto_core.replay.tools import EnvTool, tool_schemas
from rlauto_core.replay.world import World


class EnvObservation(BaseModel):
    """What an agent starts from: the task and the tools (OpenAI function schemas)."""

    instruction: str
    mode: str
    tools: list[dict[str, Any]]
    session: int


class EnvReward(BaseModel):
    """A session's reward: the package's checkers on its attempt (what `rlauto score` says of it)."""

    score: int
    max_score: int
    passed: bool
    policy: str = ""
    rubrics: list[RubricResult] = Field(default_factory=list)
    session: int
    calls: int
    unknown_calls: int = 0
    attempt: str | None = None  # the attempt file, when one was kept

    def reward_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class Environment:
    """One package's environment: thread-safe session bookkeeping over one read-only world."""

    def __init__(self, path: str | Path, *, seed: int = 0) -> None:
        self.path = Path(path)
        self.package, recording = load_source(path)
        self.world = World.of(self.package, recording)
        self.tools: list[EnvTool] = tool_schemas(recording)
        self.seed = seed
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def mode(self) -> Mode:
        return self.world.mode

    @property
    def coverage(self) -> EnvCoverage:
        return coverage_of(self.world)

    @property
    def instruction(self) -> str:
        return self.package.task.instruction

    def new_session(self) -> EnvSession:
        with self._lock:
            number = next(self._numbers)
        return EnvSession(self.world, number, self.seed)

    def observation(self, session: EnvSession) -> EnvObservation:
        return EnvObservation(instruction=self.instruction, mode=self.mode.value,
                              tools=[t.openai() for t in self.tools], session=session.number)  # fmt: skip

    def end(self, session: EnvSession, *, answer: Any = None, out_dir: Path | None = None) -> EnvReward:
        """The session's attempt written (in `out_dir/session-.../` when given) and scored by the
        package's checkers, through the importer `rlauto score` reads attempts with."""
        name = f"session-{session.started:%Y%m%dT%H%M%S}-{session.number:04d}-{session.token}"
        files = attempt_files(
            self.world.recording,
            [c.call for c in session.calls],
            session_diff(self.world, session.values, session.performed),
            instruction=self.instruction,
            answer=answer,
            session_name=name,
        )
        data = attempt_zip(files)
        if out_dir is not None:
            folder = out_dir / name
            folder.mkdir(parents=True, exist_ok=True)
            return self._scored(session, folder / "attempt.zip", data, keep=True)
        with tempfile.TemporaryDirectory(prefix="rlauto-env-") as scratch:
            return self._scored(session, Path(scratch) / "attempt.zip", data, keep=False)

    def _scored(self, session: EnvSession, file: Path, data: bytes, *, keep: bool) -> EnvReward:
        partial = file.with_name(file.name + ".part")
        partial.write_bytes(data)
        partial.replace(file)  # nothing half-written under the attempt's name
        report = score(self.package, import_path(file))
        reward = EnvReward(
            score=report.score,
            max_score=report.max_score,
            passed=report.passed,
            policy=report.policy,
            rubrics=report.rubrics,
            session=session.number,
            calls=len(session.calls),
            unknown_calls=sum(c.unknown for c in session.calls),
            attempt=str(file) if keep else None,
        )
        if keep:
            text = json.dumps(reward.reward_json(), ensure_ascii=False, indent=1)
            written = file.parent / "reward.json.part"
            written.write_text(text + "\n", encoding="utf-8")
            written.replace(file.parent / "reward.json")  # a reader polling the folder never sees half
        return reward


class ReplayEnv:
    """One session at a time: `obs = env.reset()`, `env.step(call)`, `reward = env.close()`."""

    def __init__(self, environment: Environment, out_dir: Path | None = None) -> None:
        self.environment = environment
        self.out_dir = out_dir
        self.session: EnvSession | None = None
        self.last_reward: EnvReward | None = None

    @property
    def coverage(self) -> EnvCoverage:
        return self.environment.coverage

    @property
    def tools(self) -> list[dict[str, Any]]:
        return [t.openai() for t in self.environment.tools]

    def reset(self) -> EnvObservation:
        """A new session (an open one is ended first, its attempt kept when `out_dir` is set)."""
        if self.session is not None:
            self.close()
        self.session = self.environment.new_session()
        return self.environment.observation(self.session)

    def step(self, call: EnvCall | dict[str, Any] | Any) -> Any:
        """One call -> the app's answer: an MCP tool result, or `{status, headers, body}`."""
        if self.session is None:
            self.reset()
        assert self.session is not None
        return answer_of(self.session, parse_call(call, self.environment.mode))

    def close(self, answer: Any = None) -> EnvReward:
        """End the session: its attempt written and scored (`answer`: what an answer task reports)."""
        if self.session is None:
            raise PackageError(str(self.environment.path), "no session to close: call reset() first")
        session, self.session = self.session, None
        self.last_reward = self.environment.end(session, answer=answer, out_dir=self.out_dir)
        return self.last_reward

    @property
    def calls(self) -> list[Any]:
        return [c.call for c in self.session.calls] if self.session is not None else []


def open_env(package: str | Path, *, out_dir: str | Path | None = None, seed: int = 0) -> ReplayEnv:
    """The replay environment of a task package (its ZIP or task.json): no model, no network."""
    return ReplayEnv(Environment(package, seed=seed), Path(out_dir) if out_dir is not None else None)
