"""The tools the model sees: their arguments (validated) and their OpenAI tool schemas.

Taps go by text, resource-id or description; coordinates are the last resort and every such
tap is logged as one. `wait` is capped. `save_screenshot` and `write_file` make the run's
deliverables (files in its own storage folder) that a completion report may name.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rlauto_core.agent.tools.report import TaskReport
from rlauto_core.agent.tools.takeover import TakeoverArgs
from rlauto_core.llm.tool_types import ToolSpec
from rlauto_core.steps.models import KEY_NAMES

WAIT_CAP_S = 30.0
_KEY_ENUM: dict[str, Any] = {"enum": sorted(KEY_NAMES)}
_PACKAGE = r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NoArgs(_Args):
    pass


class TapArgs(_Args):
    text: str | None = Field(default=None, min_length=1, max_length=500, description="the element's exact text")
    resource_id: str | None = Field(default=None, min_length=1, max_length=300, description="e.g. com.app:id/save")
    description: str | None = Field(default=None, min_length=1, max_length=500, description="content-desc")
    index: int = Field(default=0, ge=0, le=100, description="the n-th matching element, from 0")
    x: int | None = Field(default=None, ge=0, le=20000, description="pixels; ONLY when no selector works")
    y: int | None = Field(default=None, ge=0, le=20000, description="pixels; ONLY when no selector works")

    @model_validator(mode="after")
    def _one_way(self) -> TapArgs:
        selects = any(v is not None for v in (self.text, self.resource_id, self.description))
        point = self.x is not None or self.y is not None
        if selects and point:
            raise ValueError("give a selector (text, resource_id, description) or x and y, not both")
        if not selects and not point:
            raise ValueError("give text, resource_id or description (or, as a last resort, x and y)")
        if point and (self.x is None or self.y is None):
            raise ValueError("give both x and y")
        return self

    @property
    def by_coordinates(self) -> bool:
        return self.x is not None


class TypeTextArgs(_Args):
    text: str = Field(min_length=1, max_length=2000, description="typed into the focused field")
    clear: bool = Field(default=False, description="clear the field first")


class SwipeArgs(_Args):
    direction: Literal["up", "down", "left", "right"] = Field(description="the way the finger moves")
    distance: float = Field(default=0.5, ge=0.1, le=0.9, description="fraction of the screen")
    duration_s: float = Field(default=0.3, ge=0.05, le=2.0)


class PressKeyArgs(_Args):
    key: str = Field(json_schema_extra=_KEY_ENUM)

    @field_validator("key")
    @classmethod
    def _known(cls, value: str) -> str:
        if value.lower() not in KEY_NAMES:
            raise ValueError(f"unknown key {value!r} (known: {', '.join(sorted(KEY_NAMES))})")
        return value.lower()


class AppArgs(_Args):
    package: str = Field(pattern=_PACKAGE, max_length=200, description="the app's package name")


class AppStartArgs(AppArgs):
    stop_first: bool = Field(default=False, description="force-stop it first (a clean start)")


class WaitArgs(_Args):
    seconds: float = Field(ge=0, le=3600, description=f"at most {WAIT_CAP_S:.0f}; longer waits are cut to that")


class SaveScreenshotArgs(_Args):
    name: str = Field(min_length=1, max_length=96, description="file name without folder, e.g. cart (.jpg added)")


class WriteFileArgs(_Args):
    name: str = Field(min_length=1, max_length=100, description="e.g. results.md (.txt .md .json .csv)")
    content: str = Field(min_length=1, max_length=200_000)


_DESCRIPTIONS: dict[str, tuple[str, type[BaseModel]]] = {
    "list_devices": ("The connected phones; you operate only the target one.", NoArgs),
    "screenshot": ("Look at the screen now (the image follows the tool results).", NoArgs),
    "ui_tree": ("The screen's elements: class, text, resource-id, content-desc, clickable, bounds.", NoArgs),
    "tap": ("Tap an element by text, resource_id or description (exact). Coordinates only as a last resort.", TapArgs),
    "type_text": ("Type text into the focused input field (tap the field first).", TypeTextArgs),
    "swipe": ("Swipe across the middle of the screen; direction is the way the finger moves.", SwipeArgs),
    "press_key": ("Press a key: back, home, enter, recent, delete, ...", PressKeyArgs),
    "app_start": ("Start an app by package name.", AppStartArgs),
    "app_stop": ("Force-stop an app.", AppArgs),
    "wait": (f"Wait for the phone (at most {WAIT_CAP_S:.0f} s per call); never counts as a repeat.", WaitArgs),
    "save_screenshot": (
        "Save the current screen as a deliverable file files/NAME.jpg of this run.",
        SaveScreenshotArgs,
    ),
    "write_file": ("Write a text deliverable files/NAME of this run (results, lists, notes).", WriteFileArgs),
    "report_task": (
        "Report progress, a method change, information you need, or completion. The task is done only "
        "when a completion is accepted: todo empty, checked items, evidence, deliverables as files/... paths. "
        "kind blocked: the task cannot be done on this phone as asked (say why and what you checked); "
        "the run ends without a result.",
        TaskReport,
    ),
    "request_takeover": (
        "Hand the phone to a person ONLY for login, 2FA, captcha, missing information or authorisation. "
        "For anything else, diagnose and try another method yourself.",
        TakeoverArgs,
    ),
}
TOOL_NAMES = tuple(_DESCRIPTIONS)


def _strip_titles(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def argument_model(tool: str) -> type[BaseModel]:
    return _DESCRIPTIONS[tool][1]


def tool_specs() -> list[ToolSpec]:
    return [
        ToolSpec(name=name, description=text, parameters=_strip_titles(model.model_json_schema()))
        for name, (text, model) in _DESCRIPTIONS.items()
    ]
