"""The task suite format (docs/agent-suite.md): tasks the agent is measured on, each with the
state it starts from, the checks that read the phone's state afterwards, a step budget and tags.

A check is code the suite declares, read from the phone (the demo phone's state API, a shell
command's output, a UI-tree query) or from the files the run made; never from the agent's own
report. The one exception is `outcome`, which only counts beside a check of the phone or the
files (an impossible task passes with a blocker report AND the phone unchanged).
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rlauto_core.agent.events import Outcome
from rlauto_core.agent.tools import TakeoverReason

DEMO_STATE_COMMAND = "dumpsys rlauto-demo"  # every demo app's state as one JSON object
DEMO_RESTORE_COMMAND = "cmd rlauto-demo restore"  # + base64 of a DemoFixture's JSON: the apps' state set
_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_TAG = re.compile(r"^[a-z0-9][a-z0-9-]{0,31}$")
MAX_TASKS = 500
MAX_BUDGET = 500
Scalar = str | int | float | bool


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NotesFixture(_Strict):
    notes: list[str] = Field(default_factory=lambda: ["Buy milk"], max_length=200)
    signed_in: bool = True  # False: a signed-out account; the app asks a person to sign in


class ShoppingFixture(_Strict):
    items: list[str] = Field(default_factory=lambda: ["Bread"], max_length=10)
    bought: list[str] = Field(default_factory=list, max_length=10)

    @model_validator(mode="after")
    def _bought_are_items(self) -> ShoppingFixture:
        stray = [b for b in self.bought if b not in self.items]
        if stray:
            raise ValueError(f"bought items that are not on the list: {stray}")
        return self


class SettingsFixture(_Strict):
    wifi_on: bool = False
    bluetooth_on: bool = True
    airplane_mode_on: bool = False
    dark_theme_on: bool = False


class DemoFixture(_Strict):
    """The demo phone's apps as a task starts (every part not given: the phone's factory state).
    Compared with `DemoFixture.of_state(...)` of the state after a run, it says what changed."""

    notes: NotesFixture = Field(default_factory=NotesFixture)
    shopping: ShoppingFixture = Field(default_factory=ShoppingFixture)
    settings: SettingsFixture = Field(default_factory=SettingsFixture)

    def restore_command(self) -> str:
        """The shell command that sets the demo phone to this state (home screen in front)."""
        return f"{DEMO_RESTORE_COMMAND} {base64.b64encode(self.model_dump_json().encode()).decode()}"

    @classmethod
    def of_state(cls, state: dict[str, Any]) -> DemoFixture:
        """The lasting part of `dumpsys rlauto-demo` (not the screen in front, a draft, a field)."""
        notes, shopping, settings = (state.get(k) or {} for k in ("notes", "shopping", "settings"))
        return cls(
            notes=NotesFixture(notes=list(notes.get("notes", [])), signed_in=bool(notes.get("signed_in", True))),
            shopping=ShoppingFixture(items=list(shopping.get("items", [])), bought=list(shopping.get("bought", []))),
            settings=SettingsFixture(**{k: bool(settings.get(k)) for k in SettingsFixture.model_fields}),
        )


class TaskStart(_Strict):
    """Where a task starts: the demo phone's apps (`demo`), and/or shell commands run in order
    (any phone: `settings put global ...`, `pm clear PKG`, `input keyevent 3`)."""

    demo: DemoFixture | None = None
    shell: list[str] = Field(default_factory=list, max_length=50)

    def commands(self) -> list[str]:
        return ([self.demo.restore_command()] if self.demo is not None else []) + list(self.shell)


class CountOf(_Strict):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    of: Scalar
    times: int = Field(alias="is", ge=0)


class UiQuery(_Strict):
    """An element on the screen after the run: every attribute given must match. With `open`,
    that app is brought to the front first (where the agent left the phone is no matter)."""

    open: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.]{1,200}$", description="a package to open first")
    text: str | None = None
    resource_id: str | None = None
    description: str | None = None
    package: str | None = None
    checked: bool | None = None
    selected: bool | None = None


class FileQuery(_Strict):
    """A file the run made (`files/NAME` in its folder): by `name`, or any matching `glob`."""

    name: str | None = None
    glob: str | None = None
    image: bool = False  # it must open as an image (a screenshot)


_SOURCES = ("demo", "shell", "ui", "file", "unchanged", "outcome")
_MATCHERS = ("equals", "contains", "lacks", "count", "matches")


class Check(_Strict):
    """One check: one source (what is read) and, for values, one matcher."""

    demo: str | None = Field(default=None, description="a dotted path into `dumpsys rlauto-demo`: notes.notes")
    shell: str | None = Field(default=None, description="a shell command; its output, stripped")
    ui: UiQuery | None = None
    file: FileQuery | None = None
    unchanged: Literal[True] | None = Field(default=None, description="the demo apps' state is the start state")
    outcome: Outcome | None = Field(default=None, description="how the run ended (never enough alone)")
    equals: Any = None  # a value (null is "not given": a value read is never null in a check)
    contains: Scalar | None = None
    lacks: Scalar | None = None
    count: CountOf | None = None
    matches: str | None = None
    present: bool = True

    @model_validator(mode="after")
    def _one_source_one_matcher(self) -> Check:
        sources = [s for s in _SOURCES if getattr(self, s) is not None]
        if len(sources) != 1:
            raise ValueError(f"give exactly one of {', '.join(_SOURCES)} (got {', '.join(sources) or 'none'})")
        matchers = self.matchers
        source = sources[0]
        if source in ("demo", "shell") and len(matchers) != 1:
            raise ValueError(f"a {source} check takes exactly one of {', '.join(_MATCHERS)}")
        if source in ("ui", "unchanged", "outcome") and matchers:
            raise ValueError(f"a {source} check takes no {matchers[0]}")
        if source == "file" and (len(matchers) > 1 or "count" in matchers or "equals" in matchers):
            raise ValueError("a file check takes at most one of contains, lacks, matches (on its text)")
        if self.matches is not None:
            try:
                re.compile(self.matches)
            except re.error as exc:
                raise ValueError(f"matches: not a regular expression ({exc})") from None
        if self.file is not None and (self.file.name is None) == (self.file.glob is None):
            raise ValueError("a file check names the file (`name`) or a pattern (`glob`), one of them")
        return self

    @property
    def matchers(self) -> list[str]:
        """The matchers given (None is "not given", so a check reads the same after a JSON round trip)."""
        return [m for m in _MATCHERS if getattr(self, m) is not None]

    @property
    def source(self) -> str:
        return next(s for s in _SOURCES if getattr(self, s) is not None)

    def describe(self) -> str:
        """The check in a few words, for reports."""
        source = self.source
        if source == "unchanged":
            return "the demo apps are unchanged"
        if source == "outcome":
            return f"the run ended {self.outcome}"
        what = {"demo": f"demo {self.demo}", "shell": f"`{self.shell}`"}.get(source, "")
        if source == "ui":
            assert self.ui is not None
            attrs = self.ui.model_dump(exclude_none=True, exclude={"open"})
            what = "an element " + ", ".join(f"{k}={v!r}" for k, v in attrs.items())
            where = f" of {self.ui.open}" if self.ui.open else ""
            return what + (f" is on the screen{where}" if self.present else f" is not on the screen{where}")
        if source == "file":
            assert self.file is not None
            what = f"files/{self.file.name or self.file.glob}" + (" (an image)" if self.file.image else "")
            if not self.present:
                return f"no {what}"
        matcher = next(iter(self.matchers), None)
        if matcher == "count":
            assert self.count is not None
            return f"{what} holds {self.count.of!r} {self.count.times} time(s)"
        if matcher is None:
            return f"{what} exists"
        return f"{what} {matcher} {getattr(self, matcher)!r}"


class PersonAction(_Strict):
    """What the suite's scripted person does for one kind of takeover: shell commands on the
    phone (typing a password, tapping), then the note the agent gets."""

    shell: list[str] = Field(default_factory=list, max_length=20)
    note: str | None = Field(default=None, max_length=1000)


class SuiteTask(_Strict):
    id: str
    instruction: str = Field(min_length=1, max_length=4000)
    start: TaskStart = Field(default_factory=TaskStart)
    checks: list[Check] = Field(min_length=1, max_length=30)
    budget: int = Field(default=30, ge=1, le=MAX_BUDGET, description="tool calls at most")
    tags: list[str] = Field(default_factory=list, max_length=20)
    person: dict[TakeoverReason, PersonAction] = Field(default_factory=dict, description="over the suite's person")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.fullmatch(value):
            raise ValueError(f"{value!r}: 1-64 lowercase letters, digits, '_' or '-', starting with a letter or digit")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: list[str]) -> list[str]:
        wrong = [t for t in value if not _TAG.fullmatch(t)]
        if wrong:
            raise ValueError(f"tags {wrong}: 1-32 lowercase letters, digits or '-'")
        return value

    @model_validator(mode="after")
    def _reads_the_phone(self) -> SuiteTask:
        if all(check.source == "outcome" for check in self.checks):
            raise ValueError("the checks only read how the run ended: add one that reads the phone or the files")
        return self


class AgentSuite(_Strict):
    name: str = Field(min_length=1, max_length=100)
    description: str = Field(default="", max_length=4000)
    start: TaskStart = Field(default_factory=TaskStart, description="every task's start, unless it says its own")
    person: dict[TakeoverReason, PersonAction] = Field(default_factory=dict)
    tasks: list[SuiteTask] = Field(min_length=1, max_length=MAX_TASKS)

    @model_validator(mode="after")
    def _unique_ids(self) -> AgentSuite:
        seen: set[str] = set()
        twice = [t.id for t in self.tasks if t.id in seen or seen.add(t.id)]  # type: ignore[func-returns-value]
        if twice:
            raise ValueError(f"task ids used twice: {sorted(set(twice))}")
        return self

    def digest(self) -> str:
        """A short hash of the suite's content: two evals compare only on the same digest."""
        return hashlib.sha256(self.model_dump_json(by_alias=True).encode()).hexdigest()[:12]

    def task(self, task_id: str) -> SuiteTask:
        return next(t for t in self.tasks if t.id == task_id)

    def resolved(self, task: SuiteTask) -> SuiteTask:
        """The task as it runs: its start state (the suite's demo state unless it has its own; the
        suite's shell commands, then its own) and the suite's person with the task's instead."""
        start = TaskStart(demo=task.start.demo or self.start.demo, shell=[*self.start.shell, *task.start.shell])
        return task.model_copy(update={"start": start, "person": {**self.person, **task.person}})
