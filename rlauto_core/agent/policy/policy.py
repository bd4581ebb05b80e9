"""The run policy: the only place the agent's stop rules live (the loop and `rlauto agent policy`
both call this module, so what pauses a run is exactly what a replay of its step log shows).

- No turn budget. A run ends when the model proves completion, or pauses on a fuse:
  the same state-changing action (same tool, same arguments) 6 times in a row, the same error
  8 times in a row, 14 failed actions in a row. A pause is not a failure: the run resumes where
  it stopped.
- Observation tools (screenshot, ui_tree, list_devices, wait) are invisible here: they never
  count as a repeat and never break or reset a streak, so waiting on something slow is never cut.
- A hint at the 3rd same action / same error in a row; it never stops anything.
- A re-route (ask for another method, goal and history kept) when a streak reaches its loop
  point (same action 4, same error 5, failures 7); at most 2 per segment, and a failure already
  detected in the segment (same call, same error) earns no other. A segment ends with a
  successful state change different from the previous one: that resets every counter.
- A safety cap on model calls (default 200 since the start or the last resume) ends a run as
  `budget_exhausted`: a fault, not a result, and resumable.
- A chat with no tool calls stops after 4 rounds in a row; a successful tool call resets that.
- A call that never reached the phone (an unknown tool, arguments that are not JSON or not valid:
  `rejected`) changed nothing: it is never a same-action repeat, never an observation, always an
  error and a failure (so repeating it pauses at the same-error fuse, 8).
- A successful takeover (a person acted on the phone) and a resume start a new segment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

OBSERVATION_TOOLS = frozenset({"screenshot", "ui_tree", "list_devices", "wait"})
# tools that change nothing on the phone: they can fail, but never repeat a state change
CONTROL_TOOLS = frozenset({"report_task", "request_takeover"})

DEFAULT_MAX_MODEL_CALLS = 200
CHAT_ROUNDS_LIMIT = 4
HINT_AT = 3
REROUTES_PER_SEGMENT = 2
_ERROR_CHARS = 300


class Fuse(StrEnum):
    SAME_ACTION = "same_action"
    SAME_ERROR = "same_error"
    FAILURES_IN_A_ROW = "failures_in_a_row"


FUSE_AT = {Fuse.SAME_ACTION: 6, Fuse.SAME_ERROR: 8, Fuse.FAILURES_IN_A_ROW: 14}
REROUTE_AT = {Fuse.SAME_ACTION: 4, Fuse.SAME_ERROR: 5, Fuse.FAILURES_IN_A_ROW: 7}


def default_state_changing(tool: str) -> bool:
    """What a tool's kind says when a step does not: unknown tools count as actions."""
    return tool not in OBSERVATION_TOOLS and tool not in CONTROL_TOOLS


