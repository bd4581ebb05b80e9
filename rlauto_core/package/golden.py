"""The golden trajectory: which recorded calls an ideal attempt makes, in order, and why others are out."""

from __future__ import annotations

from rlauto_core.evidence.entities import path_entities
from rlauto_core.evidence.models import CallEvidence, EntityRef, Evidence
from rlauto_core.evidence.sidecalls import SIDE_CATEGORIES
from rlauto_core.package.dataflow import Origin, input_locations, invented_values, scalars
from rlauto_core.package.models import FilteredCall, GoldenStep
from rlauto_core.package.reach import descriptions, reached
from rlauto_core.recording import Call, HttpCall, Recording
from rlauto_core.rules.flags import Flag

# Rule flags whose first calls are strays of the trajectory (the last call is the one they precede).
_STRAY_FLAGS = ("unread_check_before_mark_read",)


def call_target(info: CallEvidence, main: EntityRef | None, call: Call | None = None) -> EntityRef | None:
    """The entity a call acts on: the deepest id of an HTTP path (`/projects/web/issues/128` acts on
    issue 128), else the main entity when the call touches it, else its first entity."""
    if isinstance(call, HttpCall):
        in_path = [e for e in path_entities(call.path) if e in info.entities]
        if in_path:
            return in_path[-1]
    if main is not None and main in info.entities:
        return main
    return info.entities[0] if info.entities else None


def other_entity(info: CallEvidence, main: EntityRef | None) -> str | None:
    """Another value of the main entity's key that a call touches (a sibling: another key, another issue)."""
    if main is None:
        return None
    return next((e.value for e in info.entities if e.key == main.key and e.value != main.value), None)


def select_golden(
    recording: Recording, evidence: Evidence, flags: list[Flag] | None = None
) -> tuple[list[str], list[FilteredCall]]:
    """Significant, successful calls that stay on the main entity, or act on an entity of its kind the
    instruction names (package/reach.py); the rest with the reason it is out."""
    main = evidence.main_entity
    names: dict[str, set[str]] = {}

    def named(value: str) -> bool:
        if not names:  # read the answers once, and only when a sibling shows up
            names.update(descriptions(recording) or {"": set()})
        return reached(value, recording, names)

    stray_ids: set[str] = set()
    for flag in flags or []:
        if flag.code in _STRAY_FLAGS:
            stray_ids.update(flag.call_ids[:-1])
    golden: list[str] = []
    filtered: list[FilteredCall] = []
    for info in evidence.calls:
        reason = None
        if not info.significant and info.noise_category in SIDE_CATEGORIES:
            reason = f"side call ({info.noise_category}): changes nothing the task is about"
        elif not info.significant:
            reason = f"noise ({info.noise_category})"
        elif info.failed:
            reason = "failed or unanswered"
        elif main is not None and (other := other_entity(info, main)) is not None and not named(other):
            reason = f"stray: acts on {main.key} {other}, not the main {main.value}"
        elif info.id in stray_ids:
            reason = "stray: unread check before marking read"
        if reason is None:
            golden.append(info.id)
        else:
            filtered.append(
                FilteredCall(call_id=info.id, name=info.name, reason=reason, state_changing=info.state_changing)
            )
    return golden, filtered


def dependencies(recording: Recording, invented: dict[str, Origin], call_ids: list[str]) -> dict[str, list[str]]:
    """For each call, the earlier trajectory calls whose invented ids it uses."""
    order = {cid: n for n, cid in enumerate(call_ids)}
    by_id = {c.id: c for c in recording.calls}
    result: dict[str, list[str]] = {}
    for cid in call_ids:
        call = by_id.get(cid)
        deps: list[str] = []
        if call is not None:
            for loc in input_locations(call):
                for value in scalars(loc.value):
                    origin = invented.get(str(value))
                    if (
                        origin
                        and origin.call_id in order
                        and order[origin.call_id] < order[cid]
                        and origin.call_id not in deps
                    ):
                        deps.append(origin.call_id)
        result[cid] = deps
    return result


def landing_reads(recording: Recording, invented: dict[str, Origin], call_ids: list[str]) -> dict[str, str]:
    """Read -> write: the pages trajectory writes' redirects led to that first showed an id a later
    trajectory call sends (dataflow.invented_values, root `landing`). The browser loads that page
    after the write, and an attempt learns the new id only there, so the trajectory keeps it."""
    wanted = set(call_ids)
    found: dict[str, str] = {}
    for call in recording.calls:
        if call.id not in wanted:
            continue
        for loc in input_locations(call):
            for value in scalars(loc.value):
                origin = invented.get(str(value))
                if origin is not None and origin.via is not None and origin.call_id in wanted:
                    found.setdefault(origin.via, origin.call_id)
    return found


def golden_steps(
    recording: Recording, evidence: Evidence, call_ids: list[str], invented: dict[str, Origin] | None = None
) -> list[GoldenStep]:
    """The trajectory as package steps: recorded order, with targets and data dependencies."""
    index = {c.id: c for c in evidence.calls}
    if invented is None:
        invented = invented_values(recording, evidence)
    landings = landing_reads(recording, invented, call_ids)
    known = [cid for cid in dict.fromkeys([*call_ids, *landings]) if cid in index]
    known.sort(key=lambda cid: index[cid].index)
    deps = dependencies(recording, invented, known)
    for read, write in landings.items():
        if read in deps and write not in deps[read]:
            deps[read].append(write)  # the page shows what the write made
    by_id = {c.id: c for c in recording.calls}
    steps: list[GoldenStep] = []
    for number, cid in enumerate(known, start=1):
        info = index[cid]
        steps.append(
            GoldenStep(
                step=number,
                call_id=cid,
                name=info.name,
                type=info.kind,
                state_changing=info.state_changing,
                target=call_target(info, evidence.main_entity, by_id.get(cid)),
                depends_on=deps.get(cid, []),
            )
        )
    return steps
