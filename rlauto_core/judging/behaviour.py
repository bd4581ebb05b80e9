"""The behaviour variant: every value the session made changed, whatever it is called.

The other variants are built from the value model's names (`version`, `csrf`, ids the dataflow
says the server made): they prove that the checkers agree with the role model. This one is built
from what values do in the recording (package/behaviour.py): each value an earlier answer gave
and a later request sends back that a fresh server would give otherwise (an id a write made, a
counter, a token, what goes beside a counter) is changed consistently, in the answers, the
requests and the database diff. A good attempt in a fresh session looks like that, so it must keep
full marks. A value the instruction states stays.
"""

from __future__ import annotations

from typing import Any

from rlauto_core.evidence.build import build_evidence
from rlauto_core.package.behaviour import SessionValue, session_values
from rlauto_core.package.redo import Changes, later_value, new_id, redone
from rlauto_core.recording import Recording

_LONG = 8  # a value this long is changed wherever it appears; a shorter one only under its own keys


class _Keyed(Changes):
    """Changes that touch a short value only under the keys it was given and sent under (a `1` is a
    primary term under `_primary_term`, a quantity elsewhere); ids a write made change everywhere,
    as the redo renames them."""

    def __init__(self, values: dict[str, Any], keys: dict[str, frozenset[str] | None]) -> None:
        super().__init__(values, {})
        self.keys = keys
        self.anywhere = {v: n for v, n in values.items() if keys.get(v) is None or len(v) >= _LONG}

    def leaf(self, node: Any, key: str) -> Any:
        text = str(node)
        if text not in self.ids or isinstance(node, bool) or not isinstance(node, str | int | float):
            return node
        allowed = self.keys.get(text)
        if text not in self.anywhere and allowed is not None and key.rsplit(".", 1)[-1].lower() not in allowed:
            return node
        new = str(self.ids[text])
        if isinstance(node, str):
            return new
        return int(new) if isinstance(node, int) and new.lstrip("-").isdigit() else node

    def paths(self, text: str) -> str:
        keyed, self.ids = self.ids, self.anywhere  # a path segment has no key: only what changes anywhere
        try:
            return super().paths(text)
        finally:
            self.ids = keyed


def _new(entry: SessionValue) -> str:
    if entry.kind == "created":
        return str(new_id(entry.value))
    return str(later_value(entry.value))


def behaviour_variant(golden: Recording, instruction: str) -> tuple[str, Recording] | None:
    """(description, attempt) of the golden in a fresh session, or None when the session made nothing
    a later call sends back."""
    probe = golden.model_copy(update={"task": golden.task.model_copy(update={"instruction": instruction})})
    made = session_values(probe, build_evidence(probe))
    if not made:
        return None
    changes = _Keyed(
        {v: _new(e) for v, e in made.items()},
        {v: None if e.kind == "created" else frozenset(e.sent_at | e.seen_at) - {"segment"} for v, e in made.items()},
    )
    attempt = redone(golden, changes)
    if attempt is None:
        return None
    kinds = sorted({e.kind for e in made.values()})
    shown = ", ".join(sorted(made)[:3]) + (" ..." if len(made) > 3 else "")
    return f"every value the session made changed by behaviour ({', '.join(kinds)}: {shown})", attempt
