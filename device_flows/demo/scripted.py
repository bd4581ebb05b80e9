"""The scripted model: plays the demo phone's tasks with no key and no endpoint.

`--model scripted` (`SCRIPTED_MODEL`) makes the `run-agent` flow use it instead of an endpoint,
so a newcomer can watch the whole loop work (tools, screens, policy, takeover, the completion
check, the dashboard) before paying for a model. It reads what a model reads (the task and the
latest UI tree in the request) and answers one tool call a turn, as a careful model would: look
(ui_tree) after every action, act by text or resource id, ask a person to sign in, save the
result's screen and report completion with it. It knows three kinds of task:
- "Write the note 'Call Alice'" (notes),
- "Add 'Eggs' to the shopping list" (shopping),
- "Turn on Wi-Fi" / "turn off Bluetooth" / airplane mode / dark theme (settings);
anything else gets a plain answer saying so (4 of them end the run `chat_ended`).
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from rlauto_core.llm import AssistantItem, ChatItem, TokenUsage, ToolCall, ToolResultItem, ToolSpec, TurnReply, UserItem

SCRIPTED_MODEL = "scripted"
RESULT_FILE = "result"
_QUOTED = r"['\"“‘「](.+?)['\"”’」]"
_NOTE = re.compile(r"(?i)\bnote\b.*?" + _QUOTED)
_SHOPPING = re.compile(r"(?i)\b(?:add|put)\b\s*" + _QUOTED + r".*\bshopping\b")
_SWITCH = re.compile(r"(?i)\b(?:turn|switch)\s+(on|off)\s+(?:the\s+)?(wi-?fi|bluetooth|airplane mode|dark theme)\b"
                     r"|\b(enable|disable)\s+(?:the\s+)?(wi-?fi|bluetooth|airplane mode|dark theme)\b")  # fmt: skip
_LINE = re.compile(r'^\s*- (?P<cls>\S+)(?: text="(?P<text>.*?)")?(?: id=(?P<id>\S+))?(?: desc="(?P<desc>.*?)")?'
                   r"(?P<flags>(?: [a-z-]+)*)(?: \[.*)?$")  # fmt: skip
_LABELS = {"wifi": "Wi-Fi", "wi-fi": "Wi-Fi", "bluetooth": "Bluetooth", "airplane mode": "Airplane mode",
           "dark theme": "Dark theme"}  # fmt: skip
NOTES, SETTINGS, SHOPPING = "com.example.notes", "com.android.settings", "com.example.shopping"
KNOWN = (
    "Write the note 'TEXT'; Add 'ITEM' to the shopping list; Turn on/off Wi-Fi, Bluetooth, airplane mode or dark theme"
)


@dataclass(frozen=True)
class Seen:
    """One element of the UI tree as the model reads it."""

    cls: str
    text: str
    rid: str
    desc: str
    flags: frozenset[str]


@dataclass(frozen=True)
class Screen:
    package: str
    elements: tuple[Seen, ...]

    def find(self, *, text: str | None = None, rid: str | None = None, desc: str | None = None) -> Seen | None:
        return next(
            (e for e in self.elements
             if (text is None or e.text == text) and (rid is None or e.rid.endswith(rid)) and (desc is None or e.desc == desc)),
            None,
        )  # fmt: skip


def read_tree(text: str) -> Screen | None:
    """The UI tree tool's text back into elements; None when it is not one."""
    lines = text.splitlines()
    head = re.match(r"^UI tree of (\S+) \(", lines[0]) if lines else None
    if head is None:
        return None
    seen = []
    for line in lines[1:]:
        match = _LINE.match(line)
        if match:
            seen.append(Seen(match["cls"], match["text"] or "", match["id"] or "", match["desc"] or "",
                             frozenset(match["flags"].split())))  # fmt: skip
    return Screen(head.group(1), tuple(seen))


@dataclass(frozen=True)
class Task:
    kind: str  # note, shopping, switch
    value: str  # the note's text, the item, the switch's label
    on: bool = True

    @property
    def package(self) -> str:
        return {"note": NOTES, "shopping": SHOPPING, "switch": SETTINGS}[self.kind]


def understand(instruction: str) -> Task | None:
    if match := _SWITCH.search(instruction):
        verb, what = (match[1], match[2]) if match[1] else (match[3], match[4])
        return Task("switch", _LABELS[what.lower()], on=verb.lower() in ("on", "enable"))
    if match := _SHOPPING.search(instruction):
        return Task("shopping", match[1].strip())
    if match := _NOTE.search(instruction):
        return Task("note", match[1].strip())
    return None


