"""One task run of an eval: reset the phone to the task's start, run the agent under the run
policy with the task's step budget (a takeover answered by the suite's scripted person), apply
the checks to the phone's state afterwards, and tell what happened (`TaskRunRecord`).

Everything the loop needs comes in (`LoopParts`): the `eval-agent-suite` flow hands in the
phone over ADB and the Prefect sink, tests and the bench their own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from rlauto_core.agent.events import AgentEvent, EventSink, PolicyApplied, TakeoverRequested
from rlauto_core.agent.run import (
    AGENT_MODE,
    AgentLoop,
    AgentSettings,
    Checkpoint,
    RecallSource,
    RunDistiller,
    RunModel,
    TurnModel,
)
from rlauto_core.agent.suite.checks import RunFacts, apply_checks
from rlauto_core.agent.suite.records import TaskRunRecord
from rlauto_core.agent.suite.suite import DEMO_STATE_COMMAND, DemoFixture, PersonAction, SuiteTask
from rlauto_core.agent.tools import DeviceDirectory, TakeoverAnswer, TakeoverHook, TakeoverReason, TakeoverRequest
from rlauto_core.errors import RlautoError
from rlauto_core.steps.phone import Phone
from rlauto_core.store.storage import Storage

SHELL_TIMEOUT_S = 30.0


class TaskSetupError(RlautoError):
    """The phone could not be put in the task's start state."""


@dataclass
class LoopParts:
    """What the agent loop of a task run is built from (the takeover hook and the step budget
    come from the suite)."""

    model: TurnModel
    phone: Phone
    devices: DeviceDirectory
    storage: Storage
    sink: EventSink
    settings: AgentSettings
    run_model: RunModel | None = None
    checkpoint: Checkpoint | None = None
    heartbeat_s: float = 10.0
    recall: RecallSource | None = None
    distiller: RunDistiller | None = None


class PhoneShell:
    """The phone as a check reads it: shell output and the UI dump."""

    def __init__(self, phone: Phone) -> None:
        self._phone = phone

    def shell(self, command: str) -> str:
        return self._phone.shell(command, SHELL_TIMEOUT_S).output

    def ui_xml(self) -> str:
        return self._phone.dump_hierarchy()


def reset_phone(phone: Phone, task: SuiteTask) -> DemoFixture | None:
    """Put the phone in the task's start state; the demo apps' state read back, when set."""
    shell = PhoneShell(phone)
    for command in task.start.commands():
        output = shell.shell(command).strip()
        if task.start.demo is not None and command == task.start.demo.restore_command() and output:
            raise TaskSetupError(f"task {task.id}: the demo phone refused its start state: {output[:300]}")
    if task.start.demo is None:
        return None
    try:
        now = DemoFixture.of_state(json.loads(shell.shell(DEMO_STATE_COMMAND)))
    except (ValueError, TypeError) as exc:
        raise TaskSetupError(f"task {task.id}: `{DEMO_STATE_COMMAND}` cannot be read: {exc}"[:400]) from None
    if now != task.start.demo:
        raise TaskSetupError(f"task {task.id}: the phone is not in the start state after the reset: {now}"[:400])
    return now


def scripted_person(person: dict[TakeoverReason, PersonAction], phone: Phone) -> TakeoverHook:
    """The suite's person: for a takeover it has an answer for, it acts on the phone and hands
    back with its note; any other takeover is refused (the model reads why and diagnoses)."""

    def hook(request: TakeoverRequest) -> TakeoverAnswer:
        action = person.get(request.reason)
        if action is None:
            known = ", ".join(sorted(person)) or "none"
            raise TakeoverRefused(f"the suite's person does not do {request.reason} (only: {known})")
        for command in action.shell:
            phone.shell(command, SHELL_TIMEOUT_S)
        return TakeoverAnswer(note=action.note)

    return hook


class TakeoverRefused(RlautoError):
    """The suite's scripted person has no answer for this kind of takeover."""


class _Tally:
    """Passes events on, counting what a task run's record tells: fuses fired, takeovers."""

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink
        self.fuses: list[str] = []
        self.takeovers = 0

    def emit(self, event: AgentEvent) -> None:
        if isinstance(event, PolicyApplied):
            self.fuses.append(f"{event.kind}:{event.fuse}")
        elif isinstance(event, TakeoverRequested):
            self.takeovers += 1
        self._sink.emit(event)


def run_task(
    task: SuiteTask,
    *,
    eval_id: str,
    run: int,
    run_id: str,
    parts: LoopParts,
    clock: Callable[[], float] = time.perf_counter,
) -> TaskRunRecord:
    """Reset, run, check `task` (as `AgentSuite.resolved` gives it: its start state and person
    complete); the record says how it went (an error of the eval itself included)."""
    started_at, began = datetime.now(UTC), clock()
    record = TaskRunRecord(eval_id=eval_id, task_id=task.id, run=run, instruction=task.instruction, tags=task.tags,
                           agent_run_id=run_id, success=False, budget=task.budget, started_at=started_at)  # fmt: skip
    tally = _Tally(parts.sink)
    try:
        start = reset_phone(parts.phone, task)
        loop = AgentLoop(
            model=parts.model, phone=parts.phone, devices=parts.devices, storage=parts.storage, sink=tally,
            settings=parts.settings, takeover=scripted_person(task.person, parts.phone), checkpoint=parts.checkpoint,
            heartbeat_s=parts.heartbeat_s, recall=parts.recall, distiller=parts.distiller,
            mode=replace(AGENT_MODE, max_tool_calls=task.budget),
        )  # fmt: skip
        agent_began = clock()
        result = loop.start(run_id, task.instruction, model=parts.run_model, origin="eval")
        agent_s = clock() - agent_began
        facts = RunFacts(outcome=result.outcome, storage=parts.storage, run_id=run_id, start=start)
        checks = apply_checks(task.checks, PhoneShell(parts.phone), facts)
    except Exception as exc:  # the phone went away, the reset was refused: this task is not measured, the eval goes on
        error = str(exc) if isinstance(exc, RlautoError) else f"{type(exc).__name__}: {exc}"
        return record.model_copy(update={"error": error[:500], "wall_s": round(clock() - began, 4),
                                         "fuses": tally.fuses, "takeovers": tally.takeovers,
                                         "finished_at": datetime.now(UTC)})  # fmt: skip
    usage = result.usage
    return record.model_copy(
        update={
            "success": all(c.passed for c in checks), "outcome": result.outcome, "checks": checks,
            "steps": result.steps, "model_calls": result.model_calls, "tokens_prompt": usage.prompt_tokens,
            "tokens_completion": usage.completion_tokens, "tokens_total": usage.total_tokens, "fuses": tally.fuses,
            "takeovers": tally.takeovers, "agent_s": round(agent_s, 4), "wall_s": round(clock() - began, 4),
            "finished_at": datetime.now(UTC),
        }
    )  # fmt: skip
