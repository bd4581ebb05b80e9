"""Where values come from: the agent's inputs of a call, and ids the server invented.

A checker may pin what the agent chose (target entity, content) but never a value the server
made up (a new issue number, a message id): those are tied to the call that created them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rlauto_core.checkers.outputs import Location as Location
from rlauto_core.checkers.outputs import input_locations as input_locations
from rlauto_core.checkers.outputs import leaves as leaves
from rlauto_core.checkers.outputs import output_locations as output_locations
from rlauto_core.checkers.outputs import scalars as scalars
from rlauto_core.evidence.classify import tool_is_state_changing
from rlauto_core.evidence.models import Evidence
from rlauto_core.forms import SUBMIT_FIELDS, field_path, landing_outputs, landing_pages
from rlauto_core.recording import HttpCall, Recording, ToolCall


def id_like(value: Any) -> bool:
    """Could this value be an entity id? Text with a digit, or a number of two digits or more."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) >= 10
    return isinstance(value, str) and 2 <= len(value) <= 120 and any(ch.isdigit() for ch in value)


@dataclass(frozen=True)
class Origin:
    """The successful state-changing call whose answer first showed a value, and where; `via` is
    the page its redirect led to when the value first appeared there (root `landing`)."""

    call_id: str
    root: str
    path: str
    via: str | None = None


# where a server names the record a write made: its redirect, and the page the redirect leads to
REDIRECT_ROOTS = frozenset({"location", "landing"})


def invented_values(recording: Recording, evidence: Evidence) -> dict[str, Origin]:
    """Values first seen in the answer of a successful write, or in the page a create's redirect
    led to (forms.landing_pages; the ids in its links below its own path, forms.landing_outputs):
    made up by the server. A value the instruction also states counts only when the write's
    redirect or its landing page shows it and no call sent or showed it before (a house number
    "14 Quay Street" is no pet 14); anywhere else the instruction's word wins."""
    told: set[str] = set(re.findall(r"[A-Za-z0-9_.:-]+", recording.task.instruction or ""))
    seen: set[str] = set()
    invented: dict[str, Origin] = {}
    infos = {c.id: c for c in evidence.calls}
    landed = landing_pages(recording.calls)

    def made(call_id: str) -> bool:
        info = infos.get(call_id)
        return info is not None and info.state_changing and not info.failed

    for position, call in enumerate(recording.calls):
        for loc in input_locations(call):
            seen.update(str(v) for v in scalars(loc.value) if v is not None)
        outputs = [(Origin(call.id, root, path), value) for root, path, value in output_locations(call)]
        write = recording.calls[landed[position]] if position in landed else None
        if isinstance(call, HttpCall) and write is not None and made(write.id):
            shown = landing_outputs(call)
            outputs = [(Origin(write.id, "landing", f"{r}.{p}", via=call.id), v) for r, p, v in shown] + outputs
        creates = made(call.id)
        for origin, value in outputs:
            for single in scalars(value):
                text = str(single)
                if single is None or text in seen or _status_code(origin.path, single):
                    continue
                by_write = creates or origin.root == "landing"
                if by_write and id_like(single) and (text not in told or origin.root in REDIRECT_ROOTS):
                    invented[text] = origin
                seen.add(text)
    return invented


_STATUS_KEYS = frozenset({"status", "code", "statuscode", "status_code", "httpstatus", "http_status"})


def _status_code(path: str, value: Any) -> bool:
    """An HTTP status an answer repeats in its body (a bulk item's `"status": 200`): no id it made."""
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    return number is not None and 100 <= number <= 599 and path.rsplit(".", 1)[-1].lower() in _STATUS_KEYS


def known_before(recording: Recording, call_ids: set[str]) -> dict[str, set[str]]:
    """For each of `call_ids`: every value in any input or answer before it (and in the instruction)."""
    seen: set[str] = set(re.findall(r"[A-Za-z0-9_.:-]+", recording.task.instruction or ""))
    found: dict[str, set[str]] = {}
    for call in recording.calls:
        if call.id in call_ids and call.id not in found:
            found[call.id] = set(seen)
            if len(found) == len(call_ids):
                break
        seen.update(str(v) for loc in input_locations(call) for v in scalars(loc.value))
        seen.update(str(v) for _, _, value in output_locations(call) for v in scalars(value))
    return found


@dataclass(frozen=True)
class Buttons:
    """Form fields the recording's pages showed as a form's one submit button (`html.buttons`),
    and every field a page offered at all: a button's value is its label, UI wording."""

    shown: dict[str, int]  # field path -> position of the first call whose page showed it
    offered: set[str]

    def label(self, path: str, position: int) -> bool:
        """Is `path`, sent by the call at `position`, a submit button's label? A page before the
        call showed it so, or, with no page offering the field, its name is the frameworks'."""
        if path in self.shown:
            return self.shown[path] < position
        return path not in self.offered and SUBMIT_FIELDS.match(path) is not None


def submit_buttons(recording: Recording) -> Buttons:
    shown: dict[str, int] = {}
    offered: set[str] = set()
    for position, call in enumerate(recording.calls):
        for root, path, _ in output_locations(call):
            kind, _, name = path.partition(".")
            if root == "html" and kind in ("buttons", "inputs") and name:
                offered.add(field_path(name))
                if kind == "buttons":
                    shown.setdefault(field_path(name), position)
    return Buttons(shown, offered)


def _texts(values: list[Any]) -> list[str]:
    return [
        str(v) for value in values for v in scalars(value) if v is not None and not isinstance(v, dict | list | bool)
    ]


def known_first(recording: Recording | None) -> frozenset[str]:
    """Values the recording showed or read with before any write sent them: an answer showed it, or a
    read named it (`GET /organizations/<id>/boards`, left out of the golden). The client made none of
    them up; an id it made and the server echoes is first sent by a write."""
    if recording is None:
        return frozenset()
    first: dict[str, bool] = {}
    for call in recording.calls:
        writes = tool_is_state_changing(call, recording.session) if isinstance(call, ToolCall) else (
            call.method.upper() not in ("GET", "HEAD", "OPTIONS")
        )  # fmt: skip
        for value in _texts([loc.value for loc in input_locations(call)]):
            first.setdefault(value, not writes)
        for value in _texts([v for _, _, v in output_locations(call)]):
            first.setdefault(value, True)
    return frozenset(v for v, known in first.items() if known)
