"""Build the Evidence of a recording: classify, filter noise, find the main entity."""

from __future__ import annotations

from collections import Counter

from rlauto_core.evidence.classify import http_is_state_changing, tool_is_state_changing
from rlauto_core.evidence.entities import http_entities, tool_entities
from rlauto_core.evidence.main_entity import choose_main_entity
from rlauto_core.evidence.models import CallEvidence, EntityRef, Evidence
from rlauto_core.evidence.noise import http_noise_category, mcp_noise_category
from rlauto_core.evidence.sidecalls import side_call_category, site_domains
from rlauto_core.forms import form_write_name, polling, shown_buttons
from rlauto_core.gcpause import gc_paused
from rlauto_core.protocols import Operation, http_failures, operations, tool_failure
from rlauto_core.recording import HttpCall, Mode, Recording
from rlauto_core.trusted import trusted


def build_evidence(recording: Recording) -> Evidence:
    with gc_paused():  # tens of thousands of models at once (rlauto_core/gcpause.py)
        return _build(recording)


def _build(recording: Recording) -> Evidence:
    calls: list[CallEvidence] = []
    site = site_domains(recording)
    instruction = recording.task.instruction
    http_calls = recording.http_calls if recording.mode is Mode.API else []
    polled = polling(http_calls)
    graphql = {c.id: operations(c) for c in http_calls}  # asked three times of every call: once
    single = {cid: ops[0] if len(ops) == 1 else None for cid, ops in graphql.items()}
    # as the protocol says: a GraphQL error or a form's errors in a 200 too
    failures = http_failures(http_calls, single)
    buttons = shown_buttons(http_calls)  # a form's submit button, whatever it is called, names no write
    for index, call in enumerate(recording.calls):
        if isinstance(call, HttpCall):
            # side calls (telemetry, recommendations, UI state) are noise by category, listed not required
            noise = (
                http_noise_category(call)
                or ("polling" if call.id in polled else None)
                or side_call_category(call, site, instruction)
            )
            status = call.status
            failure = failures.get(call.id)
            failed = failure is not None
            if status is None or (status >= 400 and failure == f"HTTP {status}") or failure == "no answer":
                failure = None  # the status says it: the reason is for what an answer says beyond it
            calls.append(
                trusted(
                    CallEvidence,
                    {
                        "id": call.id,
                        "index": index,
                        "kind": "http",
                        "name": _http_name(call, single.get(call.id), buttons.get(call.id, frozenset())),
                        "state_changing": http_is_state_changing(call, graphql.get(call.id)),
                        "significant": noise is None,
                        "noise_category": noise,
                        "entities": http_entities(call) if noise is None else [],
                        "status": status,
                        "failed": failed,
                        "failure": failure,
                    },
                )
            )
        else:
            noise = mcp_noise_category(call)
            reason = tool_failure(call)
            calls.append(
                trusted(
                    CallEvidence,
                    {
                        "id": call.id,
                        "index": index,
                        "kind": "mcp",
                        "name": call.tool,
                        "state_changing": tool_is_state_changing(call, recording.session),
                        "significant": noise is None,
                        "noise_category": noise,
                        "entities": tool_entities(call) if noise is None else [],
                        "status": None,
                        "failed": reason is not None,
                        # isError and no answer say it themselves; a result saying `ok: false` needs the reason
                        "failure": None if call.is_error or not call.answered else reason,
                    },
                )
            )
    removed = Counter(c.noise_category for c in calls if c.noise_category)
    choice = choose_main_entity(calls, recording.calls)
    chosen = choice.chosen
    return Evidence(
        mode=recording.mode,
        calls=calls,
        main_entity=EntityRef(key=chosen.key, value=chosen.value) if chosen else None,
        main_entity_choice=choice,
        noise_removed=dict(sorted(removed.items())),
    )


def _http_name(call: HttpCall, operation: Operation | None, buttons: frozenset[str]) -> str:
    """A form by its route and fields (its submit button left out); a GraphQL call by its operation
    (`POST /graphql (cartCreate)`)."""
    if operation is not None:
        return f"{call.name} ({operation.label})"
    return form_write_name(call, buttons) or call.name
