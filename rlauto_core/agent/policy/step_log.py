"""A run's step log: JSON Lines, there from the run's start (empty until its first line). One line
per tool call, `{"tool", "args", "ok", "error", "state_changing",
"rejected"}` (`state_changing` may be absent: the tool's kind decides; `rejected` says why a call
never reached the phone); `{"chat": true}` for a model answer without a tool call; and
`{"resumed": true, "note", "model", "model_was"}` where a run was resumed (the model fields only
when the resume changed it). `rlauto agent policy LOG` replays it.

The log is rewritten whole on each append (an object store cannot append); a run's log stays
small (about 150 bytes a step).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from rlauto_core.agent.policy.policy import ChatReply, Resumed, StepLine, StepRecord
from rlauto_core.errors import RlautoError
from rlauto_core.store.storage import Storage

MAX_LINE_BYTES = 1024 * 1024
MAX_LOG_BYTES = 64 * 1024 * 1024


class StepLogError(RlautoError):
    """A step log cannot be replayed: `file` and `line` say where, `problem` what is wrong."""

    def __init__(self, file: str, line: int | None, problem: str) -> None:
        self.file = file
        self.line = line
        self.problem = problem
        where = f"{file}: line {line}" if line is not None else file
        super().__init__(f"{where}: {problem}")


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    place = ".".join(str(p) for p in first["loc"])
    return f"{place}: {first['msg']}" if place else str(first["msg"])


_KINDS: tuple[tuple[str, type[Resumed | ChatReply]], ...] = (("resumed", Resumed), ("chat", ChatReply))


def parse_line(text: str) -> StepLine:
    """One line; ValueError with the problem when it is not a step, a chat or a resume."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    try:
        for key, kind in _KINDS:
            if key in value:
                return kind.model_validate(value, strict=True)
        # strict: "true" or 1 is not a boolean, a string is not an object
        return StepRecord.model_validate(value, strict=True)
    except ValidationError as exc:
        raise ValueError(_first_problem(exc)) from None


def parse_step_log(data: bytes, file: str) -> list[tuple[int, StepLine]]:
    """Every non-blank line, numbered from 1; StepLogError names the file and the line."""
    if len(data) > MAX_LOG_BYTES:
        raise StepLogError(file, None, f"{len(data)} bytes is over the {MAX_LOG_BYTES // 2**20} MiB limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StepLogError(file, data[: exc.start].count(b"\n") + 1, "not UTF-8 text") from None
    out: list[tuple[int, StepLine]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if len(line.encode("utf-8")) > MAX_LINE_BYTES:
            raise StepLogError(file, number, f"line is over {MAX_LINE_BYTES // 1024} KiB")
        try:
            out.append((number, parse_line(line)))
        except ValueError as exc:
            raise StepLogError(file, number, str(exc)) from None
    return out


def step_line(record: StepLine) -> str:
    # a step keeps its documented fields even when null; `rejected` and the other lines' fields
    # only when set
    data: dict[str, Any] = record.model_dump(mode="json", exclude_none=not isinstance(record, StepRecord))
    if isinstance(record, StepRecord) and record.rejected is None:
        del data["rejected"]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


class StepLog:
    """The step log of one run in storage; reopening it (a resumed run) keeps its lines."""

    def __init__(self, storage: Storage, path: str) -> None:
        self._storage = storage
        self.path = path
        self._lines: list[str] = []
        if storage.exists(path):
            self._lines = storage.read_bytes(path).decode("utf-8").splitlines()

    def create(self) -> None:
        """The log of a run that starts: there (empty) before anything else happens."""
        if not self._storage.exists(self.path):
            self._storage.write_bytes(self.path, b"")

    def append(self, record: StepLine) -> int:
        """Write one line; its 1-based line number."""
        self._lines.append(step_line(record))
        self._storage.write_bytes(self.path, ("\n".join(self._lines) + "\n").encode("utf-8"))
        return len(self._lines)

    @property
    def lines(self) -> list[str]:
        return list(self._lines)