def action_key(tool: str, args: dict[str, Any]) -> str:
    """Same tool and same arguments give the same key, whatever the key order."""
    return tool + " " + json.dumps(args, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def error_key(error: str | None) -> str:
    return re.sub(r"\s+", " ", (error or "failed").strip())[:_ERROR_CHARS] or "failed"


# why a call never reached the phone: the tool does not exist, or its arguments are not JSON
# (or not an object), or they do not fit the tool's schema
Rejected = Literal["unknown_tool", "not_json", "invalid_arguments"]


class StepRecord(BaseModel):
    """One tool call as the policy sees it (one line of a run's step log)."""

    tool: str = Field(min_length=1, max_length=200)
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool
    error: str | None = None
    state_changing: bool | None = None
    rejected: Rejected | None = None

    @model_validator(mode="after")
    def _rejected_failed(self) -> StepRecord:
        if self.rejected is not None and self.ok:
            raise ValueError(f"a call that never reached the phone ({self.rejected}) cannot be ok")
        return self

    @property
    def changes_state(self) -> bool:
        if self.rejected is not None:
            return False
        return default_state_changing(self.tool) if self.state_changing is None else self.state_changing

    @property
    def is_observation(self) -> bool:
        return self.rejected is None and self.tool in OBSERVATION_TOOLS and self.state_changing is not True


class NoticeKind(StrEnum):
    HINT = "hint"
    REROUTE = "reroute"
    PAUSE = "pause"


class PolicyNotice(BaseModel):
    """What the policy says after a step: `detail` is the repeated action key or error."""

    kind: NoticeKind
    fuse: Fuse
    streak: int
    detail: str


class PolicyState(BaseModel):
    """Every counter, JSON-serialisable: saved with the run, so a resumed run goes on exactly."""

    last_change: str | None = None
    same_action: int = 0
    last_error: str | None = None
    same_error: int = 0
    failures: int = 0
    segment_reroutes: int = 0
    segment_signatures: list[str] = Field(default_factory=list)
    paused: Fuse | None = None
    model_calls: int = 0
    calls_since_resume: int = 0
    toolless_rounds: int = 0


class RunPolicy:
    def __init__(self, state: PolicyState | None = None, *, max_model_calls: int = DEFAULT_MAX_MODEL_CALLS) -> None:
        if max_model_calls < 1:
            raise ValueError("max_model_calls must be at least 1")
        self.state = state or PolicyState()
        self.max_model_calls = max_model_calls

    # -- model calls ------------------------------------------------------------------------
    @property
    def budget_left(self) -> bool:
        return self.state.calls_since_resume < self.max_model_calls

    def on_model_call(self) -> None:
        self.state.model_calls += 1
        self.state.calls_since_resume += 1

    def on_reply(self, tool_calls: int) -> bool:
        """After a model answer: True when it is the 4th in a row without any tool call."""
        if tool_calls:
            return False
        self.state.toolless_rounds += 1
        return self.state.toolless_rounds >= CHAT_ROUNDS_LIMIT

    # -- tool calls -------------------------------------------------------------------------
    def on_step(self, step: StepRecord) -> list[PolicyNotice]:
        """Count one tool call; a PAUSE notice (always last) means the run must pause now."""
        s = self.state
        if s.paused is not None:
            raise ValueError(f"the run is paused ({s.paused}); resume it first")
        if step.ok:
            s.toolless_rounds = 0
        if step.tool == "request_takeover" and step.ok:
            self.new_segment()  # a person acted on the phone: streaks and re-routes start over
            return []
        if step.is_observation:
            return []
        streaks: list[tuple[Fuse, int, str]] = []
        key = action_key(step.tool, step.args)
        # what was repeated, failure included: the same failure earns one re-route per segment
        signature = f"{key}|{'ok' if step.ok else error_key(step.error)}"
        if step.changes_state:
            if step.ok and key != s.last_change:
                s.segment_reroutes, s.segment_signatures = 0, []  # progress: a new segment
            s.same_action = s.same_action + 1 if key == s.last_change else 1
            s.last_change = key
            streaks.append((Fuse.SAME_ACTION, s.same_action, key))
        if step.ok:
            s.failures, s.last_error, s.same_error = 0, None, 0
        else:
            error = error_key(step.error)
            s.failures += 1
            s.same_error = s.same_error + 1 if error == s.last_error else 1
            s.last_error = error
            streaks += [(Fuse.SAME_ERROR, s.same_error, error), (Fuse.FAILURES_IN_A_ROW, s.failures, error)]
        return self._notices(streaks, signature)

    def _notices(self, streaks: list[tuple[Fuse, int, str]], signature: str) -> list[PolicyNotice]:
        s = self.state
        hinted = next(((f, c, d) for f, c, d in streaks if c == HINT_AT and f is not Fuse.FAILURES_IN_A_ROW), None)
        # one hint a step: a failing tap repeated 3 times is both the same action and the same error
        notices = (
            [] if hinted is None else [PolicyNotice(kind=NoticeKind.HINT, fuse=hinted[0], streak=3, detail=hinted[2])]
        )
        for fuse, count, detail in streaks:
            if count >= FUSE_AT[fuse]:
                s.paused = fuse
                return [*notices, PolicyNotice(kind=NoticeKind.PAUSE, fuse=fuse, streak=count, detail=detail)]
        detected = next(((f, c, d) for f, c, d in streaks if c == REROUTE_AT[f]), None)
        if detected is not None and signature not in s.segment_signatures:
            s.segment_signatures.append(signature)  # seen: repeating it never earns another
            if s.segment_reroutes < REROUTES_PER_SEGMENT:
                s.segment_reroutes += 1
                fuse, count, detail = detected
                notices.append(PolicyNotice(kind=NoticeKind.REROUTE, fuse=fuse, streak=count, detail=detail))
        return notices

    # -- a person stepped in ----------------------------------------------------------------
    def new_segment(self) -> None:
        """Streaks and re-routes start over (after a takeover, or on resume)."""
        s = self.state  # in place: the run's saved state holds this very object
        s.last_change, s.same_action, s.last_error, s.same_error, s.failures = None, 0, None, 0, 0
        s.segment_reroutes, s.segment_signatures = 0, []

    def resume(self) -> None:
        """Resume after a pause or `budget_exhausted`: a fresh segment and a fresh safety cap."""
        self.new_segment()
        self.state.paused = None
        self.state.calls_since_resume = 0
        self.state.toolless_rounds = 0


class ChatReply(BaseModel):
    """A model answer without a tool call: `{"chat": true}`; 4 in a row end the run (`chat_ended`)."""

    chat: Literal[True] = True


class Resumed(BaseModel):
    """The step-log line a resume writes: `{"resumed": true}`; replay resumes the policy there.
    `model` and `model_was` say which model the run goes on with when the resume changed it."""

    resumed: Literal[True] = True
    note: str | None = None
    model: str | None = None
    model_was: str | None = None


StepLine = StepRecord | Resumed | ChatReply


class PolicyVerdict(BaseModel):
    """`rlauto agent policy`'s answer; line numbers are 1-based lines of the log."""

    verdict: Literal["continue", "paused", "chat_ended"]
    fuse: Fuse | None = None
    at: int | None = None
    hints: list[int] = Field(default_factory=list)
    reroutes: list[int] = Field(default_factory=list)

    def cli_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "fuse": self.fuse, "at": self.at, "hints": self.hints}


def replay(lines: Iterable[tuple[int, StepLine]]) -> PolicyVerdict:
    """Run the policy over numbered log lines, as the loop ran it: steps after a pause are
    ignored until a resume line; the verdict is where the last segment ended (a 4th answer in a
    row without a tool call ends the run: `chat_ended` at that line)."""
    policy = RunPolicy()
    hints: list[int] = []
    reroutes: list[int] = []
    pause: tuple[Fuse, int] | None = None
    for number, line in lines:
        if isinstance(line, Resumed):
            policy.resume()  # the loop resumes its policy exactly where it writes this line
            pause = None
            continue
        if pause is not None:
            continue
        if isinstance(line, ChatReply):
            if policy.on_reply(0):
                return PolicyVerdict(verdict="chat_ended", at=number, hints=hints, reroutes=reroutes)
            continue
        for notice in policy.on_step(line):
            if notice.kind is NoticeKind.HINT:
                if not hints or hints[-1] != number:
                    hints.append(number)
            elif notice.kind is NoticeKind.REROUTE:
                reroutes.append(number)
            else:
                pause = (notice.fuse, number)
    if pause is None:
        return PolicyVerdict(verdict="continue", hints=hints, reroutes=reroutes)
    return PolicyVerdict(verdict="paused", fuse=pause[0], at=pause[1], hints=hints, reroutes=reroutes)
