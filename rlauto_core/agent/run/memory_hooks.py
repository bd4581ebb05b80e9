"""Where the loop meets the memory: recall at the start of a run, distillation at its end.

Memory helps a run and never stops one: a failing recall is logged and the run goes on without
it; a failing distillation is logged and shown as a card, and the run stays completed.
"""

from __future__ import annotations

import logging
from typing import Protocol

from pydantic import BaseModel, Field

from rlauto_core.agent.events import EventSink, MemoryDistilled, MemoryRecalled, RecallHit
from rlauto_core.agent.events import Heartbeat as HeartbeatEvent
from rlauto_core.agent.policy import StepRecord, parse_line
from rlauto_core.agent.run.heartbeat import HEARTBEAT_S, Heartbeat, WaitingOn
from rlauto_core.agent.run.state import RunState
from rlauto_core.agent.run.turn import ActiveRun
from rlauto_core.llm.types import TokenUsage
from rlauto_core.redact import redact_text

log = logging.getLogger("rlauto.agent")


class Recall(BaseModel):
    context: str = ""  # appended to the system prompt; empty when nothing was recalled
    experiences: list[RecallHit] = Field(default_factory=list)
    actions: list[RecallHit] = Field(default_factory=list)


class RecallSource(Protocol):
    """What `AgentLoop(recall=...)` asks once at the start of a run (`rlauto_core.memory.MemoryRecall`)."""

    def recall(self, instruction: str) -> Recall: ...


class DistilRequest(BaseModel):
    run_id: str
    instruction: str
    steps: list[StepRecord]


class DistilOutcome(BaseModel):
    recipe_id: str | None = None
    recipe_title: str | None = None
    actions: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    called_model: bool = False


class RunDistiller(Protocol):
    """What `AgentLoop(distiller=...)` calls after a completed run (`rlauto_core.memory.Distiller`)."""

    def distil(self, request: DistilRequest) -> DistilOutcome: ...


def recall_into(state: RunState, recall: RecallSource | None, sink: EventSink) -> None:
    """Recipes and actions of similar tasks into the state's system-prompt memory; a card each."""
    if recall is None:
        return
    try:
        found = recall.recall(state.instruction)
    except Exception as exc:
        log.warning("run %s: recall failed: %s: %s", state.run_id, type(exc).__name__, str(exc)[:300])
        return
    state.memory = found.context
    if found.experiences:
        message = f"{len(found.experiences)} similar past experience(s) recalled and put into the system prompt"
        sink.emit(MemoryRecalled(run_id=state.run_id, library="experience", hits=found.experiences, message=message))
    if found.actions:
        message = f"{len(found.actions)} reusable action(s) recalled and put into the system prompt"
        sink.emit(MemoryRecalled(run_id=state.run_id, library="actions", hits=found.actions, message=message))


def _records(run: ActiveRun) -> list[StepRecord]:
    out = []
    for line in run.step_log.lines:
        try:
            parsed = parse_line(line)
        except ValueError:
            continue
        if isinstance(parsed, StepRecord):
            out.append(parsed)
    return out


def distil_run(
    run: ActiveRun, distiller: RunDistiller, *, heartbeat_s: float = HEARTBEAT_S, secrets: tuple[str, ...] = ()
) -> None:
    """Teach the libraries from a completed run, with heartbeats meanwhile; a card at the end."""
    state, sink = run.state, run.sink
    request = DistilRequest(run_id=state.run_id, instruction=state.instruction, steps=_records(run))

    def beat(waiting_on: WaitingOn, waited: float) -> None:
        sink.emit(HeartbeatEvent(run_id=state.run_id, step=state.steps, waiting_on=waiting_on, waited_s=waited))

    # no stop check: the run has completed, and a cancel now cannot undo that
    beats = Heartbeat(beat, interval_s=heartbeat_s, clock=run.clock)
    try:
        learned = beats.wait("model", lambda: distiller.distil(request))
    except Exception as exc:
        problem = redact_text(f"{type(exc).__name__}: {exc}", secrets)[:300]
        log.warning("run %s: distillation failed: %s", state.run_id, problem)
        sink.emit(MemoryDistilled(run_id=state.run_id, step=state.steps, problems=[problem]))
        return
    sink.emit(
        MemoryDistilled(
            run_id=state.run_id,
            step=state.steps,
            recipe_id=learned.recipe_id,
            recipe_title=learned.recipe_title,
            actions=learned.actions,
            problems=learned.problems,
        )
    )
