"""Designer drafts and confirmed step tasks.

A draft is checked with the step model (`rlauto_core.steps.parse_steps`), every step, so the
designer hears every problem at once. A valid draft is kept as THE latest draft (one at a time,
`agent/designer/draft.json`) with its warnings (what a person should look at: coordinates, no
check of the result, shell commands, long waits). It is not a task: only `confirm` (a person,
in the dashboard) turns it into a step task (`agent/tasks/{id}.json`) that `run-steps` runs.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from rlauto_core.agent.events import RecordDir
from rlauto_core.errors import ConfigError
from rlauto_core.steps import StepError, parse_steps
from rlauto_core.steps.models import MAX_STEPS
from rlauto_core.store.storage import Storage

DRAFT_PATH = "agent/designer/draft.json"
TASKS_DIR = "agent/tasks"
_CHECKS = {"assert_exists", "assert_text", "wait_element", "wait_gone"}
LONG_WAIT_S = 30


def _now() -> datetime:
    return datetime.now(UTC)


class Draft(BaseModel):
    run_id: str
    instruction: str
    name: str
    summary: str = ""
    steps: list[dict[str, Any]]
    warnings: list[str] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=_now)


class StepTask(BaseModel):
    """A confirmed step task: `run-steps` runs `steps` on a phone."""

    id: str
    name: str
    summary: str = ""
    instruction: str = ""
    steps: list[dict[str, Any]]
    warnings: list[str] = Field(default_factory=list)
    source_run: str | None = None
    confirmed_by: str
    confirmed_at: datetime = Field(default_factory=_now)


def draft_steps(raw_steps: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The steps as the step model reads them (defaults left out), or every problem."""
    if not isinstance(raw_steps, list) or not raw_steps:
        return [], ["steps: give a non-empty list of steps, each {kind, ...parameters}"]
    if len(raw_steps) > MAX_STEPS:
        return [], [f"{len(raw_steps)} steps: at most {MAX_STEPS}"]
    steps, problems = [], []
    for position, raw in enumerate(raw_steps, start=1):
        kind = raw.get("kind") if isinstance(raw, dict) else None
        try:
            step = parse_steps([raw], file="draft")[0]
        except StepError as exc:
            problems.append(f"step {position}" + exc.problem.removeprefix("step 1"))
            continue
        except RecursionError:
            problems.append(f"step {position} ({kind}): nested too deep")
            continue
        steps.append(step.model_dump(mode="json", exclude_defaults=True))
    return (steps, []) if not problems else ([], problems)


def draft_warnings(steps: list[dict[str, Any]]) -> list[str]:
    warnings = []
    for position, step in enumerate(steps, start=1):
        kind = step["kind"]
        where = f"step {position} ({kind})"
        if kind in ("click_xy", "gesture") or "x" in step:
            warnings.append(f"{where}: coordinates: it breaks on another screen size or layout")
        elif kind == "shell":
            warnings.append(f"{where}: runs `{str(step['command'])[:120]}` on the phone: read it before confirming")
        elif kind == "wait" and float(step.get("seconds", 0)) > LONG_WAIT_S:
            warnings.append(f"{where}: waits {step['seconds']} s")
        elif kind == "keep_screen":
            warnings.append(f"{where}: changes the phone's stay-awake setting")
    if not any(step["kind"] in _CHECKS for step in steps):
        warnings.append("nothing checks the result: add an assert_exists or assert_text step at the end")
    return warnings


def _task_id(name: str, steps: list[dict[str, Any]]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    digest = hashlib.sha256(json.dumps(steps, sort_keys=True).encode()).hexdigest()[:8]
    return f"task-{slug}-{digest}" if slug else f"task-{digest}"


class DraftStore:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.tasks = RecordDir(storage, TASKS_DIR, StepTask)

    def latest(self) -> Draft | None:
        if not self.storage.exists(DRAFT_PATH):
            return None
        try:
            return Draft.model_validate_json(self.storage.read_bytes(DRAFT_PATH))
        except ValueError:
            return None

    def keep(self, draft: Draft) -> None:
        """The latest draft replaces the one before (only one is kept, as in seed 003)."""
        self.storage.write_bytes(DRAFT_PATH, (draft.model_dump_json() + "\n").encode("utf-8"))

    def discard(self) -> bool:
        if not self.storage.exists(DRAFT_PATH):
            return False
        self.storage.delete(DRAFT_PATH)
        return True

    def confirm(self, confirmed_by: str, *, run_id: str | None = None) -> StepTask:
        """A person confirms the latest draft (of `run_id`, when given): it becomes a step task."""
        who = confirmed_by.strip()
        if not who:
            raise ConfigError("confirming a draft needs the name of the person who confirms it")
        draft = self.latest()
        if draft is None:
            raise ConfigError("there is no draft to confirm")
        if run_id is not None and draft.run_id != run_id:
            raise ConfigError(f"the latest draft is from run {draft.run_id}, not {run_id}: look at it again")
        steps, problems = draft_steps(draft.steps)  # checked again: the stored file is not trusted
        if problems:
            raise ConfigError(f"{DRAFT_PATH}: the draft is not a valid step task: " + "; ".join(problems))
        task = StepTask(
            id=_task_id(draft.name, steps),
            name=draft.name,
            summary=draft.summary,
            instruction=draft.instruction,
            steps=steps,
            warnings=draft_warnings(steps),
            source_run=draft.run_id,
            confirmed_by=who[:200],
        )
        self.tasks.save(task.id, task)
        self.discard()
        return task

    def all_tasks(self) -> list[StepTask]:
        return sorted(self.tasks.all(), key=lambda t: t.confirmed_at, reverse=True)

    def task(self, task_id: str) -> StepTask | None:
        return self.tasks.load(task_id)
