"""Values the attempt's own answers carried: what a `created` predicate is satisfied by.

An id the attempt creates (its own page, the cart its session was handed) differs in every
attempt, so it is bound by dataflow inside the attempt: any earlier successful answer that
carried it will do, never one named recorded call. Answers are read through
`checkers.outputs.output_locations`, the one list of what a call's answer offers (bodies, results, and
whatever else it learns to read). A value inside a list of several entities is a listing, not
an answer about one entity: a search result does not say the attempt made it.

A write answered with a redirect also carries what the page the browser then loaded shows of
records first (`forms.landing_pages`, `forms.landing_outputs`: Spring's new pet is only a link on
the owner's page), for the calls after that page: ids no earlier call sent or showed.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rlauto_core.checkers.outputs import input_locations, output_locations, scalars
from rlauto_core.forms import landing_outputs, landing_pages
from rlauto_core.recording import Call, HttpCall, Recording

_INDEX = re.compile(r"^\d+$")
_JSON_ROOTS = frozenset({"response", "result"})


def _number(text: str) -> float | None:
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _keys(value: Any) -> list[str]:
    """Index keys of a scalar, so that `"42"` finds `42` and the other way round (as `eq` does)."""
    if value is None or isinstance(value, bool | dict | list):
        return []
    if isinstance(value, int | float):
        return [f"n:{float(value)!r}"]
    text = str(value)
    number = _number(text)
    return [f"s:{text}"] + ([f"sn:{number!r}"] if number is not None else [])


def _lookups(value: Any) -> list[str]:
    if value is None or isinstance(value, bool | dict | list):
        return []
    if isinstance(value, int | float):
        return [f"n:{float(value)!r}", f"sn:{float(value)!r}"]
    text = str(value)
    number = _number(text)
    return [f"s:{text}"] + ([f"n:{number!r}"] if number is not None else [])


def _any_keys(values: list[Any]) -> set[str]:
    """Every index and lookup key of the values (lists flattened): `"14"` and `14` meet here."""
    return {key for value in values for v in scalars(value) for key in (*_keys(v), *_lookups(v))}


def _succeeded(call: Call) -> bool:
    if isinstance(call, HttpCall):
        return call.status is not None and call.status < 400
    return call.answered and not call.is_error


def _listings(paths: list[str]) -> set[str]:
    """Prefixes of lists that hold more than one entity (`results` when `results.0`, `results.1`)."""
    seen: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split(".")
        for n, part in enumerate(parts):
            if _INDEX.match(part):
                seen.setdefault(".".join(parts[:n]), set()).add(part)
    return {prefix for prefix, indexes in seen.items() if len(indexes) > 1}


def _single_entity_values(found: list[tuple[str, str, Any]]) -> list[Any]:
    # only a JSON answer's numbered path parts are list positions (a Location's `segments.4` is not)
    listings = _listings([f"{root}.{path}" for root, path, _ in found if root in _JSON_ROOTS])
    values: list[Any] = []
    for root, path, value in found:
        full = f"{root}.{path}"
        if any(full == prefix or full.startswith(prefix + ".") for prefix in listings):
            continue
        if isinstance(value, list):
            if len(value) == 1:  # a list of scalars stays whole: one element is one entity
                values.append(value[0])
            continue
        values.append(value)
    return values


class CarriedValues:
    """What each successful answer of the attempt carried, and where each value was carried first."""

    def __init__(self, calls: list[Call]) -> None:
        self._first: dict[str, int] = {}
        self._at: list[set[str]] = []
        self._landed: dict[int, tuple[int, set[str]]] = {}  # write -> its landing page, what it showed first
        landings = landing_pages(calls)
        seen: set[str] = set()  # every value sent or answered so far (needed only when a page landed)
        for position, call in enumerate(calls):
            succeeded = _succeeded(call)
            found = output_locations(call) if succeeded or landings else []
            if landings:
                seen.update(_any_keys([loc.value for loc in input_locations(call)]))
            write = landings.get(position)
            if write is not None and isinstance(call, HttpCall) and _succeeded(calls[write]):
                shown = [v for _, _, value in landing_outputs(call) for v in scalars(value)]
                new = {key for v in shown if not _any_keys([v]) & seen for key in _keys(v)}
                self._landed[write] = (position, new)
                for key in new:
                    self._first.setdefault(key, position)
            keys = {key for value in _single_entity_values(found) for key in _keys(value)} if succeeded else set()
            self._at.append(keys)
            for key in keys:
                self._first.setdefault(key, position)
            if landings:
                seen.update(_any_keys([value for _, _, value in found]))

    @classmethod
    def of(cls, attempt: Recording) -> CarriedValues:
        # the runtime's timeline: the HTTP calls first, then the tool calls (views.recording_views)
        return cls([*attempt.http_calls, *attempt.tool_calls])

    def before(self, value: Any, position: int) -> bool:
        """Did an answer of a call before `position` carry `value`?"""
        return any(self._first.get(key, position) < position for key in _lookups(value))

    def carried_by(self, value: Any, position: int, before: int | None = None) -> bool:
        """Did the answer of the call at `position` carry `value`? With `before`, also the page its
        redirect led to, when that page came before the call at `before`."""
        if not 0 <= position < len(self._at):
            return False
        keys = self._at[position]
        landed = self._landed.get(position)
        if before is not None and landed is not None and landed[0] < before:
            keys = keys | landed[1]
        return any(key in keys for key in _lookups(value))
