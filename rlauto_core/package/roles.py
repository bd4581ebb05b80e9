"""The value model: every value a checked call sends has one role, and the role says how it is checked.

- **created** in the attempt (the page id of its own create, the cart its session is handed):
  bound by dataflow inside the attempt, never to one named recorded call. An id a write created
  is `{"created": "core_<call>"}`: an answer of the attempt's create carried it, that create
  known by its essential features (`core_<call>`: method, route, and what it sends where calls
  share the route), so a wrong argument of the create fails its own rubric and nothing else. An id a read that
  names nothing handed out is `{"any": [recorded, {"created": true}]}`: any earlier answer of the
  attempt that carried it, or the recorded value (the user's own cart is the same every time).
- **stable** reference (named by the instruction, a read-only entity, the user's own resource):
  compared by value; where the agent learned it is not the task's business, so no read is required.
- **volatile** (lock versions, ETags, clocks, nonces and idempotency keys, CSRF and session tokens,
  request ids, totals the server computes, ids the client made up): never compared; the call's
  success is what counts. A value the instruction names is never volatile.
- **content** (titles, bodies, amounts, choices): compared, free text without regard to case.

The offline checkers are written from these roles (checkgen.py), any draft's checkers (a model's
too) are normalised to them (normalize.py), and the package keeps each role with its reason
(`value_roles`, docs/checkers.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rlauto_core.evidence.entities import canonical_key
from rlauto_core.evidence.models import Evidence
from rlauto_core.package.behaviour import SessionValue, session_values
from rlauto_core.package.dataflow import (
    REDIRECT_ROOTS,
    Buttons,
    Origin,
    id_like,
    input_locations,
    invented_values,
    known_first,
    output_locations,
    submit_buttons,
)
from rlauto_core.package.models import ValueRole
from rlauto_core.package.volatile import client_made, handed_out, is_digest, is_told, told_values, volatile_kind
from rlauto_core.recording import Recording

# carried by any earlier answer of the attempt (what a read that names nothing hands out)
CARRIED: dict[str, Any] = {"created": True}


def safe_key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_") or "x"


def core_key(call_id: str) -> str:
    """The checker of a call's essential features (normalize.py), what ids it creates are bound to."""
    return f"core_{safe_key(call_id)}"


