"""The tools, executed over the `Phone` protocol. A tool never crashes a run: a failing phone,
an unknown tool, broken JSON or invalid arguments come back to the model as a tool error. The
last three never reach the phone: their outcome is `rejected` (why) and changes no state.

`request_takeover` is only validated here; the loop hands the phone to a person.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError

from rlauto_core.agent.policy import Rejected, default_state_changing
from rlauto_core.agent.tools.local import LocalCall, LocalTool
from rlauto_core.agent.tools.report import (
    ENDING_KINDS,
    CompletionCheck,
    TaskReport,
    check_completion,
    checked_name,
    save_file,
)
from rlauto_core.agent.tools.screens import ScreenRef, ScreenStore
from rlauto_core.agent.tools.takeover import TakeoverArgs
from rlauto_core.agent.tools.tool_args import (
    TOOL_NAMES,
    WAIT_CAP_S,
    AppArgs,
    AppStartArgs,
    PressKeyArgs,
    SaveScreenshotArgs,
    SwipeArgs,
    TapArgs,
    TypeTextArgs,
    WaitArgs,
    WriteFileArgs,
    argument_model,
)
from rlauto_core.agent.tools.ui_tree import compress_hierarchy
from rlauto_core.llm.tool_types import ToolCall
from rlauto_core.redact import redact_text
from rlauto_core.steps.models import Selector
from rlauto_core.steps.phone import Phone
from rlauto_core.store.storage import Storage

log = logging.getLogger("rlauto.agent")
FIND_TIMEOUT_S = 3.0
UI_TREE_MAX_CHARS = 8000
_ERROR_CHARS = 400


class DeviceInfo(BaseModel):
    serial: str
    state: str
    model: str = ""


class DeviceDirectory(Protocol):
    """The phones the host sees (`device_flows.phone.AdbDirectory` in a deployment)."""

    def list_devices(self) -> list[DeviceInfo]: ...


class ToolOutcome(BaseModel):
    """One executed call. `text` is what the model reads; `args` what the step log records."""

    tool: str
    args: dict[str, Any]
    ok: bool
    text: str
    error: str | None = None
    state_changing: bool
    rejected: Rejected | None = None
    coordinates: bool = False
    screen: ScreenRef | None = None
    report: TaskReport | None = None
    completion: CompletionCheck | None = None
    takeover: TakeoverArgs | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class ToolFailed(Exception):
    """A tool could not do what was asked; the message goes to the model."""


class Toolbox:
    def __init__(
        self,
        phone: Phone,
        devices: DeviceDirectory,
        storage: Storage,
        run_id: str,
        screens: ScreenStore,
        *,
        secrets: tuple[str, ...] = (),
        wait_cap_s: float = WAIT_CAP_S,
        local_tools: Sequence[LocalTool] = (),
        instruction: str = "",
    ) -> None:
        self.phone = phone
        self.devices = devices
        self.storage = storage
        self.run_id = run_id
        self.screens = screens
        self._secrets = secrets
        self.wait_cap_s = wait_cap_s
        self._local = {tool.name: tool for tool in local_tools}  # the mode's tools, run by the platform
        self.instruction = instruction
        self._run: dict[str, Callable[[Any], ToolOutcome]] = {
            "list_devices": self._list_devices,
            "screenshot": self._screenshot,
            "ui_tree": self._ui_tree,
            "tap": self._tap,
            "type_text": self._type_text,
            "swipe": self._swipe,
            "press_key": self._press_key,
            "app_start": self._app_start,
            "app_stop": self._app_stop,
            "wait": self._wait,
            "save_screenshot": self._save_screenshot,
            "write_file": self._write_file,
            "report_task": self._report_task,
            "request_takeover": self._request_takeover,
        }

    def run(self, call: ToolCall) -> ToolOutcome:
        """Execute one call; every failure becomes a tool error (only BaseExceptions such as a
        stop request pass through)."""
        try:
            raw = call.parsed_arguments()
        except ValueError as exc:
            return self._failed(call.name, {"_raw": call.arguments[:500]}, str(exc), rejected="not_json")
        if call.name in self._local:
            return self._run_local(call.name, raw)
        if call.name not in self._run:
            tools = ", ".join([*TOOL_NAMES, *self._local])
            return self._failed(call.name, raw, f"unknown tool {call.name!r} (tools: {tools})", rejected="unknown_tool")
        try:
            args = argument_model(call.name).model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5]
            )
            return self._failed(call.name, raw, f"invalid arguments: {problems}", rejected="invalid_arguments")
        counted = args.model_dump(mode="json", exclude_defaults=True)  # as a success would count it
        try:
            return self._run[call.name](args)
        except ToolFailed as exc:
            return self._failed(call.name, counted, str(exc))
        except Exception as exc:
            # no tool name in the text: the same fault under different tools is the same error
            return self._failed(call.name, counted, f"{type(exc).__name__}: {str(exc) or 'no detail'}")

    def _run_local(self, name: str, raw: dict[str, Any]) -> ToolOutcome:
        try:
            return self._local[name].run(raw, LocalCall(self.run_id, self.instruction, self._secrets))
        except Exception as exc:
            return self._failed(name, raw, f"{type(exc).__name__}: {str(exc) or 'no detail'}")

    def _failed(self, tool: str, args: dict[str, Any], error: str, *, rejected: Rejected | None = None) -> ToolOutcome:
        error = redact_text(" ".join(error.split()), self._secrets)[:_ERROR_CHARS]
        return ToolOutcome(
            tool=tool,
            args=args,
            ok=False,
            text=f"ERROR: {error}",
            error=error,
            # a call that never reached the phone changed nothing: an error, never a repeated action
            state_changing=rejected is None and default_state_changing(tool),
            rejected=rejected,
        )

    def _done(self, tool: str, args: BaseModel, text: str, **fields: Any) -> ToolOutcome:
        return ToolOutcome(
            tool=tool,
            args=args.model_dump(mode="json", exclude_defaults=True),
            ok=True,
            text=text,
            state_changing=default_state_changing(tool),
            **fields,
        )

    # -- observation -----------------------------------------------------------------------
    def _list_devices(self, args: BaseModel) -> ToolOutcome:
        devices = self.devices.list_devices()
        lines = [
            f"- {d.serial} {d.state}{' ' + d.model if d.model else ''}"
            + (" (the target: you operate this one)" if d.serial == self.phone.serial else "")
            for d in devices
        ]
        return self._done("list_devices", args, "\n".join(lines) or "no phone is connected")

    def _screenshot(self, args: BaseModel) -> ToolOutcome:
        ref = self.screens.capture(self.phone, "screenshot")
        text = f"screenshot {ref.number} ({ref.width}x{ref.height}, {ref.bytes // 1024} KB) follows the tool results"
        return self._done("screenshot", args, text, screen=ref)

    def _ui_tree(self, args: BaseModel) -> ToolOutcome:
        tree = compress_hierarchy(self.phone.dump_hierarchy(), UI_TREE_MAX_CHARS)
        return self._done("ui_tree", args, tree.text, extra={"package": tree.package, "elements": tree.elements})

    def _wait(self, args: WaitArgs) -> ToolOutcome:
        seconds = min(args.seconds, self.wait_cap_s)
        self.phone.sleep(seconds)
        cut = args.seconds > self.wait_cap_s
        capped = f" (cut to the {self.wait_cap_s:g} s cap; wait again if needed)" if cut else ""
        return self._done("wait", args, f"waited {seconds:g} s{capped}")

    # -- actions ---------------------------------------------------------------------------
    def _tap(self, args: TapArgs) -> ToolOutcome:
        if args.x is not None and args.y is not None:
            log.warning("run %s: tap by coordinates (%d, %d), the last resort", self.run_id, args.x, args.y)
            self.phone.click(args.x, args.y)
            text = (
                f"tapped ({args.x}, {args.y}) by coordinates: the last resort, prefer text, resource_id or description"
            )
            return self._done("tap", args, text, coordinates=True)
        selector = Selector(
            text=args.text, resourceId=args.resource_id, description=args.description, instance=args.index or None
        )
        element = self.phone.find(selector, FIND_TIMEOUT_S)
        if element is None:
            raise ToolFailed(f"no element with {selector.describe()} on the screen (read ui_tree for what is there)")
        x, y = element.center
        self.phone.click(x, y)
        label = f" {element.text!r}" if element.text else ""
        return self._done("tap", args, f"tapped{label} ({selector.describe()}) at ({x}, {y})")

    def _type_text(self, args: TypeTextArgs) -> ToolOutcome:
        if args.clear:
            self.phone.clear_text()
        self.phone.input_text(args.text)
        return self._done(
            "type_text", args, f"typed {len(args.text)} characters" + (" after clearing" if args.clear else "")
        )

    def _swipe(self, args: SwipeArgs) -> ToolOutcome:
        screen = self.phone.screen()
        cx, cy = screen.width // 2, screen.height // 2
        dx, dy = round(screen.width * args.distance / 2), round(screen.height * args.distance / 2)
        start, end = {
            "up": ((cx, cy + dy), (cx, cy - dy)),
            "down": ((cx, cy - dy), (cx, cy + dy)),
            "left": ((cx + dx, cy), (cx - dx, cy)),
            "right": ((cx - dx, cy), (cx + dx, cy)),
        }[args.direction]
        self.phone.swipe(start, end, args.duration_s)
        return self._done("swipe", args, f"swiped {args.direction} from {start} to {end}")

    def _press_key(self, args: PressKeyArgs) -> ToolOutcome:
        self.phone.press_key(args.key)
        return self._done("press_key", args, f"pressed {args.key}")

    def _app_start(self, args: AppStartArgs) -> ToolOutcome:
        self.phone.app_start(args.package, None, args.stop_first)
        return self._done("app_start", args, f"started {args.package}")

    def _app_stop(self, args: AppArgs) -> ToolOutcome:
        self.phone.app_stop(args.package)
        return self._done("app_stop", args, f"stopped {args.package}")

    # -- deliverables, reports, a person -------------------------------------------------------
    def _save_screenshot(self, args: SaveScreenshotArgs) -> ToolOutcome:
        name = checked_name(args.name if args.name.lower().endswith(".jpg") else args.name + ".jpg", (".jpg",))
        ref = self.screens.capture(self.phone, f"saved as files/{name}")
        path = save_file(self.storage, self.run_id, name, self.screens.read(ref))
        return self._done(
            "save_screenshot", args, f"saved the screen as {path} (a deliverable of this run)", screen=ref
        )

    def _write_file(self, args: WriteFileArgs) -> ToolOutcome:
        name = checked_name(args.name, (".txt", ".md", ".json", ".csv"))
        if name.lower().endswith(".json"):
            try:
                json.loads(args.content)
            except json.JSONDecodeError as exc:
                raise ToolFailed(f"{name}: content is not JSON ({exc.msg})") from None
        path = save_file(self.storage, self.run_id, name, args.content.encode("utf-8"))
        return self._done("write_file", args, f"wrote {path} ({len(args.content)} characters)")

    def _report_task(self, report: TaskReport) -> ToolOutcome:
        if report.kind not in ENDING_KINDS:
            return self._done("report_task", report, f"{report.kind} recorded; go on with the task", report=report)
        check = check_completion(report, self.storage, self.run_id)
        word = "completion" if report.kind == "completion" else "blocker report"
        if check.accepted:
            return self._done("report_task", report, f"{word} accepted: the run ends", report=report, completion=check)
        problems = "; ".join(check.problems)
        outcome = self._failed(
            "report_task", report.model_dump(mode="json", exclude_defaults=True), f"{word} refused: {problems}"
        )
        return outcome.model_copy(update={"report": report, "completion": check})

    def _request_takeover(self, args: TakeoverArgs) -> ToolOutcome:
        return self._done("request_takeover", args, f"asking a person: {args.reason}", takeover=args)
