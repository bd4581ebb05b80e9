"""Task reports, and the check that a completion delivered what it claims.

The model records progress, method changes and needed information with `report_task`; a run is
complete only when a `completion` report passes: its todo list is empty, it names what was
checked and the evidence, and every deliverable is a file in the run's own folder that exists,
is not empty, is readable and does not escape the folder. Saying "done" in text changes nothing.
A `blocked` report ends the run too, without a result: the task cannot be done on this phone as
asked (the app, setting or item does not exist); it is accepted when it says what was checked.
The check proves the files can be had; whether their content answers the task rests on the
evidence the model gives.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rlauto_core.agent.events import layout
from rlauto_core.store.storage import Storage

ReportKind = Literal["progress", "method_change", "info_needed", "completion", "blocked"]
# the reports that end a run when accepted
ENDING_KINDS = ("completion", "blocked")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,99}$")
MAX_FILE_BYTES = 1024 * 1024


class TaskReport(BaseModel):
    """The arguments of `report_task`."""

    model_config = ConfigDict(extra="forbid")

    kind: ReportKind = Field(description="progress | method_change | info_needed | completion | blocked")
    summary: str = Field(min_length=1, max_length=4000, description="what happened, or the final answer")
    checked: list[str] = Field(default_factory=list, max_length=50, description="items done and verified")
    todo: list[str] = Field(default_factory=list, max_length=50, description="what is left; empty to complete")
    evidence: list[str] = Field(default_factory=list, max_length=50, description="what shows each item is done")
    deliverables: list[str] = Field(
        default_factory=list, max_length=50, description="files of this run, e.g. files/cart.jpg"
    )


class CompletionCheck(BaseModel):
    accepted: bool
    problems: list[str] = Field(default_factory=list)
    deliverables: list[str] = Field(default_factory=list)


def deliverable_problem(path: str) -> str | None:
    """Why a deliverable path is not a plain relative path inside the run folder, or None."""
    if not path or not path.strip():
        return "empty path"
    if "\x00" in path or "\\" in path:
        return "contains a backslash or NUL"
    if path.startswith(("/", "~")) or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path):
        return "must be relative to the run folder (like files/NAME), not absolute or a URL"
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        return "escapes the run folder"
    return None


def normalized(path: str) -> str:
    return "/".join(p for p in path.split("/") if p not in ("", "."))


def check_completion(report: TaskReport, storage: Storage, run_id: str) -> CompletionCheck:
    """Accept a completion (or a blocker report), or say every reason it is refused."""
    problems: list[str] = []
    if report.kind not in ENDING_KINDS:
        return CompletionCheck(accepted=False, problems=["not a completion report"])
    if report.kind == "blocked" and not report.checked:
        problems.append("list what you checked that shows the task cannot be done, in `checked`")
    if report.kind == "completion":
        if report.todo:
            problems.append(f"the todo list is not empty ({len(report.todo)} left: {'; '.join(report.todo)[:300]})")
        if not report.checked:
            problems.append("list the items you completed and checked in `checked`")
        if not report.evidence:
            problems.append("give the evidence that each item is done in `evidence`")
    delivered: list[str] = []
    for path in report.deliverables:
        problem = deliverable_problem(path)
        if problem is None:
            rel = normalized(path)
            problem = _file_problem(storage, f"{layout.run_dir(run_id)}/{rel}")
            if problem is None:
                delivered.append(rel)
        if problem is not None:
            problems.append(f"deliverable {path!r}: {problem}")
    return CompletionCheck(accepted=not problems, problems=problems, deliverables=delivered)


def _file_problem(storage: Storage, full: str) -> str | None:
    try:
        if not storage.exists(full):
            return "does not exist in this run's folder"
        data = storage.read_bytes(full)
    except IsADirectoryError:
        return "is a folder, not a file"
    except OSError as exc:
        return f"cannot be read ({type(exc).__name__})"
    if not data:
        return "is empty"
    return None


class FileNameError(ValueError):
    pass


def checked_name(name: str, extensions: tuple[str, ...]) -> str:
    """A deliverable's file name: flat (no folders), with one of `extensions`."""
    if not _NAME.fullmatch(name) or ".." in name:
        raise FileNameError(f"file name {name!r}: use letters, digits, '.', '_', '-' or spaces, no folders")
    if not name.lower().endswith(extensions):
        raise FileNameError(f"file name {name!r}: must end with one of {', '.join(extensions)}")
    return name


def save_file(storage: Storage, run_id: str, name: str, data: bytes) -> str:
    """Store a deliverable; its path relative to the run folder (`files/NAME`)."""
    if len(data) > MAX_FILE_BYTES:
        raise FileNameError(f"{name}: {len(data)} bytes is over the {MAX_FILE_BYTES // 1024} KiB limit")
    storage.write_bytes(f"{layout.files_dir(run_id)}/{name}", data)
    return f"files/{name}"
