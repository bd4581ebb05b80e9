"""The agent loop's hooks in a Prefect flow run: what Prefect shows, a person's hand-back, cancel.

- `PrefectSink` (an `EventSink`): a markdown artifact per step card (tool, arguments, result,
  thumbnail) and per screen the loop took; at the end the usage table and the final answer;
  a Prefect event `rlauto.agent.heartbeat` per heartbeat (related to the flow run), and run log
  lines for what a person must know (start, takeover, pause, end). Everything passes the
  redactor first. The event log in storage stays the record: an artifact that cannot be made is
  logged, never a reason to stop the run.
- `pause_for_person`: the takeover hook, `pause_flow_run(wait_for_input=HandBack)`.
- `CancelWatch`: the checkpoint; reads the flow run's state at most once a second and raises
  `StopRequested` once it is Cancelling or Cancelled.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.orchestration import SyncPrefectClient
from prefect.events import emit_event
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from pydantic import Field

from rlauto_core.agent.events import (
    AgentEvent,
    Heartbeat,
    ModelCalled,
    PolicyApplied,
    RunEnded,
    RunStarted,
    ScreenTaken,
    TakeoverRequested,
    ToolCalled,
)
from rlauto_core.agent.policy import NoticeKind
from rlauto_core.agent.run import StopRequested
from rlauto_core.agent.tools import TakeoverAnswer, TakeoverHook, TakeoverRequest
from rlauto_core.redact import Redactor
from rlauto_core.store import Storage

HEARTBEAT_EVENT = "rlauto.agent.heartbeat"
TAKEOVER_POLL_S = 1  # how often a paused run looks whether it was resumed
CHECK_EVERY_S = 1.0


class HandBack(RunInput):
    """What the person says when handing the phone back (the Resume form in the Prefect UI)."""

    note: str | None = Field(
        default=None, max_length=4000, description="What you did, or what the agent should know (optional)."
    )


def artifact_key(what: str, run_id: str) -> str:
    """Artifact keys are lowercase letters, digits and dashes."""
    return re.sub(r"[^a-z0-9-]+", "-", f"{what}-{run_id}".lower()).strip("-")[:100]


def _fenced(text: str) -> str:
    """A code block no text can break out of (its fence is longer than any backtick run in it)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


