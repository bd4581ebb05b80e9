"""Applying a task's checks after its run: each reads the phone (the demo phone's state API, a
shell command's output, the UI tree) or the files the run made, and says what it found.

`PhoneProbe` is what is read from the phone; a real one runs shell commands and dumps the UI
over ADB, tests hand in states made by hand. Nothing here reads the agent's report, except the
`outcome` check, which the format never lets stand alone.
"""

from __future__ import annotations

import fnmatch
import io
import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any, Protocol

from PIL import Image
from pydantic import BaseModel

from rlauto_core.agent.events import layout
from rlauto_core.agent.suite.suite import DEMO_STATE_COMMAND, Check, DemoFixture, FileQuery, UiQuery
from rlauto_core.store.storage import Storage

SHOWN_CHARS = 200


class PhoneProbe(Protocol):
    def shell(self, command: str) -> str:
        """The command's output on the phone."""
        ...

    def ui_xml(self) -> str:
        """uiautomator's XML dump of the screen now."""
        ...


class CheckResult(BaseModel):
    check: str
    passed: bool
    found: str = ""  # what was read, shortened: why it failed, or what passed


@dataclass
class RunFacts:
    """What a check may read besides the phone: the run's outcome and its folder's files."""

    outcome: str
    storage: Storage
    run_id: str
    start: DemoFixture | None = None  # the demo apps as the task started (for `unchanged`)


@dataclass
class _Readings:
    """The phone read once per evaluation, however many checks look at the same thing."""

    probe: PhoneProbe
    shells: dict[str, str] = field(default_factory=dict)
    xml: dict[str | None, str] = field(default_factory=dict)  # per app opened first (None: as left)

    def shell(self, command: str) -> str:
        if command not in self.shells:
            self.shells[command] = self.probe.shell(command)
        return self.shells[command]

    def demo(self) -> dict[str, Any]:
        text = self.shell(DEMO_STATE_COMMAND)
        try:
            state = json.loads(text)
        except json.JSONDecodeError:
            raise CheckFailed(f"`{DEMO_STATE_COMMAND}` did not answer JSON: {text[:SHOWN_CHARS]!r}") from None
        if not isinstance(state, dict):
            raise CheckFailed(f"`{DEMO_STATE_COMMAND}` answered {type(state).__name__}, not an object")
        return state

    def ui(self, open_first: str | None) -> str:
        if open_first not in self.xml:
            if open_first is not None:
                self.probe.shell(f"monkey -p {open_first} -c android.intent.category.LAUNCHER 1")
            self.xml[open_first] = self.probe.ui_xml()
        return self.xml[open_first]


class CheckFailed(Exception):
    """The check could not read what it needs: it fails, saying why."""


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _dig(state: dict[str, Any], path: str) -> Any:
    value: Any = state
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise CheckFailed(f"the state has no {path} ({part!r} is missing)")
    return value


def _holds(value: Any, item: Any) -> bool:
    if isinstance(value, str):
        return str(item) in value
    if isinstance(value, list):
        return item in value
    if isinstance(value, dict):
        return item in value
    return False


def _matched(check: Check, value: Any) -> bool:
    """The check's one matcher applied to a value read from the phone."""
    if check.equals is not None:  # as JSON: true is not 1, "1" is not 1
        return json.dumps(value, sort_keys=True) == json.dumps(check.equals, sort_keys=True)
    if check.contains is not None:
        return _holds(value, check.contains)
    if check.lacks is not None:
        return not _holds(value, check.lacks)
    if check.count is not None:
        return isinstance(value, list) and value.count(check.count.of) == check.count.times
    if check.matches is not None:
        return re.search(check.matches, value if isinstance(value, str) else _short(value)) is not None
    return True


def _ui_found(xml: str, query: UiQuery) -> bool:
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise CheckFailed(f"the UI tree is not XML ({exc})") from None
    wanted = {
        "text": query.text, "resource-id": query.resource_id, "content-desc": query.description,
        "package": query.package,
        "checked": None if query.checked is None else str(query.checked).lower(),
        "selected": None if query.selected is None else str(query.selected).lower(),
    }  # fmt: skip
    wanted = {k: v for k, v in wanted.items() if v is not None}
    return any(all(node.attrib.get(k) == v for k, v in wanted.items()) for node in root.iter("node"))


def _files(facts: RunFacts, query: FileQuery) -> list[str]:
    folder = layout.files_dir(facts.run_id)
    names = [path.removeprefix(folder + "/") for path in facts.storage.list(folder)]
    if query.name is not None:
        return [n for n in names if n == query.name]
    assert query.glob is not None
    return [n for n in names if fnmatch.fnmatchcase(n, query.glob)]


def _is_image(data: bytes) -> bool:
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.verify()
    except Exception:
        return False
    return True


def _file_check(check: Check, facts: RunFacts) -> tuple[bool, str]:
    assert check.file is not None
    names = _files(facts, check.file)
    if not check.present:
        return not names, f"files: {names}" if names else "no such file"
    for name in names:
        data = facts.storage.read_bytes(f"{layout.files_dir(facts.run_id)}/{name}")
        if check.file.image and not _is_image(data):
            continue
        if check.matchers:
            text = data.decode("utf-8", "replace")
            if not _matched(check, text):
                continue
        return True, f"files/{name}"
    return False, f"no matching file (the run's files: {names or 'none'})" if not names else f"{names} do not match"


def _apply(check: Check, readings: _Readings, facts: RunFacts) -> tuple[bool, str]:
    source = check.source
    if source == "demo":
        assert check.demo is not None
        value = _dig(readings.demo(), check.demo)
        return _matched(check, value), _short(value)
    if source == "shell":
        assert check.shell is not None
        output = readings.shell(check.shell).strip()
        return _matched(check, output), _short(output)
    if source == "ui":
        assert check.ui is not None
        found = _ui_found(readings.ui(check.ui.open), check.ui)
        return found == check.present, "on the screen" if found else "not on the screen"
    if source == "file":
        return _file_check(check, facts)
    if source == "unchanged":
        if facts.start is None:
            raise CheckFailed("the task did not start from a demo state: nothing to compare with")
        after = DemoFixture.of_state(readings.demo())
        changed = [k for k in DemoFixture.model_fields if getattr(after, k) != getattr(facts.start, k)]
        return not changed, "unchanged" if not changed else f"changed: {', '.join(changed)}"
    return facts.outcome == check.outcome, facts.outcome


def apply_checks(checks: list[Check], probe: PhoneProbe, facts: RunFacts) -> list[CheckResult]:
    """Every check's result; one that cannot read what it needs fails and says why."""
    readings = _Readings(probe)
    results = []
    for check in checks:
        try:
            passed, found = _apply(check, readings, facts)
        except CheckFailed as exc:
            passed, found = False, str(exc)
        except Exception as exc:  # the phone went away, a read failed: the check fails, the eval goes on
            passed, found = False, f"{type(exc).__name__}: {exc}"[:SHOWN_CHARS]
        results.append(CheckResult(check=check.describe(), passed=passed, found=found))
    return results
