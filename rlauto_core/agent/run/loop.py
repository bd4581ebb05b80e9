"""The agent loop: the model and the tools, round after round, until the run policy ends it.

`AgentLoop.start(run_id, instruction)` begins a run, `AgentLoop.resume(run_id, note)` goes on
with a paused, budget_exhausted, stopped or failed one where it stopped. Each round: the
checkpoint (a cancel stops here), the safety cap, the request (bounded context), one streamed
answer inside a heartbeat, then its tool calls (`turn.run_tools`), then the state is saved.
An accepted completion ends the run at once, without another model round. Everything that
happens is an event in the sink; nothing here knows about Prefect.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, Field

from rlauto_core.agent.events import (
    RESUMABLE,
    AssistantText,
    EventSink,
    ModelCalled,
    Outcome,
    Reasoning,
    RunEnded,
    RunStarted,
    layout,
)
from rlauto_core.agent.events import Heartbeat as HeartbeatEvent
from rlauto_core.agent.policy import ChatReply, Fuse, Resumed, RunPolicy, StepLog
from rlauto_core.agent.run import prompts
from rlauto_core.agent.run.context import OUTPUT_RESERVE_TOKENS, compose
from rlauto_core.agent.run.conversation import REASONING_CHARS, ConversationMessage, ConversationStore
from rlauto_core.agent.run.heartbeat import HEARTBEAT_S, Checkpoint, Heartbeat, StopRequested, WaitingOn
from rlauto_core.agent.run.memory_hooks import RecallSource, RunDistiller, distil_run, recall_into
from rlauto_core.agent.run.mode import AGENT_MODE, LoopMode
from rlauto_core.agent.run.run_list import RunList
from rlauto_core.agent.run.settings import AgentSettings, RunModel
from rlauto_core.agent.run.state import Round, RunState, RunStore
from rlauto_core.agent.run.turn import ActiveRun, TurnEnd, run_tools
from rlauto_core.agent.tools import DeviceDirectory, ScreenStore, TakeoverHook, Toolbox, tool_specs
from rlauto_core.errors import ConfigError
from rlauto_core.llm.stream_parse import OnDelta
from rlauto_core.llm.tool_types import ChatItem, ToolSpec, TurnReply
from rlauto_core.llm.types import TokenUsage
from rlauto_core.redact import redact_text
from rlauto_core.steps.phone import Phone
from rlauto_core.store.storage import Storage


class TurnModel(Protocol):
    """A tool-calling model: `rlauto_core.llm.ToolCallingClient` is one."""

    def turn(
        self,
        items: list[ChatItem],
        tools: list[ToolSpec],
        *,
        on_delta: OnDelta | None = None,
        keep_reasoning: int = REASONING_CHARS,
    ) -> TurnReply: ...


class RunResult(BaseModel):
    run_id: str
    outcome: Outcome
    answer: str
    fuse: Fuse | None = None
    deliverables: list[str] = Field(default_factory=list)
    usage: TokenUsage
    model_calls: int
    steps: int
    error: str | None = None

    @property
    def resumable(self) -> bool:
        return self.outcome in RESUMABLE


class AgentLoop:
    """One phone, one model, one storage. `checkpoint` is called between steps and about once
    a second while waiting (raise `StopRequested` to cancel: keep it cheap); `takeover` blocks
    until a person hands the phone back; `on_delta` sees streamed text (from the model thread).
    Memory (optional): `recall` is asked once at the start (recipes and actions of similar tasks
    go into the system prompt); `distiller` learns from a run that completed. `mode` is the kind
    of run (the phone agent by default; `designer_mode` designs a step task)."""

    def __init__(
        self,
        *,
        model: TurnModel,
        phone: Phone,
        devices: DeviceDirectory,
        storage: Storage,
        sink: EventSink,
        settings: AgentSettings,
        takeover: TakeoverHook | None = None,
        checkpoint: Checkpoint | None = None,
        on_delta: OnDelta | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
        recall: RecallSource | None = None,
        distiller: RunDistiller | None = None,
        mode: LoopMode = AGENT_MODE,
    ) -> None:
        self.model = model
        self.phone = phone
        self.devices = devices
        self.storage = storage
        self.sink = sink
        self.settings = settings
        self.takeover = takeover
        self.checkpoint = checkpoint
        self.on_delta = on_delta
        self.heartbeat_s = heartbeat_s
        self.clock = clock
        self.runs = RunStore(storage)
        self.conversations = ConversationStore(storage)
        self.recall = recall
        self.distiller = distiller
        self.mode = mode
        self.tools = tool_specs() + [tool.spec() for tool in mode.local_tools]
        key = settings.api_key
        self._secrets = (key.get_secret_value(),) if key is not None else ()

    # -- entry points ----------------------------------------------------------------------
    def start(
        self,
        run_id: str,
        instruction: str,
        *,
        conversation_id: str | None = None,
        model: RunModel | None = None,
        origin: str | None = None,
    ) -> RunResult:
        """A new run on `model` (what the caller's client talks to; these settings' model when
        None), kept in the run's state for its resumes; `origin` says who started it (the run list)."""
        if not instruction.strip():
            raise ConfigError("the instruction is empty")
        if self.runs.load(run_id) is not None:
            raise ConfigError(f"run {run_id} exists already: resume it instead")
        if conversation_id and not self.mode.takes_history:
            raise ConfigError(f"a {self.mode.name} run takes no conversation")
        history = self.conversations.load(conversation_id).history(excluding_run=run_id) if conversation_id else []
        state = RunState(
            run_id=run_id,
            serial=self.phone.serial,
            instruction=instruction,
            conversation_id=conversation_id,
            mode=self.mode.name,
            model=model or self.settings.run_model(),
            origin=origin,
        )
        state.history = history
        RunList(self.storage).add(state)
        if conversation_id:
            message = ConversationMessage(role="user", content=instruction, run_id=run_id)
            self.conversations.append(conversation_id, message)
        assert state.model is not None
        self.sink.emit(
            RunStarted(
                run_id=run_id,
                instruction=instruction,
                serial=state.serial,
                model=state.model.model,
                base_url=state.model.base_url,
                conversation_id=conversation_id,
            )
        )
        # the step log is there from the first event, whatever the run does next
        StepLog(self.storage, layout.step_log_path(run_id)).create()
        recall_into(state, self.recall, self.sink)
        return self._drive(state, opening="")

    def resume(self, run_id: str, note: str | None = None, *, model: RunModel | None = None) -> RunResult:
        """Go on where the run stopped, on `model` (its own model when None: what the caller's
        client must talk to, see `RunModel.resumed_with`). A change of model is said in the step
        log and the `run_started` event."""
        state = self.runs.load(run_id)
        if state is None:
            raise ConfigError(f"run {run_id} does not exist")
        if state.status not in RESUMABLE:
            raise ConfigError(
                f"run {run_id} is {state.status}: only a paused, budget_exhausted, stopped or failed run resumes"
            )
        policy = RunPolicy(state.policy, max_model_calls=self.settings.max_model_calls)
        policy.resume()
        state.policy = policy.state
        state.fuse, state.error = None, None
        was = state.model
        state.model = model or was or self.settings.run_model()
        changed = state.model != was
        model_was = was.describe() if changed and was is not None else None
        StepLog(self.storage, layout.step_log_path(run_id)).append(
            Resumed(note=note, model=state.model.describe() if changed else None, model_was=model_was)
        )
        self.sink.emit(
            RunStarted(
                run_id=run_id,
                step=state.steps,
                instruction=state.instruction,
                serial=state.serial,
                model=state.model.model,
                base_url=state.model.base_url,
                conversation_id=state.conversation_id,
                resumed=True,
                note=note,
                model_was=model_was,
            )
        )
        return self._drive(state, opening=prompts.resumed(note))

    # -- the rounds ----------------------------------------------------------------------
    def _open(self, state: RunState) -> ActiveRun:
        def beat(waiting_on: WaitingOn, waited: float) -> None:
            self.sink.emit(
                HeartbeatEvent(run_id=state.run_id, step=state.steps, waiting_on=waiting_on, waited_s=waited)
            )

        screens = ScreenStore(self.storage, state.run_id, self.settings.screenshot_max_bytes, state.screens_taken)
        return ActiveRun(
            state=state,
            policy=RunPolicy(state.policy, max_model_calls=self.settings.max_model_calls),
            toolbox=Toolbox(
                self.phone,
                self.devices,
                self.storage,
                state.run_id,
                screens,
                secrets=self._secrets,
                local_tools=self.mode.local_tools,
                instruction=state.instruction,
            ),
            step_log=StepLog(self.storage, layout.step_log_path(state.run_id)),
            heartbeat=Heartbeat(beat, interval_s=self.heartbeat_s, checkpoint=self.checkpoint, clock=self.clock),
            sink=self.sink,
            takeover=self.takeover,
            save=self.runs.save,
            clock=self.clock,
            max_tool_calls=self.mode.max_tool_calls,
        )

    def _first_look(self, run: ActiveRun, note: str) -> None:
        """The round the loop opens itself: the screen woken and shown (and the resume note)."""
        toolbox = run.toolbox
        round_ = Round(by_model=False, note=note)
        try:
            run.heartbeat.wait("tool", self.phone.wake)
            first = run.heartbeat.wait("tool", lambda: toolbox.screens.capture(self.phone, "the start"))
        except Exception as exc:
            round_.note = (note + "\n" if note else "") + f"(no screenshot: {type(exc).__name__}: {exc})"[:300]
        else:
            round_.screens.append(first)
            run.emit_screen(first)
        run.state.add_round(round_)
        run.state.screens_taken = toolbox.screens.taken

    def _drive(self, state: RunState, opening: str) -> RunResult:
        state.status = "running"
        run = self._open(state)
        try:
            self._first_look(run, opening)
            self.runs.save(state)
            while True:
                if self.checkpoint is not None:
                    self.checkpoint()
                if not run.policy.budget_left:
                    cap = self.settings.max_model_calls
                    answer = f"stopped at the safety cap of {cap} model calls: a fault, not a result; resume to go on"
                    return self._end(run, "budget_exhausted", answer)
                if run.at_tool_cap:
                    answer = f"stopped at the {self.mode.name}'s cap of {self.mode.max_tool_calls} tool calls"
                    return self._end(run, "budget_exhausted", answer)
                ended = self._round(run)
                self.runs.save(state)
                if ended is not None:
                    return self._end(run, ended.outcome, ended.answer, ended.fuse, list(ended.deliverables))
        except StopRequested:
            return self._end(run, "stopped", "stopped on request; resume to go on")
        except Exception as exc:
            error = redact_text(f"{type(exc).__name__}: {exc}", self._secrets)[:500]
            return self._end(run, "failed", f"the run failed: {error}", error=error)
        except BaseException as exc:
            # an interrupt (Ctrl-C, the process told to terminate when its flow run is cancelled):
            # the run is saved as stopped, so it resumes where it was, and the interrupt goes on
            with contextlib.suppress(Exception):
                self._end(run, "stopped", f"stopped: interrupted ({type(exc).__name__}: cancelled?); resume to go on")
            raise

    def _round(self, run: ActiveRun) -> TurnEnd | None:
        state = run.state
        system = self.mode.system(state.serial) + (f"\n\n{state.memory}" if state.memory else "")
        # a longer answer cap than the reserve the context keeps for it comes out of the context
        extra_output = max(0, (self.mode.max_output_tokens or 0) - OUTPUT_RESERVE_TOKENS)
        items = compose(state, system, self.tools, run.toolbox.screens, self.settings.context_tokens - extra_output)
        started = self.clock()
        tools, on_delta = self.tools, self.on_delta
        reply: TurnReply = run.heartbeat.wait("model", lambda: self.model.turn(items, tools, on_delta=on_delta))
        run.policy.on_model_call()
        state.usage = state.usage + reply.usage
        if reply.reasoning:  # the latest reasoning is what the conversation shows
            state.last_reasoning = reply.reasoning[:REASONING_CHARS]
        self.sink.emit(
            ModelCalled(
                run_id=state.run_id,
                step=state.steps,
                call=run.policy.state.model_calls,
                usage=reply.usage,
                run_usage=state.usage,
                usage_reported=reply.usage_reported,
                duration_s=round(self.clock() - started, 4),
                tool_calls=len(reply.tool_calls),
                finish_reason=reply.finish_reason,
            )
        )
        if reply.reasoning:
            self.sink.emit(Reasoning(run_id=state.run_id, step=state.steps, text=state.last_reasoning))
        if reply.text:
            self.sink.emit(AssistantText(run_id=state.run_id, step=state.steps, text=reply.text))
        chat_over = run.policy.on_reply(len(reply.tool_calls))
        if reply.tool_calls:
            return run_tools(run, reply)
        run.step_log.append(ChatReply())
        state.add_round(Round(text=reply.text, note="" if chat_over else prompts.after_plain_text(reply.text)))
        state.policy = run.policy.state
        return TurnEnd(outcome="chat_ended", answer=reply.text) if chat_over else None

    def _end(
        self,
        run: ActiveRun,
        outcome: Outcome,
        answer: str,
        fuse: Fuse | None = None,
        deliverables: list[str] | None = None,
        error: str | None = None,
    ) -> RunResult:
        state = run.state
        state.status = outcome
        state.answer, state.fuse, state.error = answer, fuse, error
        state.deliverables = deliverables or []
        state.policy = run.policy.state
        self.runs.save(state)
        if outcome == "completed" and self.mode.distils and self.distiller is not None:
            distil_run(run, self.distiller, heartbeat_s=self.heartbeat_s, secrets=self._secrets)
        result = RunResult(
            run_id=state.run_id,
            outcome=outcome,
            answer=answer,
            fuse=fuse,
            deliverables=state.deliverables,
            usage=state.usage,
            model_calls=state.policy.model_calls,
            steps=state.steps,
            error=error,
        )
        self.sink.emit(
            RunEnded(
                run_id=state.run_id,
                step=state.steps,
                outcome=outcome,
                answer=answer,
                fuse=fuse,
                usage=state.usage,
                model_calls=result.model_calls,
                deliverables=result.deliverables,
                error=error,
            )
        )
        if state.conversation_id:
            message = ConversationMessage(
                role="assistant",
                content=answer,
                run_id=state.run_id,
                usage=state.usage,
                reasoning=state.last_reasoning or None,
                outcome=outcome,
            )
            self.conversations.append(state.conversation_id, message)
        return result