def _done(task: Task, screen: Screen) -> bool:
    if task.kind == "note":
        return (
            screen.package == NOTES
            and screen.find(rid=":id/new") is not None
            and screen.find(text=task.value) is not None
        )
    if task.kind == "shopping":
        return screen.package == SHOPPING and screen.find(text=task.value, rid=":id/item") is not None
    switch = screen.find(desc=task.value) if screen.package == SETTINGS else None
    return switch is not None and ("checked" in switch.flags) == task.on


def next_action(task: Task, screen: Screen) -> tuple[str, dict[str, Any], str]:
    """(tool, arguments, why) for a task on the screen the latest UI tree shows."""
    if _done(task, screen):
        return "save_screenshot", {"name": RESULT_FILE}, "the goal shows on the screen: keep it as the evidence"
    if screen.package != task.package:
        return "app_start", {"package": task.package}, f"the task is in {task.package}: start it"
    if screen.find(text="Sign in to Notes") is not None:
        message = "Sign in to Notes on the phone (the password is yours, not mine to type), then hand the phone back."
        return "request_takeover", {"reason": "login", "message": message}, "a sign-in only a person may do"
    if task.kind == "switch":
        return "tap", {"description": task.value}, f"flip the {task.value} switch"
    field_id, confirm = (":id/body", "Save") if task.kind == "note" else (":id/new_item", "Add")
    field = screen.find(rid=field_id)
    if field is None:
        return "tap", {"text": "New note"}, "open the editor for a new note"
    if field.text == task.value:
        return "tap", {"text": confirm}, f"the text is in: tap {confirm}"
    if "focused" not in field.flags:
        return "tap", {"resource_id": task.package + field_id}, "focus the text field first"
    return "type_text", {"text": task.value, "clear": True}, "type the text into the focused field"


def _instruction(items: list[ChatItem]) -> str:
    for item in items:
        if isinstance(item, UserItem) and item.content.startswith("TASK: "):
            return item.content.removeprefix("TASK: ").split("\n\n", 1)[0]
    return ""


def _last_turn(items: list[ChatItem]) -> tuple[ToolCall | None, ToolResultItem | None]:
    """The last tool call the model made and its result."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, AssistantItem) and item.tool_calls:
            call = item.tool_calls[-1]
            result = next(
                (r for r in items[index + 1 :] if isinstance(r, ToolResultItem) and r.call_id == call.id), None
            )
            return call, result
    return None, None


class ScriptedModel:
    """A `TurnModel` (rlauto_core.agent.run) for the demo phone's tasks; no network, no key."""

    def turn(self, items: list[ChatItem], tools: list[ToolSpec], **_: Any) -> TurnReply:
        task = understand(_instruction(items))
        if task is None:
            return self._say(f"The scripted model knows only the demo phone's tasks: {KNOWN}.")
        call, result = _last_turn(items)
        ok = result is not None and not result.content.startswith("ERROR")
        if call is not None and call.name == "save_screenshot" and ok:
            return self._call("report_task", {
                "kind": "completion", "summary": f"Done on the phone: {_instruction(items)}",
                "checked": [f"the screen shows {task.value!r}" + ("" if task.kind != "switch" else f" {'on' if task.on else 'off'}")],
                "evidence": ["the UI tree read after the last action", f"files/{RESULT_FILE}.jpg"],
                "deliverables": [f"files/{RESULT_FILE}.jpg"], "todo": [],
            }, "the result is saved: report completion with it")  # fmt: skip
        screen = (
            read_tree(result.content) if result is not None and call is not None and call.name == "ui_tree" else None
        )
        if screen is None:
            return self._call("ui_tree", {}, "look at the screen before acting")
        tool, args, why = next_action(task, screen)
        return self._call(tool, args, why)

    @staticmethod
    def _call(tool: str, args: dict[str, Any], why: str) -> TurnReply:
        call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=tool, arguments=json.dumps(args, ensure_ascii=False))
        return TurnReply(reasoning=why, tool_calls=[call], usage=TokenUsage(calls=1), usage_reported=True,
                         model=SCRIPTED_MODEL, finish_reason="tool_calls")  # fmt: skip

    @staticmethod
    def _say(text: str) -> TurnReply:
        return TurnReply(text=text, usage=TokenUsage(calls=1), usage_reported=True, model=SCRIPTED_MODEL,
                         finish_reason="stop")  # fmt: skip
