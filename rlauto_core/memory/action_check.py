"""What an action may hold: the check shared by distillation, manual edits and
`rlauto actions check`, so a saved action always passed the same rules.

An action is `{"name", "aliases"?, "steps"}`: a name and at most 8 aliases (1-80 characters, no
control characters), and 1-4 steps of the step model (`rlauto_core.steps`) with every required
parameter (a click needs a selector). Allowed kinds are the 21 step kinds minus `click_xy`,
`keep_screen` and `gesture`. No coordinate anywhere: no `x`/`y`, points or bounds, no xpath on
`@bounds`, no shell command that touches coordinates (`input tap|swipe|roll|...`, `sendevent`,
however quoted). Coordinates break on another screen size or
layout; a selector is what makes an action reusable. Every problem is named, not just the first.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.steps import STEP_KINDS, StepError, parse_steps

EXCLUDED_KINDS = {
    "click_xy": "it taps coordinates, which break on another screen size or layout (click a selector instead)",
    "keep_screen": "it changes the phone's power setting, not an app",
    "gesture": "a recorded gesture is a list of coordinates",
}
ACTION_KINDS = tuple(kind for kind in STEP_KINDS if kind not in EXCLUDED_KINDS)
MAX_ACTION_STEPS = 4
MAX_ALIASES = 8
MAX_NAME_CHARS = 80
_KEYS = ("name", "aliases", "steps")
_COORDINATE_KEYS = frozenset({"x", "y", "x1", "y1", "x2", "y2", "points", "bounds", "coordinates", "position"})
# `input [-d DISPLAY] [SOURCE] COMMAND ...` with a command that touches a place, and `sendevent`
_SHELL_TOUCH = re.compile(
    r"(?i)\bsendevent\b|\binput\s+(?:-d\s+\S+\s+)?(?:(?:touchscreen|touchpad|touchnavigation|mouse|trackball|stylus"
    r"|joystick|gamepad|dpad|keyboard|rotaryencoder)\s+)?(?:tap|swipe|draganddrop|motionevent|roll|press)\b"
)
_SHELL_QUOTING = re.compile(r"[\"'\\]")  # `in"put" t\ap` is still `input tap` to the shell
_MAX_DEPTH = 12
_SHOWN_STEPS = 10


class ActionSpec(BaseModel):
    """A checked action: the steps as the step model reads them (defaults left out)."""

    name: str
    aliases: list[str] = Field(default_factory=list)
    steps: list[dict[str, Any]]


class ActionCheck(BaseModel):
    ok: bool
    problems: list[str] = Field(default_factory=list)
    action: ActionSpec | None = None


def _label_problem(value: Any, what: str) -> str | None:
    if not isinstance(value, str):
        return f"{what} must be text, got {type(value).__name__}"
    text = value.strip()
    if not text:
        return f"{what} is empty"
    if len(text) > MAX_NAME_CHARS:
        return f"{what} has {len(text)} characters: at most {MAX_NAME_CHARS}"
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in text):
        return f"{what} holds control characters"
    return None


def _coordinates(value: Any, depth: int = 0) -> str | None:
    """Where a step holds a coordinate, or None."""
    if depth > _MAX_DEPTH:
        return "nested too deep"
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and key.lower() in _COORDINATE_KEYS:
                return f"coordinates ({key}) are not allowed in an action: find the element by a selector"
            if key == "xpath" and isinstance(item, str) and "@bounds" in item:
                return "an xpath on @bounds is a coordinate: select by text, resourceId or description"
            if key == "command" and isinstance(item, str) and _SHELL_TOUCH.search(_SHELL_QUOTING.sub("", item)):
                return "a shell command touching coordinates (input tap/swipe, sendevent): use a click step with a selector"
            found = _coordinates(item, depth + 1)
            if found:
                return found
    elif isinstance(value, list):
        for item in value:
            found = _coordinates(item, depth + 1)
            if found:
                return found
    return None


def _step_problems(position: int, raw: Any) -> tuple[list[str], dict[str, Any] | None]:
    where = f"step {position}"
    if not isinstance(raw, dict):
        return [f"{where}: expected an object with a kind, got {type(raw).__name__}"], None
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in STEP_KINDS:
        return [f"{where}: unknown kind {str(kind)[:40]!r} (an action may use: {', '.join(ACTION_KINDS)})"], None
    where = f"{where} ({kind})"
    if kind in EXCLUDED_KINDS:
        return [f"{where}: not allowed in an action: {EXCLUDED_KINDS[kind]}"], None
    problems = []
    located = _coordinates(raw)
    if located:
        problems.append(f"{where}: {located}")
    try:
        step = parse_steps([raw], file="action")[0]
    except StepError as exc:
        problems.append(where + exc.problem.removeprefix(f"step 1 ({kind})"))
        return problems, None
    except RecursionError:
        return [*problems, f"{where}: nested too deep"], None
    return problems, step.model_dump(mode="json", exclude_defaults=True)


def check_action(data: Any) -> ActionCheck:
    """Every problem of one action, or the action as it may be saved."""
    if not isinstance(data, dict):
        return ActionCheck(
            ok=False, problems=[f"expected an object {{name, aliases, steps}}, got {type(data).__name__}"]
        )
    problems = [f"unknown key {str(k)[:40]!r} (an action has name, aliases, steps)" for k in data if k not in _KEYS]
    name_problem = _label_problem(data.get("name"), "name")
    if name_problem:
        problems.append(name_problem)
    aliases_raw = data.get("aliases", [])
    aliases: list[str] = []
    if not isinstance(aliases_raw, list):
        problems.append(f"aliases must be a list of names, got {type(aliases_raw).__name__}")
    elif len(aliases_raw) > MAX_ALIASES:
        problems.append(f"{len(aliases_raw)} aliases: at most {MAX_ALIASES}")
    else:
        for number, alias in enumerate(aliases_raw, start=1):
            problem = _label_problem(alias, f"alias {number}")
            if problem:
                problems.append(problem)
            elif alias.strip() not in aliases:
                aliases.append(alias.strip())
    steps_raw = data.get("steps")
    steps: list[dict[str, Any]] = []
    if "steps" not in data:
        problems.append("steps: missing (a list of 1-4 steps)")
    elif not isinstance(steps_raw, list):
        problems.append(f"steps must be a list, got {type(steps_raw).__name__}")
    elif not steps_raw:
        problems.append("steps: empty (an action has 1-4 steps)")
    else:
        if len(steps_raw) > MAX_ACTION_STEPS:
            problems.append(
                f"{len(steps_raw)} steps: an action has at most {MAX_ACTION_STEPS} (a longer one is a task)"
            )
        for position, raw in enumerate(steps_raw[:_SHOWN_STEPS], start=1):
            step_problems, step = _step_problems(position, raw)
            problems += step_problems
            if step is not None:
                steps.append(step)
    if problems:
        return ActionCheck(ok=False, problems=problems)
    name = str(data["name"]).strip()
    return ActionCheck(ok=True, action=ActionSpec(name=name, aliases=[a for a in aliases if a != name], steps=steps))