@dataclass
class ValueModel:
    """The roles of one recording's values, seen from its golden trajectory."""

    recording: Recording
    invented: dict[str, Origin]
    handed: dict[str, Origin]
    told: set[str]
    positions: dict[str, int] = field(default_factory=dict)  # call id -> its position in the recording
    first_seen: dict[str, int] = field(default_factory=dict)  # value -> position of the first call showing it
    shown_by: dict[str, str] = field(default_factory=dict)  # value -> the first call whose answer showed it
    buttons: Buttons = field(default_factory=lambda: Buttons({}, set()))  # forms' submit buttons
    session: dict[str, SessionValue] = field(default_factory=dict)  # counters and tokens, by behaviour
    known: frozenset[str] = frozenset()  # shown by an answer or named by a read before any write sent it

    @classmethod
    def of(cls, recording: Recording, evidence: Evidence, golden: Iterable[str]) -> ValueModel:
        shown: dict[str, str] = {}
        first_seen: dict[str, int] = {}
        for position, call in enumerate(recording.calls):
            sent = [loc.value for loc in input_locations(call)]
            answered = [value for _, _, value in output_locations(call)]
            for value in sent + answered:
                for single in value if isinstance(value, list) else [value]:
                    if single is not None and not isinstance(single, dict | list):
                        first_seen.setdefault(str(single), position)
            for value in answered:
                for single in value if isinstance(value, list) else [value]:
                    if single is not None and not isinstance(single, dict | list):
                        shown.setdefault(str(single), call.id)
        return cls(
            recording=recording,
            invented=invented_values(recording, evidence),
            handed=handed_out(recording, evidence, set(golden)),
            told=told_values(recording.task.instruction),
            positions={c.id: n for n, c in enumerate(recording.calls)},
            first_seen=first_seen,
            shown_by=shown,
            buttons=submit_buttons(recording),
            session=session_values(recording, evidence),
            known=known_first(recording),
        )

    def submit_button(self, call_id: str, path: str) -> bool:
        """Is this field the form's submit button, whose value is its label (dataflow.Buttons)?"""
        return self.buttons.label(path, self.positions.get(call_id, len(self.positions)))

    def seen_before(self, value: Any, call_id: str) -> bool:
        """Did an input or answer before call `call_id` hold this value? (No call: anywhere in the recording.)"""
        return self.first_seen.get(str(value), len(self.positions)) < self.positions.get(call_id, len(self.positions))

    def told_not_made(self, value: Any) -> bool:
        """Does the instruction state this value, and the dataflow not show the server making it?
        A write's redirect or its landing page showing it first wins (dataflow.invented_values)."""
        made = self.invented.get(str(value))
        return is_told(value, self.told) and (made is None or made.root not in REDIRECT_ROOTS)

    def origin(self, value: Any) -> tuple[Origin, bool] | None:
        """Where a created id came from, and whether a read that names nothing handed it out."""
        if not id_like(value):
            return None
        text = str(value)
        if text in self.invented:
            return self.invented[text], False
        if text in self.handed:
            return self.handed[text], True
        return None

    def role(self, call_id: str, path: str, value: Any) -> ValueRole:
        """The role of `value`, sent by call `call_id` at `path` (a field path of its input)."""
        name = path.rsplit(".", 1)[-1]
        if isinstance(value, list):
            if any(self.origin(v) is not None and not self.told_not_made(v) for v in value):
                return ValueRole(role="created", reason="holds ids the attempt creates: only their presence counts")
            ids = bool(value) and (all(id_like(v) for v in value) or canonical_key(name) is not None)
            return ValueRole(role="stable" if ids else "content", reason="chosen by the agent: compared")
        if isinstance(value, str) and self.submit_button(call_id, path):
            return ValueRole(
                role="volatile",
                reason="the submit button's label: UI wording (another language sends another), never compared",
            )
        sent_back = self._sent_back_lock(call_id, path, value)
        if sent_back is not None:
            return sent_back
        if self.told_not_made(value):
            told = "stable" if id_like(value) or canonical_key(name) is not None else "content"
            return ValueRole(role=told, reason="named by the instruction: compared by value")
        session = self.session.get(str(value))  # whatever its name: what it does in the recording
        if session is not None and not isinstance(value, bool) and volatile_kind(path, value) is None:
            if session.kind != "created":
                return ValueRole(role="volatile", reason=f"volatile ({session.reason()}): never compared")
            if self.origin(value) is None:  # made by a write where no checker can see it: a header
                return ValueRole(role="volatile", reason=f"volatile ({session.reason()}, only a header shows it)")
        if volatile_kind(path, value) == "lock":  # a precondition is the server's count, never an entity it made
            return ValueRole(role="volatile", reason=f"volatile (lock, field {name!r}): never compared")
        found = self.origin(value)
        if found is not None:
            origin, handed = found
            where = f"{origin.call_id}'s answer ({origin.root}.{origin.path})"
            if origin.via is not None:  # first shown by the page the write's redirect led to
                where = f"{origin.call_id}'s redirect (the page it led to, {origin.via}: {origin.path})"
            if handed:
                reason = (
                    f"handed out by {where}, a read that names nothing: the session's own, so the recorded "
                    "value or any earlier answer of the attempt that carries it"
                )
            else:
                reason = (
                    f"created in the attempt by {where}: carried by an answer of that create, known by its "
                    f"essential features ({core_key(origin.call_id)})"
                )
            return ValueRole(role="created", reason=reason)
        if is_digest(path):
            return ValueRole(role="content", reason="a fingerprint of what the agent sent (a file's hash): compared")
        kind = volatile_kind(path, value)
        if kind is not None:
            return ValueRole(role="volatile", reason=f"volatile ({kind}, field {name!r}): never compared")
        # judged where it first appears: a made-up password a failed try sent is made up in its retry too
        if client_made(value, self.told | ({str(value)} if str(value) in self.known else set())):
            return ValueRole(role="volatile", reason="an id the client made up: never compared")
        if id_like(value) or canonical_key(name) is not None:
            shown = self.shown_by.get(str(value))
            earlier = shown is not None and self.positions.get(shown, 0) < self.positions.get(call_id, 0)
            seen = f" (shown by {shown}'s answer)" if earlier else ""
            return ValueRole(
                role="stable", reason=f"the same in every attempt{seen}: compared by value, no read required"
            )
        return ValueRole(role="content", reason="chosen by the agent: compared")

    def _sent_back_lock(self, call_id: str, path: str, value: Any) -> ValueRole | None:
        """A lock version or a counter the server's answer gave before is the server's, though the
        instruction states the same number ("add 2 cups" and `version: 2`)."""
        session = self.session.get(str(value))
        counting = session is not None and session.kind in ("counter", "companion")
        if isinstance(value, bool) or not (counting or volatile_kind(path, value) == "lock"):
            return None
        if not is_told(value, self.told) or self.shown_by.get(str(value)) is None:
            return None  # not told: the usual order of checks says the same
        if self.positions.get(self.shown_by[str(value)], 0) >= self.positions.get(call_id, 0):
            return None
        why = session.reason() if counting and session is not None else f"lock, field {path.rsplit('.', 1)[-1]!r}"
        return ValueRole(role="volatile", reason=f"volatile ({why}; an earlier answer gave it): never compared")

    def predicate(self, value: Any, role: ValueRole) -> Any | None:
        """How a value of this role is checked; None: not at all."""
        if role.role == "volatile":
            return None
        if role.role == "created":
            if isinstance(value, list):
                return {"exists": True}
            found = self.origin(value)
            if found is None:
                return {"exists": True}
            origin, handed = found
            return {"any": [value, dict(CARRIED)]} if handed else {"created": core_key(origin.call_id)}
        if isinstance(value, list):
            return {"contains": value}
        if isinstance(value, str) and " " in value.strip():
            return {"eq": value, "case_insensitive": True}
        return value

    def check(self, call_id: str, path: str, value: Any) -> tuple[Any | None, ValueRole]:
        role = self.role(call_id, path, value)
        return self.predicate(value, role), role
