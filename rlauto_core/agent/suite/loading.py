"""Reading a suite file (YAML or JSON), with errors that name the file, the task and the problem.

YAML is read safely and without aliases: a few lines of aliases can expand into
gigabytes (the "billion laughs"), and a suite has no use for them. The shipped demo suite is
`DEMO_SUITE` (`demo_suite.yaml` beside this module).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rlauto_core.agent.suite.suite import AgentSuite
from rlauto_core.errors import RlautoError

MAX_SUITE_BYTES = 1024 * 1024
DEMO_SUITE = "demo_suite.yaml"


class SuiteError(RlautoError):
    """A suite file cannot be used: `file` names it, `problem` says why."""

    def __init__(self, file: str, problem: str) -> None:
        self.file, self.problem = file, problem
        super().__init__(f"{file}: {problem}")


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.MarkedYAMLError(None, None, "aliases (*name) are not allowed in a suite", event.start_mark)
        return super().compose_node(parent, index)


def _where(loc: tuple[int | str, ...], raw: Any) -> str:
    """A pydantic error location, with the task's id where there is one."""
    if len(loc) >= 2 and loc[0] == "tasks" and isinstance(loc[1], int):
        tasks = raw.get("tasks") if isinstance(raw, dict) else None
        task = tasks[loc[1]] if isinstance(tasks, list) and loc[1] < len(tasks) else None
        name = task.get("id") if isinstance(task, dict) else None
        rest = ".".join(str(p) for p in loc[2:])
        head = f"task {loc[1] + 1}" + (f" ({name!r})" if isinstance(name, str) else "")
        return head + (f": {rest}" if rest else "")
    return ".".join(str(p) for p in loc) or "the suite"


def parse_suite(data: bytes, file: str) -> AgentSuite:
    """A suite from a file's bytes; `SuiteError(file, problem)` for anything wrong with it."""
    if len(data) > MAX_SUITE_BYTES:
        raise SuiteError(file, f"{len(data)} bytes is over the {MAX_SUITE_BYTES // 1024} KiB limit for a suite")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(file, f"not UTF-8 text (byte {exc.start})") from None
    try:
        raw = yaml.load(text, Loader=_NoAliasLoader)  # a SafeLoader, without aliases
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SuiteError(file, f"not valid YAML{where}: {problem}") from None
    if not isinstance(raw, dict):
        raise SuiteError(file, "expected a mapping with `name` and `tasks`")
    try:
        return AgentSuite.model_validate(raw)
    except ValidationError as exc:
        # a misspelt key also makes the right one "missing": name the misspelling first
        first = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SuiteError(file, f"{_where(tuple(first['loc']), raw)}: {message}{more}") from None


def load_suite(path: Path | None = None) -> AgentSuite:
    """The suite in `path`, or the shipped demo suite."""
    if path is None:
        return parse_suite(files("rlauto_core.agent.suite").joinpath(DEMO_SUITE).read_bytes(), DEMO_SUITE)
    try:
        if path.stat().st_size > MAX_SUITE_BYTES:
            raise SuiteError(str(path), f"over the {MAX_SUITE_BYTES // 1024} KiB limit for a suite")
        data = path.read_bytes()
    except IsADirectoryError:
        raise SuiteError(str(path), "is a folder, expected a suite file (YAML)") from None
    except FileNotFoundError:
        raise SuiteError(str(path), "no such file") from None
    except OSError as exc:
        raise SuiteError(str(path), f"cannot be read: {exc.strerror or exc}") from None
    return parse_suite(data, str(path))
