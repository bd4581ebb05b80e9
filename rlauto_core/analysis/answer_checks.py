"""Hard trajectory rules checked on an analyzer answer; a breach is re-asked once, then fatal.

Every mode: call ids must exist, noise calls stay out. MCP mode adds the seed's trajectory rules:
ENTITY CONSISTENCY (no call on another value of the main entity's key) and the ORDER CONSTRAINT
that rules can decide (no unread check before mark-read). Whether a read before a write is
navigation or a misplaced verification needs judgement: the prompt and the judge handle it.
"""

from __future__ import annotations

import re

from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.evidence.views import slim_id
from rlauto_core.prompts.answers import AnalyzerResult
from rlauto_core.recording import Mode

_UNREAD = re.compile(r"(^|_)(get|list)_unread")
_MARK_READ = re.compile(r"(^|_)mark_\w*read")


class CallIndex:
    """Resolves the ids a model writes (recorded ids or the slim `c<index>` ids) to recorded calls."""

    def __init__(self, evidence: Evidence) -> None:
        self._evidence = evidence
        self._ids: dict[str, str] = {}
        for call in evidence.calls:
            self._ids[call.id] = call.id
            self._ids.setdefault(slim_id(call), call.id)

    def resolve(self, written: str) -> str | None:
        return self._ids.get(str(written).strip())

    def call(self, call_id: str) -> CallEvidence | None:
        return self._evidence.by_id(call_id)

    def problems(self, result: AnalyzerResult) -> list[str]:
        found: list[str] = []
        places = [("golden_trajectory", result.golden_trajectory)]
        places += [(f"recommended_groups[{n}] {g.title!r}", g.calls) for n, g in enumerate(result.recommended_groups)]
        for where, ids in places:
            for written in ids:
                call_id = self.resolve(written)
                call = self.call(call_id) if call_id is not None else None
                if call is None:
                    found.append(f"{where}: call id {written!r} is not in the evidence")
                elif not call.significant:
                    category = call.noise_category or "background"
                    found.append(f"{where}: call {written!r} is {category} noise (NOISE BLACKLIST); remove it")
                elif self._evidence.mode is Mode.MCP:
                    found += self._entity_problems(where, written, call)
        if len(set(result.golden_trajectory)) != len(result.golden_trajectory):
            found.append("golden_trajectory: a call id appears twice")
        if self._evidence.mode is Mode.MCP:
            golden = [c for w in result.golden_trajectory if (cid := self.resolve(w)) and (c := self.call(cid))]
            found += order_problems(golden)
        return found

    def _entity_problems(self, where: str, written: str, call: CallEvidence) -> list[str]:
        main = self._evidence.main_entity
        if main is None:
            return []
        return [
            f"{where}: call {written!r} ({call.name}) touches {e.key} {e.value}, not the main entity "
            f"{main.value} (ENTITY CONSISTENCY); remove it as a stray"
            for e in call.entities
            if e.key == main.key and e.value != main.value
        ]


def order_problems(golden: list[CallEvidence]) -> list[str]:
    """The seed's MCP order constraints, on the golden trajectory in the model's order."""
    found: list[str] = []
    for position, call in enumerate(golden):
        later = golden[position + 1 :]
        if _UNREAD.search(call.name) and any(_MARK_READ.search(c.name) for c in later):
            found.append(
                f"golden_trajectory: {call.id} ({call.name}) checks unread before mark-read (ORDER CONSTRAINTS); "
                "drop it or move it after the mark-read"
            )
    return found
