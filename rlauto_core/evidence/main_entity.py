"""The main entity: what the writes create or change (the cart, the order, the page, the issue).

Seed 000: the id the most writes hit; requests and answers both count, so a cart the adds never
name but each of their answers returns is hit by every add. A write acts on the deepest id of its
path, else on what its answer names (the order a checkout made). A value it passes besides (the
address of a checkout, a label put on an issue, a payment method) is a parameter of a write on
another entity, and such a value is never the main entity. Ties go to the entity more writes act
on, then to the one seen first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rlauto_core.evidence.entities import answer_entities, path_entities
from rlauto_core.evidence.models import CallEvidence, EntityRef, EntityTally, MainEntityChoice
from rlauto_core.recording import Call, HttpCall

Pair = tuple[str, str]


def _acted_on(call: Call, info: CallEvidence, answered: list[EntityRef]) -> set[EntityRef]:
    if isinstance(call, HttpCall):
        in_path = [e for e in path_entities(call.path) if e in info.entities]
        if in_path:
            return {in_path[-1]}
    return set(answered)


def choose_main_entity(calls: list[CallEvidence], recorded: Sequence[Call]) -> MainEntityChoice:
    """`recorded[i]` is the call of `calls[i]` (the evidence keeps the recording's order)."""
    writes = [c for c in calls if c.significant and c.state_changing and not c.failed] or [
        c for c in calls if c.significant and c.state_changing
    ]
    hits: Counter[Pair] = Counter()  # tuples: model hashing is slow on 10k+ writes
    acted: Counter[Pair] = Counter()
    first_seen: dict[Pair, int] = {}
    passed_along: set[Pair] = set()
    acted_or_made: set[Pair] = set()
    for info in writes:
        call = recorded[info.index]
        answered = answer_entities(call)
        subjects = _acted_on(call, info, answered)
        for ref in dict.fromkeys([*info.entities, *answered]):
            pair = (ref.key, ref.value)
            hits[pair] += 1
            first_seen.setdefault(pair, len(first_seen))
            if ref in subjects:
                acted[pair] += 1
            if subjects and ref not in subjects and ref not in answered:
                passed_along.add(pair)
            else:
                acted_or_made.add(pair)
    parameters = passed_along - acted_or_made
    candidates = [p for p in hits if p not in parameters] or list(hits)
    ranked = sorted(candidates, key=lambda p: (-hits[p], -acted[p], first_seen[p], p))

    def tally(pair: Pair) -> EntityTally:
        return EntityTally(key=pair[0], value=pair[1], writes=hits[pair], acted_on=acted[pair])

    return MainEntityChoice(
        chosen=tally(ranked[0]) if ranked else None,
        runner_up=tally(ranked[1]) if len(ranked) > 1 else None,
        parameters=[EntityRef(k, v) for k, v in sorted(parameters, key=lambda p: first_seen[p])],
    )
