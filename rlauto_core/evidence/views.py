"""Slim evidence (what a model sees) and full evidence (what is stored), both redacted (by the
rules, then by value: a secret the recording carries is removed wherever else it appears).

Slim keeps significant calls only, short stable ids (the recorded id when it is short, `c<index>`
otherwise), request bodies trimmed (form bodies as their fields), responses reduced to their
id/status-like keys (an HTML page to its title, form errors and offered choices), a redirect's
Location and the ids the page it led to lists below its own path (`landing`: Spring's new pet).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.evidence.sidecalls import SIDE_CATEGORIES
from rlauto_core.forms import answer_page, landing_outputs, landing_pages, location_of, read_fields
from rlauto_core.recording import HttpCall, Recording, ToolCall
from rlauto_core.redact import is_secret_field, redact_body, redact_json, redact_text, redact_url
from rlauto_core.secret_values import recorded_secrets

MAX_ID_CHARS = 12
_ECHO_PREFIX = 40
_RESPONSE_KEYS = {"id", "ok", "status", "state", "error", "errors", "code", "message", "name", "title", "text", "type"}


def slim_id(call: CallEvidence) -> str:
    return call.id if len(call.id) <= MAX_ID_CHARS else f"c{call.index}"


def trim(value: Any, *, depth: int = 3, items: int = 3, chars: int = 140) -> Any:
    if isinstance(value, str):
        return value if len(value) <= chars else value[:chars] + f"…(+{len(value) - chars} chars)"
    if depth <= 0 and isinstance(value, (dict, list)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, dict):
        return {k: trim(v, depth=depth - 1, items=items, chars=chars) for k, v in value.items()}
    if isinstance(value, list):
        head = [trim(v, depth=depth - 1, items=items, chars=chars) for v in value[:items]]
        return [*head, f"…(+{len(value) - items} more)"] if len(value) > items else head
    return value


def relevant(value: Any, depth: int = 2, refs: frozenset[str] | None = None, echo: frozenset[str] = frozenset()) -> Any:
    """Reduce a response to what grounds a rubric: ids, status-like keys, nested objects' ids.

    With `refs` (the ids later calls use), list items that mention none of them are only counted:
    a read matters for the ids it surfaced, not for the rows nobody acted on. Values in `echo`
    (what the request itself sent) are dropped: a write's response repeating its input adds nothing.
    """
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            if isinstance(item, str) and (item in echo or (len(item) >= _ECHO_PREFIX and item[:_ECHO_PREFIX] in echo)):
                continue
            if isinstance(item, dict) and depth > 0:
                reduced = relevant(item, depth - 1, refs, echo)
                if reduced not in ({}, [], None):
                    kept[key] = reduced
            elif key in _RESPONSE_KEYS or key.lower().endswith("id"):
                kept[key] = trim(item, depth=1, items=2, chars=80)
            elif isinstance(item, list) and depth > 0:
                reduced = relevant(item, depth - 1, refs, echo)
                if reduced not in ({}, [], None):
                    kept[key] = reduced
        return kept
    if isinstance(value, list):
        if refs is not None:
            used = [v for v in value if _mentions(v, refs)]
            head = [relevant(v, depth) for v in used[:3]]
            rest = len(value) - len(head)
            return [*head, f"…(+{rest} more)"] if rest else head
        head = [relevant(v, depth, None, echo) for v in value[:2]]
        return [*head, f"…(+{len(value) - 2} more)"] if len(value) > 2 else head
    return trim(value, chars=80)


def _strings(value: Any, depth: int = 3) -> set[str]:
    """Every string in `value`, and the prefix of each long one (servers reformat long text)."""
    if isinstance(value, str):
        return {value, value[:_ECHO_PREFIX]} if len(value) >= _ECHO_PREFIX else {value}
    if depth <= 0:
        return set()
    if isinstance(value, dict):
        return {s for v in value.values() for s in _strings(v, depth - 1)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v, depth - 1)}
    return set()


def _mentions(item: Any, refs: frozenset[str]) -> bool:
    if isinstance(item, dict):
        if "id" in item:  # a row is used when its own id is, not when it merely sits in a used parent
            return str(item["id"]) in refs
        return any(isinstance(v, (str, int)) and str(v) in refs for v in item.values())
    return isinstance(item, (str, int)) and str(item) in refs


def _json_or_text(body: str | None) -> Any:
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body


def _request_body(call: HttpCall) -> Any:
    """A form reads like the JSON body it stands for: fields nested by name, files summarised."""
    fields = read_fields(call.request_body, call.request_body_encoding, call.header("content-type"))
    if fields is not None:
        return redact_json(fields)
    return _json_or_text(redact_body(call.request_body)) if call.request_body_encoding == "text" else "<binary>"


def _page_view(call: HttpCall) -> dict[str, Any] | None:
    """An HTML answer as a model needs it: title, form errors, the choices it offers (no tokens)."""
    page = answer_page(call)
    if page is None:
        return None
    offered = {
        kind: {name: values for name, values in page.offers.get(kind, {}).items() if not is_secret_field(name)}
        for kind in ("inputs", "data")
    }
    # a select's choices by label: the model reads "Dana Whitfield", the form sends 17
    offered["options"] = {name: {v: page.labels.get(name, {}).get(v, v) for v in values if v}
                          for name, values in page.offers.get("options", {}).items()}  # fmt: skip
    view: dict[str, Any] = {"title": page.title, "errors": list(page.errors)}
    view.update({kind: trim(values, items=6, chars=60) for kind, values in offered.items()})
    return {k: v for k, v in view.items() if v}


def _http_io(call: HttpCall, *, slim: bool, refs: frozenset[str] | None = None) -> dict[str, Any]:
    request_body = _request_body(call)
    response_body = (
        _json_or_text(redact_body(call.response_body)) if call.response_body_encoding == "text" else "<binary>"
    )
    query = {k: v for k, v in redact_json(dict(call.query)).items()} if call.query else {}
    if slim:
        out: dict[str, Any] = {}
        if query:
            out["query"] = trim(query)
        if request_body is not None:
            out["body"] = trim(request_body)
        location = location_of(call)
        if location is not None:  # a redirect's target often holds the only copy of a new id
            out["location"] = redact_url(location.target)
        page = _page_view(call)
        if page is not None:
            out["response"] = page
        elif response_body is not None:
            sent = _strings(request_body) | {v for _, v in call.query} | set(call.path.split("/"))
            out["response"] = (
                relevant(
                    response_body, 2 if refs is None else 1, refs, frozenset(sent) if refs is None else frozenset()
                )
                if not isinstance(response_body, str)
                else trim(response_body)
            )
        return out
    return {
        "url": redact_url(call.url),
        "request_headers": [
            {"name": name, "value": redact_json({"name": name, "value": value})["value"]}
            for name, value in call.request_headers
        ],
        "request_body": request_body,
        "response_headers": [
            {"name": name, "value": redact_json({"name": name, "value": value})["value"]}
            for name, value in call.response_headers
        ],
        "response_body": response_body,
        "started_at": call.started_at.isoformat() if call.started_at else None,
        "duration_ms": call.duration_ms,
    }


def _tool_io(call: ToolCall, *, slim: bool, refs: frozenset[str] | None = None) -> dict[str, Any]:
    arguments = redact_json(call.arguments)
    result = redact_json(call.result)
    if slim:
        out: dict[str, Any] = {"arguments": trim(arguments)} if arguments else {}
        depth = 2 if refs is None else 1
        echo = frozenset(_strings(arguments)) if refs is None else frozenset()
        if isinstance(result, dict) and "structuredContent" in result:
            out["result"] = relevant(result["structuredContent"], depth, refs, echo)
        elif result is not None:
            out["result"] = relevant(result, depth, refs, echo) if not isinstance(result, str) else trim(result)
        if call.is_error:
            out["is_error"] = True
        if not call.answered:
            out["unanswered"] = True
        return out
    return {
        "server": call.server,
        "arguments": arguments,
        "result": result,
        "is_error": call.is_error,
        "answered": call.answered,
        "started_at": call.started_at.isoformat() if call.started_at else None,
        "duration_ms": call.duration_ms,
    }


def _call_view(
    recording: Recording,
    evidence_call: CallEvidence,
    *,
    slim: bool,
    refs: frozenset[str] | None = None,
    landing: HttpCall | None = None,
) -> dict[str, Any]:
    call = recording.calls[evidence_call.index]
    view: dict[str, Any] = {"id": slim_id(evidence_call) if slim else evidence_call.id}
    if slim and view["id"] != evidence_call.id:
        view["ref"] = evidence_call.id
    view["name"] = evidence_call.name
    if evidence_call.state_changing or not slim:
        view["write"] = evidence_call.state_changing
    if evidence_call.status is not None:
        view["status"] = evidence_call.status
    if evidence_call.failed:
        view["failed"] = True
    if evidence_call.failure:
        view["failure"] = evidence_call.failure
    # tool arguments already show their ids; paths and bodies of HTTP calls hide them
    if evidence_call.entities and (evidence_call.kind == "http" or not slim):
        view["entities"] = {e.key: e.value for e in evidence_call.entities}
    if not slim:
        view["significant"] = evidence_call.significant
        view["noise_category"] = evidence_call.noise_category
    # reads are reduced to the rows later calls act on; writes keep what they confirm
    read_refs = refs if slim and not evidence_call.state_changing else None
    if isinstance(call, HttpCall):
        view.update(_http_io(call, slim=slim, refs=read_refs))
        if landing is not None:  # the page its redirect led to lists what it made (a page load, left out)
            shown = [i for _, _, ids in landing_outputs(landing) for i in ids]
            if shown:
                view["landing"] = {"page": redact_url(urlsplit(landing.url).path), "shows": trim(shown, items=6)}
    else:
        view.update(_tool_io(call, slim=slim, refs=read_refs))
    return view


def _dbdiff_view(recording: Recording, *, slim: bool) -> dict[str, Any] | None:
    if recording.dbdiff is None:
        return None
    if not slim:
        return redact_json(recording.dbdiff.model_dump())  # type: ignore[no-any-return]
    view: dict[str, Any] = {}
    for name, table in recording.dbdiff.tables.items():
        ops: dict[str, Any] = {}
        if table.inserted:
            ops["inserted"] = _rows([trim(redact_json(r), items=2, chars=48) for r in table.inserted])
        if table.updated:
            # an update is its key plus what changed: before -> after
            ops["updated"] = _rows([_changes(redact_json(u.before), redact_json(u.after)) for u in table.updated])
        if table.deleted:
            ops["deleted"] = _rows([trim(redact_json(r), chars=48) for r in table.deleted])
        view[name] = ops
    return view


def _rows(rows: list[Any], shown: int = 2) -> list[Any]:
    return [*rows[:shown], f"…(+{len(rows) - shown} more)"] if len(rows) > shown else rows


def _changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    keys = {k: trim(v, chars=48) for k, v in before.items() if k == "id" or k.lower().endswith("id")}
    changed = {k: [trim(before.get(k), chars=48), trim(v, chars=48)] for k, v in after.items() if before.get(k) != v}
    return {**keys, "changed": changed}


def _header(recording: Recording, evidence: Evidence, *, slim: bool) -> dict[str, Any]:
    main = evidence.main_entity
    header: dict[str, Any] = {
        "mode": evidence.mode.value,
        "instruction": redact_text(recording.task.instruction),
        "site": recording.metadata.site,
        "annotator_marked": recording.task.network_requests,
        "main_entity": (f"{main.key}={main.value}" if slim else main._asdict()) if main else None,
        "noise_removed": evidence.noise_removed,
    }
    # the model reads absence as well as an empty value; the stored view keeps every key
    return {k: v for k, v in header.items() if v not in (None, "", [], {})} if slim else header


def slim_evidence(recording: Recording, evidence: Evidence) -> dict[str, Any]:
    view = _header(recording, evidence, slim=True)
    refs = frozenset(e.value for c in evidence.significant for e in c.entities)
    calls = recording.calls
    landed = {w: page for r, w in landing_pages(calls).items() if isinstance(page := calls[r], HttpCall)}
    view["calls"] = [
        _call_view(recording, c, slim=True, refs=refs, landing=landed.get(c.index))
        for c in evidence.calls
        if c.significant
    ]
    # side calls stay visible, by name only: the model must know they happened and are not the task
    side = [
        {"id": slim_id(c), "name": c.name, "side_call": c.noise_category}
        for c in evidence.calls
        if c.noise_category in SIDE_CATEGORIES
    ]
    if side:
        view["side_calls"] = side
    dbdiff = _dbdiff_view(recording, slim=True)
    if dbdiff is not None:
        view["dbdiff"] = dbdiff
    return recorded_secrets(recording).value(view)


def full_evidence(recording: Recording, evidence: Evidence) -> dict[str, Any]:
    view = _header(recording, evidence, slim=False)
    view["calls"] = [_call_view(recording, c, slim=False) for c in evidence.calls]
    view["dbdiff"] = _dbdiff_view(recording, slim=False)
    return recorded_secrets(recording).value(view)


def evidence_chars(view: dict[str, Any]) -> int:
    return len(json.dumps(view, ensure_ascii=False, separators=(",", ":")))
