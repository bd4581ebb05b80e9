"""Valid variants of the golden: other paths a good attempt may take. Each must keep full marks.

Mutants prove that checkers fail bad attempts; variants prove the other half of a reward, that
they do not fail good ones. A variant changes only what the task does not ask about:

- `read_dropped`: a read no rubric's own checker requires, left out (it showed nothing later
  calls send), and `stable_without_read`: the same for a read that showed an id later calls send
  (a returning agent knows it: where it learned the id is not the task's business);
- `reads_reordered`: the reads that use nothing the attempt created, in reverse order;
  the page a write's redirect led to is neither dropped nor moved: the browser loads it after
  the write, and it may be where the attempt learns what the write made (forms.landing_pages);
- `ids_renamed`: every id the server created or handed out renamed, in the answers that made it,
  the later calls that use it and the database diff (another run gets other ids);
- `volatile_changed`: lock versions, ETags, tokens, clocks, nonces and client-made ids changed
  (another run sends other ones; a value the instruction states stays).
"""

from __future__ import annotations

from collections.abc import Iterator

from rlauto_core.evidence.build import build_evidence
from rlauto_core.forms import landing_pages
from rlauto_core.package.calls import attempt_from_calls
from rlauto_core.package.dataflow import input_locations, invented_values, known_first, output_locations
from rlauto_core.package.models import TaskPackage, VariantKind
from rlauto_core.package.redo import redo_attempts
from rlauto_core.recording import Call, Recording

MAX_SHOWN = 3


def _scalars(values: list[object]) -> set[str]:
    found: set[str] = set()
    for value in values:
        for single in value if isinstance(value, list) else [value]:
            if single is not None and not isinstance(single, dict | list | bool):
                found.add(str(single))
    return found


def _sent_later(calls: list[Call], position: int) -> set[str]:
    return _scalars([loc.value for call in calls[position + 1 :] for loc in input_locations(call)])


def variants(
    package: TaskPackage, golden: Recording, required: set[str], recording: Recording | None = None
) -> Iterator[tuple[VariantKind, str, Recording]]:
    """(kind, description, attempt) of every valid variant that applies; `required` are the reads a
    rubric's own checker requires (an answer task's lookup), never dropped."""
    calls = list(golden.calls)
    writes = {s.call_id for s in package.golden_trajectory if s.state_changing}
    landed = landing_pages(calls)  # the page a write's redirect led to: the browser loads it, part of the write
    reads = [n for n, c in enumerate(calls) if c.id not in writes and n not in landed]

    def attempt(new_calls: list[Call]) -> Recording:
        return attempt_from_calls(golden, new_calls, "variant", golden.mode.value)

    for n in reads:
        call = calls[n]
        if call.id in required:
            continue
        shown = sorted(_scalars([v for _, _, v in output_locations(call)]) & _sent_later(calls, n))
        rest = calls[:n] + calls[n + 1 :]
        if shown:
            listed = ", ".join(shown[:MAX_SHOWN]) + (" ..." if len(shown) > MAX_SHOWN else "")
            what = f"without read {call.id} ({call.name}): {listed} sent without the read that showed them"
            yield "stable_without_read", what, attempt(rest)
        else:
            yield "read_dropped", f"without read {call.id} ({call.name})", attempt(rest)
    created = set(invented_values(golden, build_evidence(golden)))
    free = [n for n in reads if not _scalars([loc.value for loc in input_locations(calls[n])]) & created]
    if len(free) >= 2:
        reordered = list(calls)
        for slot, n in zip(free, reversed(free), strict=True):
            reordered[slot] = calls[n]
        names = ", ".join(calls[n].id for n in reversed(free))
        yield "reads_reordered", f"reads in another order: {names}", attempt(reordered)
    renamed, changed = redo_attempts(golden, package.task.instruction, known_first(recording))
    if renamed is not None:
        yield "ids_renamed", "every id the server created or handed out renamed", renamed
    if changed is not None:
        yield "volatile_changed", "lock versions, tokens, clocks and client-made ids changed", changed
