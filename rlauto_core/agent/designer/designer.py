"""Designer mode: the same loop explores the phone to design a step task, and hands it in with
the local tool `submit_task` (executed by the platform, never on the phone).

Against the phone agent: a task-designer system prompt, answers capped at 8192 tokens
(`designer_endpoint`), no conversation history, at most 40 tool calls, and `submit_task`. A
submitted draft is checked with the step model; its problems go back to the model as the tool's
error, and it submits again. A valid draft is kept as the latest draft with its warnings and
ends the run; it becomes a task only when a person confirms it (`DraftStore.confirm`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rlauto_core.agent.designer.drafts import Draft, DraftStore, draft_steps, draft_warnings
from rlauto_core.agent.run import AgentSettings, LoopMode, ModelChoice
from rlauto_core.agent.tools import CompletionCheck, LocalCall, TaskReport, ToolOutcome
from rlauto_core.llm.endpoints import EndpointConfig
from rlauto_core.llm.tool_types import ToolSpec
from rlauto_core.redact import redact_strings, redact_text
from rlauto_core.steps import STEP_KINDS
from rlauto_core.store.storage import Storage

DESIGNER_MAX_TOKENS = 8192
DESIGNER_MAX_TOOL_CALLS = 40
SUBMIT_TASK = "submit_task"

DESIGNER_SYSTEM = f"""You design an automation for an Android phone: a step task that a runner will
replay later without you. Explore the phone {{serial}} with the tools to find a path that works
(look with ui_tree and screenshot, try the taps), then hand in the task with `{SUBMIT_TASK}`.
You have at most {DESIGNER_MAX_TOOL_CALLS} tool calls in all.

A step task is a list of steps, each {{"kind": ..., parameters}}. Kinds:
- app_start {{package, stop_first?}}, app_stop {{package}}, open_url {{url}}
- click / wait_element / wait_gone / assert_exists {{selector}}; long_click / double_click {{selector}}
- input_text {{text, selector?, clear?}}, clear_text {{selector?}}, press_key {{key}}, wait {{seconds}}
- swipe {{direction, scale?}}, scroll_to {{selector, direction?}}, assert_text {{selector, expected, match?}}
- screenshot {{label}}, shell {{command}}; click_xy {{x, y}}, gesture and keep_screen only if nothing else works
A selector is {{"text" | "resourceId" | "description" | "className": ..., "instance"?}} or {{"xpath"}},
exactly as ui_tree shows them. Prefer selectors to coordinates; end with a check of the result
(assert_exists or assert_text). If `{SUBMIT_TASK}` answers with problems, fix them and submit again.
A person reviews and confirms the task before it ever runs; submitting does not run it."""


class SubmitTaskArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=120, description="what the task does, e.g. 'Write a note'")
    summary: str = Field(default="", max_length=2000, description="what it does and what a person should know")
    steps: list[Any] = Field(description="the step task: [{kind, ...parameters}, ...]")


def designer_prompt(serial: str) -> str:
    return DESIGNER_SYSTEM.replace("{serial}", serial)


def designer_endpoint(settings: AgentSettings, choice: ModelChoice | None = None) -> EndpointConfig:
    """The agent's endpoint with the designer's answer cap (a whole task in one answer)."""
    return settings.endpoint(choice).model_copy(update={"max_tokens": DESIGNER_MAX_TOKENS})


class SubmitTask:
    """The local tool: check the draft; keep a valid one as the latest draft and end the run."""

    name = SUBMIT_TASK

    def __init__(self, storage: Storage) -> None:
        self.drafts = DraftStore(storage)

    def spec(self) -> ToolSpec:
        schema = SubmitTaskArgs.model_json_schema()
        schema.pop("title", None)
        for prop in schema["properties"].values():
            prop.pop("title", None)
        schema["properties"]["steps"]["items"] = {
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": list(STEP_KINDS)}},
            "required": ["kind"],
        }
        return ToolSpec(
            name=SUBMIT_TASK,
            description="Hand in the designed step task. It is checked; problems come back for you to fix. "
            "A valid task ends this run and waits for a person to confirm it.",
            parameters=schema,
        )

    def _refused(self, args: dict[str, Any], problems: list[str], secrets: tuple[str, ...]) -> ToolOutcome:
        text = redact_text("draft refused: " + "; ".join(problems), secrets)[:1800]
        steps = args.get("steps")
        counted = {
            "name": redact_text(str(args.get("name", ""))[:120], secrets),
            "steps": len(steps) if isinstance(steps, list) else 0,
        }
        return ToolOutcome(
            tool=SUBMIT_TASK, args=counted, ok=False, text=f"ERROR: {text}", error=text, state_changing=False
        )

    def run(self, args: dict[str, Any], call: LocalCall) -> ToolOutcome:
        try:
            submitted = SubmitTaskArgs.model_validate(args)
        except ValidationError as exc:
            problems = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()[:8]]
            return self._refused(args, problems, call.secrets)
        steps, problems = draft_steps(redact_strings(submitted.steps, call.secrets))
        if problems:
            shown = problems[:12] + ([f"and {len(problems) - 12} more"] if len(problems) > 12 else [])
            return self._refused(args, shown, call.secrets)
        warnings = draft_warnings(steps)
        name = redact_text(submitted.name.strip(), call.secrets)
        draft = Draft(
            run_id=call.run_id,
            instruction=redact_text(call.instruction, call.secrets),
            name=name,
            summary=redact_text(submitted.summary, call.secrets),
            steps=steps,
            warnings=warnings,
        )
        self.drafts.keep(draft)
        said = f" Warnings: {'; '.join(warnings)}." if warnings else ""
        summary = f"Draft '{name}' with {len(steps)} steps submitted; a person confirms it before it runs.{said}"
        report = TaskReport(
            kind="completion",
            summary=summary[:4000],
            checked=[f"the draft passed the step check ({len(steps)} steps)"],
            evidence=["the latest draft in agent/designer/draft.json"],
        )
        return ToolOutcome(
            tool=SUBMIT_TASK,
            args={"name": name, "steps": len(steps)},
            ok=True,
            text="draft accepted: " + summary,
            state_changing=False,
            report=report,
            completion=CompletionCheck(accepted=True),
        )


def designer_mode(storage: Storage) -> LoopMode:
    return LoopMode(
        name="designer",
        system=designer_prompt,
        local_tools=(SubmitTask(storage),),
        max_tool_calls=DESIGNER_MAX_TOOL_CALLS,
        max_output_tokens=DESIGNER_MAX_TOKENS,
        takes_history=False,
        distils=False,
    )