class PrefectSink:
    def __init__(
        self,
        run_id: str,
        flow_run_id: str,
        storage: Storage,
        logger: logging.Logger | logging.LoggerAdapter[logging.Logger],
        redactor: Redactor | None = None,
        takeover_hint: str = "do it on the phone, then Resume this flow run (an optional note goes to the agent)",
    ) -> None:
        self.run_id, self.flow_run_id = run_id, flow_run_id
        self._takeover_hint = takeover_hint  # what the run log tells the person a takeover needs
        self._storage = storage
        self._logger = logger
        self._redactor = redactor or Redactor()
        self._calls: list[dict[str, Any]] = []
        self._failed_once = False

    # -- the sink ------------------------------------------------------------------------
    def emit(self, event: AgentEvent) -> None:
        try:
            self._show(event)
        except Exception as exc:  # a view, not the record: the event log in storage has the event
            if not self._failed_once:
                self._failed_once = True
                self._logger.warning("agent artifacts: %s", self._redactor.text(f"{type(exc).__name__}: {exc}")[:300])

    def _show(self, event: AgentEvent) -> None:
        if isinstance(event, Heartbeat):
            self._heartbeat(event)
        elif isinstance(event, ToolCalled):
            self._step_card(event)
        elif isinstance(event, ScreenTaken):
            self._screen_card(event)
        elif isinstance(event, ModelCalled):
            usage = event.usage
            self._calls.append(
                {"call": event.call, "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                 "total_tokens": usage.total_tokens, "tool_calls": event.tool_calls, "seconds": event.duration_s}
            )  # fmt: skip
        elif isinstance(event, RunStarted):
            verb = "resumed" if event.resumed else "started"
            self._log(
                f"agent run {event.run_id} {verb} on {event.serial} with {event.model}: {event.instruction[:300]}"
            )
        elif isinstance(event, TakeoverRequested):
            self._log(f"a person is needed ({event.reason}): {event.message} -- {self._takeover_hint}", logging.WARNING)
        elif isinstance(event, PolicyApplied) and event.kind is NoticeKind.PAUSE:
            self._log(f"run policy: {event.fuse} fuse at step {event.step}: {event.detail}", logging.WARNING)
        elif isinstance(event, RunEnded):
            self._ended(event)

    def _log(self, text: str, level: int = logging.INFO) -> None:
        self._logger.log(level, "%s", self._redactor.text(text))

    def _heartbeat(self, event: Heartbeat) -> None:
        emit_event(
            event=HEARTBEAT_EVENT,
            resource={"prefect.resource.id": f"rlauto.agent-run.{self.run_id}", "prefect.resource.name": self.run_id},
            related=[
                {"prefect.resource.id": f"prefect.flow-run.{self.flow_run_id}", "prefect.resource.role": "flow-run"}
            ],
            payload={"waiting_on": event.waiting_on, "waited_s": event.waited_s, "step": event.step},
        )

    def _thumbnail(self, path: str | None, alt: str) -> str:
        if path is None:
            return ""
        data = base64.b64encode(self._storage.read_bytes(path)).decode()
        return f"\n\n![{alt}](data:image/jpeg;base64,{data})\n"

    def _step_card(self, event: ToolCalled) -> None:
        mark = "ok" if event.ok else "failed"
        flag = " (by coordinates: the last resort)" if event.coordinates else ""
        args = json.dumps(self._redactor.value(event.args), ensure_ascii=False, indent=1, sort_keys=True)
        result = self._redactor.text(event.error or event.result)
        body = (
            f"### Step {event.step}: `{event.tool}` {mark}{flag}\n\n{event.duration_s:.2f} s\n\n"
            f"{_fenced(args)}\n\n{_fenced(result[:1500])}"
            + self._thumbnail(event.thumbnail, f"screen at step {event.step}")
        )
        create_markdown_artifact(body, description=f"agent run {self.run_id}: step {event.step} ({event.tool})")

    def _screen_card(self, event: ScreenTaken) -> None:
        body = f"### Screen: {self._redactor.text(event.caption)}" + self._thumbnail(event.thumbnail, event.caption)
        create_markdown_artifact(body, description=f"agent run {self.run_id}: the screen {event.caption}")

    def _ended(self, event: RunEnded) -> None:
        usage = event.usage
        rows = [*self._calls, {"call": "run total", "prompt_tokens": usage.prompt_tokens,
                               "completion_tokens": usage.completion_tokens, "total_tokens": usage.total_tokens,
                               "tool_calls": None, "seconds": None}]  # fmt: skip
        create_table_artifact(
            rows, key=artifact_key("agent-usage", self.run_id), description=f"token usage of agent run {self.run_id}"
        )
        lines = [f"## {event.outcome}", "", self._redactor.markdown(event.answer) or "(no answer)"]
        if event.deliverables:
            lines += ["", "Deliverables (in the run's storage folder):", *[f"- `{d}`" for d in event.deliverables]]
        if event.outcome in ("paused", "budget_exhausted", "stopped", "failed"):
            lines += ["", f"Resumable: `rlauto agent run --resume {self.run_id}` or the dashboard's Agent page."]
        create_markdown_artifact(
            "\n".join(lines), key=artifact_key("agent-answer", self.run_id), description="the agent's final answer"
        )
        self._log(f"agent run {self.run_id} ended {event.outcome}: {event.answer[:300]}")


def pause_for_person(timeout_s: int, logger: logging.Logger | logging.LoggerAdapter[logging.Logger]) -> TakeoverHook:
    """The takeover hook: the flow run pauses until someone resumes it (Prefect UI or dashboard),
    with an optional note. Nobody within `timeout_s`: the run stops (resumable), freeing the phone."""

    def hook(request: TakeoverRequest) -> TakeoverAnswer:
        try:
            handed = pause_flow_run(
                wait_for_input=HandBack,
                timeout=timeout_s,
                poll_interval=TAKEOVER_POLL_S,
                key=f"takeover-{request.step}",
            )
        except FlowPauseTimeout:
            logger.warning("nobody took over within %d s: the run stops (resume it to go on)", timeout_s)
            raise StopRequested from None
        return TakeoverAnswer(note=handed.note)

    return hook


class CancelWatch:
    """The loop's checkpoint: StopRequested once the flow run is being cancelled. Cheap: one
    read of the run's state a second at most; an API hiccup is tried again next time."""

    def __init__(
        self, client: SyncPrefectClient, flow_run_id: UUID, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._client, self._id, self._clock = client, flow_run_id, clock
        self._checked = float("-inf")
        self._stop = False

    def __call__(self) -> None:
        if self._stop:
            raise StopRequested
        now = self._clock()
        if now - self._checked < CHECK_EVERY_S:
            return
        self._checked = now
        try:
            state = self._client.read_flow_run(self._id).state
        except Exception:
            return
        if state is not None and (state.is_cancelling() or state.is_cancelled()):
            self._stop = True
            raise StopRequested
