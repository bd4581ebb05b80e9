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


def _acted_on(call: Call, info: CallEvidence, answered: list[EntityRef]) -> set[EntityRef]:
    """The deepest id of the path; but a create (a POST to a collection: `/repos/acme/web/releases`)
    acts on what its answer names, its path's ids are where it creates (the owner, the project)."""
    if isinstance(call, HttpCall):
        in_path = [e for e in path_entities(call.path) if e in info.entities]
        creates = call.method.upper() == "POST" and answered and not _ends_in_id(call.path, in_path)
        if in_path and not creates:
            return {in_path[-1]}
    return set(answered)


def _ends_in_id(path: str, ids: list[EntityRef]) -> bool:
    segments = [s for s in path.split("/") if s]
    return bool(segments) and any(segments[-1] == ref.value for ref in ids)


def choose_main_entity(calls: list[CallEvidence], recorded: Sequence[Call]) -> MainEntityChoice:
    """`recorded[i]` is the call of `calls[i]` (the evidence keeps the recording's order). An id is
    counted by its value, whatever key each endpoint names it by (`pageId` in a path, `contentId` in
    another, `id` in the answer that made it); it is named by the key it was first seen under."""
    writes = [c for c in calls if c.significant and c.state_changing and not c.failed] or [
        c for c in calls if c.significant and c.state_changing
    ]
    hits: Counter[str] = Counter()  # by value: tuples and strings hash fast on 10k+ writes
    acted: Counter[str] = Counter()
    first_key: dict[str, str] = {}
    passed_along: set[str] = set()
    acted_or_made: set[str] = set()
    for info in writes:
        call = recorded[info.index]
        answered = answer_entities(call)
        subjects = {ref.value for ref in _acted_on(call, info, answered)}
        made = {ref.value for ref in answered}
        for value in dict.fromkeys(ref.value for ref in [*info.entities, *answered]):
            hits[value] += 1
            if value in subjects:
                acted[value] += 1
            if subjects and value not in subjects and value not in made:
                passed_along.add(value)
            else:
                acted_or_made.add(value)
        for ref in [*info.entities, *answered]:
            first_key.setdefault(ref.value, ref.key)
    order = {value: n for n, value in enumerate(first_key)}
    parameters = passed_along - acted_or_made
    candidates = [v for v in hits if v not in parameters] or list(hits)
    ranked = sorted(candidates, key=lambda v: (-hits[v], -acted[v], order[v], v))

    def tally(value: str) -> EntityTally:
        return EntityTally(key=first_key[value], value=value, writes=hits[value], acted_on=acted[value])

    return MainEntityChoice(
        chosen=tally(ranked[0]) if ranked else None,
        runner_up=tally(ranked[1]) if len(ranked) > 1 else None,
        parameters=[EntityRef(first_key[v], v) for v in sorted(parameters, key=lambda v: order[v])],
    )
