"""One model answer's tool calls, in order, under the run policy.

Each call is executed (inside a heartbeat), written to the step log, counted by the policy and
sent as a `ToolCalled` event. The tool messages stay contiguous; what the loop has to say
after them (hints, re-routes, a takeover's note) and the turn's screenshots go in ONE user
message after the last tool message (providers answer 400 to anything between tool messages).
A fresh screenshot is added after a successful state change or a takeover, so the model sees
the effect without a round of its own. A pause, an accepted completion or a takeover ends the
turn: later calls get a "not executed" result, which keeps the history valid.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Literal

from rlauto_core.agent.events import (
    EventSink,
    PolicyApplied,
    ScreenTaken,
    TakeoverEnded,
    TakeoverRequested,
    TaskReported,
    ToolCalled,
)
from rlauto_core.agent.policy import Fuse, NoticeKind, RunPolicy, StepLog, StepRecord
from rlauto_core.agent.run import prompts
from rlauto_core.agent.run.heartbeat import Heartbeat
from rlauto_core.agent.run.state import Round, RunState, ToolResult
from rlauto_core.agent.tools import ScreenRef, TakeoverAnswer, TakeoverHook, TakeoverRequest, Toolbox, ToolOutcome
from rlauto_core.llm.tool_types import ToolCall, TurnReply


@dataclass
class TurnEnd:
    """Why the run ends after this turn."""

    outcome: Literal["completed", "blocked", "paused", "chat_ended"]
    fuse: Fuse | None = None
    answer: str = ""
    deliverables: tuple[str, ...] = ()


@dataclass
class ActiveRun:
    """What one run uses while it runs."""

    state: RunState
    policy: RunPolicy
    toolbox: Toolbox
    step_log: StepLog
    heartbeat: Heartbeat
    sink: EventSink
    takeover: TakeoverHook | None
    save: Callable[[RunState], None]
    clock: Callable[[], float] = time.monotonic
    max_tool_calls: int | None = None

    @property
    def at_tool_cap(self) -> bool:
        return self.max_tool_calls is not None and self.state.steps >= self.max_tool_calls

    def emit_screen(self, screen: ScreenRef) -> None:
        state = self.state
        self.sink.emit(
            ScreenTaken(
                run_id=state.run_id,
                step=state.steps,
                caption=screen.caption,
                screen=screen.path,
                thumbnail=screen.thumbnail,
            )
        )

    def emit_tool(self, call: ToolCall, outcome: ToolOutcome, duration: float) -> None:
        screen = outcome.screen
        self.sink.emit(
            ToolCalled(
                run_id=self.state.run_id,
                step=self.state.steps,
                call_id=call.id,
                tool=outcome.tool,
                args=outcome.args,
                ok=outcome.ok,
                result=outcome.text[:2000],
                error=outcome.error,
                state_changing=outcome.state_changing,
                rejected=outcome.rejected,
                coordinates=outcome.coordinates,
                duration_s=round(duration, 4),
                screen=screen.path if screen else None,
                thumbnail=screen.thumbnail if screen else None,
            )
        )


def _stale(outcome: ToolOutcome, step: int) -> str | None:
    if outcome.tool != "ui_tree" or not outcome.ok:
        return None
    extra = outcome.extra
    return f"[UI tree of {extra.get('package')} at step {step}, {extra.get('elements')} elements: not shown again]"


def _hand_over(run: ActiveRun, outcome: ToolOutcome) -> tuple[ToolOutcome, str | None]:
    """Let a person act; the outcome as the model reads it, and the note after the turn."""
    args = outcome.takeover
    assert args is not None
    if run.takeover is None:
        failed = outcome.model_copy(
            update={"ok": False, "error": prompts.NO_PERSON, "text": f"ERROR: {prompts.NO_PERSON}"}
        )
        return failed, None
    state = run.state
    request = TakeoverRequest(
        run_id=state.run_id, serial=state.serial, reason=args.reason, message=args.message, step=state.steps
    )
    run.sink.emit(TakeoverRequested(run_id=state.run_id, step=state.steps, reason=args.reason, message=args.message))
    state.status = "waiting_for_person"
    run.save(state)
    hook = run.takeover
    try:
        answer: TakeoverAnswer = run.heartbeat.wait("person", lambda: hook(request))
    except Exception as exc:
        problem = f"the takeover ended without the person: {type(exc).__name__}: {exc}"[:300]
        state.status = "running"
        return outcome.model_copy(update={"ok": False, "error": problem, "text": f"ERROR: {problem}"}), None
    state.status = "running"
    run.sink.emit(TakeoverEnded(run_id=state.run_id, step=state.steps, note=answer.note))
    done = outcome.model_copy(update={"text": f"a person did the {args.reason} step and handed the phone back"})
    return done, prompts.takeover_done(args.reason, answer.note)


def run_tools(run: ActiveRun, reply: TurnReply) -> TurnEnd | None:
    state = run.state
    round_ = Round(text=reply.text, tool_calls=reply.tool_calls)
    notes: list[str] = []
    end: TurnEnd | None = None
    took_over = False
    changed_since_screen = False
    for call in reply.tool_calls:
        if end is not None or took_over or run.at_tool_cap:
            skipped = prompts.SKIPPED_AFTER_END if end is not None else prompts.SKIPPED_AFTER_TAKEOVER
            skipped = prompts.SKIPPED_AT_CAP if end is None and not took_over else skipped
            round_.results.append(ToolResult(call_id=call.id, tool=call.name, content=skipped))
            continue
        started = run.clock()
        outcome = run.heartbeat.wait("tool", partial(run.toolbox.run, call))
        if outcome.takeover is not None and outcome.ok:
            outcome, note = _hand_over(run, outcome)
            if note is not None:
                took_over = True
                notes.append(note)
        state.steps += 1
        record = StepRecord(
            tool=outcome.tool,
            args=outcome.args,
            ok=outcome.ok,
            error=outcome.error,
            state_changing=outcome.state_changing,
            rejected=outcome.rejected,
        )
        run.step_log.append(record)
        notices = run.policy.on_step(record)
        round_.results.append(
            ToolResult(call_id=call.id, tool=call.name, content=outcome.text, stale=_stale(outcome, state.steps))
        )
        if outcome.screen is not None:
            round_.screens.append(outcome.screen)
            changed_since_screen = False
        elif outcome.ok and outcome.state_changing:
            changed_since_screen = True
        run.emit_tool(call, outcome, run.clock() - started)
        if outcome.report is not None:
            _emit_report(run, outcome)
        for notice in notices:
            text = prompts.notice_text(notice, state.instruction)
            run.sink.emit(
                PolicyApplied(
                    run_id=state.run_id,
                    step=state.steps,
                    kind=notice.kind,
                    fuse=notice.fuse,
                    streak=notice.streak,
                    detail=notice.detail[:300],
                    message=text,
                )
            )
            if notice.kind is NoticeKind.PAUSE:
                end = TurnEnd(outcome="paused", fuse=notice.fuse, answer=text)
            else:
                notes.append(text)
        if end is None and outcome.completion is not None and outcome.completion.accepted:
            assert outcome.report is not None
            end = TurnEnd(
                outcome="blocked" if outcome.report.kind == "blocked" else "completed",
                answer=outcome.report.summary,
                deliverables=tuple(outcome.completion.deliverables),
            )
    if end is None and (took_over or changed_since_screen):
        caption = "after the takeover" if took_over else f"after step {state.steps}"
        toolbox = run.toolbox
        try:
            fresh = run.heartbeat.wait("tool", lambda: toolbox.screens.capture(toolbox.phone, caption))
        except Exception as exc:
            notes.append(f"(no fresh screenshot: {type(exc).__name__}: {exc})"[:300])
        else:
            round_.screens.append(fresh)
            run.emit_screen(fresh)
    round_.note = "\n".join(notes)
    state.add_round(round_)
    state.policy = run.policy.state
    state.screens_taken = run.toolbox.screens.taken
    return end


def _emit_report(run: ActiveRun, outcome: ToolOutcome) -> None:
    report = outcome.report
    assert report is not None
    check = outcome.completion
    run.sink.emit(
        TaskReported(
            run_id=run.state.run_id,
            step=run.state.steps,
            kind=report.kind,
            summary=report.summary,
            accepted=outcome.ok if report.kind in ("completion", "blocked") else True,
            problems=check.problems if check else [],
            checked=report.checked,
            evidence=report.evidence,
            deliverables=check.deliverables if check and check.accepted else report.deliverables,
        )
    )
