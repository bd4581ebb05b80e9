"""Slim evidence (what a model sees) and full evidence (what is stored), both redacted.

Slim keeps significant calls only, short stable ids (the recorded id when it is short, `c<index>`
otherwise), request bodies trimmed, responses reduced to their id/status-like keys.
"""

from __future__ import annotations

import json
from typing import Any

from rlauto_core.evidence.models import CallEvidence, Evidence
from rlauto_core.recording import HttpCall, Recording, ToolCall
from rlauto_core.redact import redact_body, redact_json, redact_text, redact_url

MAX_ID_CHARS = 12
_RESPONSE_KEYS = {"id", "ok", "status", "state", "error", "errors", "code", "message", "name", "title", "text", "type"}


def slim_id(call: CallEvidence) -> str:
    return call.id if len(call.id) <= MAX_ID_CHARS else f"c{call.index}"


def trim(value: Any, *, depth: int = 3, items: int = 3, chars: int = 160) -> Any:
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


def relevant(value: Any, depth: int = 2) -> Any:
    """Reduce a response to what grounds a rubric: ids, status-like keys, nested objects' ids."""
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        for key, item in value.items():
            if key in _RESPONSE_KEYS or key.lower().endswith("id"):
                kept[key] = trim(item, depth=1, items=2, chars=80)
            elif isinstance(item, (dict, list)) and depth > 0:
                reduced = relevant(item, depth - 1)
                if reduced not in ({}, [], None):
                    kept[key] = reduced
        return kept
    if isinstance(value, list):
        head = [relevant(v, depth) for v in value[:2]]
        return [*head, f"…(+{len(value) - 2} more)"] if len(value) > 2 else head
    return trim(value, chars=80)


def _json_or_text(body: str | None) -> Any:
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return body


def _http_io(call: HttpCall, *, slim: bool) -> dict[str, Any]:
    request_body = _json_or_text(redact_body(call.request_body)) if call.request_body_encoding == "text" else "<binary>"
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
        if response_body is not None:
            out["response"] = relevant(response_body) if not isinstance(response_body, str) else trim(response_body)
        return out
    return {
        "url": redact_url(call.url),
        "request_headers": [
            {"name": h.name, "value": redact_json({"name": h.name, "value": h.value})["value"]}
            for h in call.request_headers
        ],
        "request_body": request_body,
        "response_headers": [
            {"name": h.name, "value": redact_json({"name": h.name, "value": h.value})["value"]}
            for h in call.response_headers
        ],
        "response_body": response_body,
        "started_at": call.started_at.isoformat() if call.started_at else None,
        "duration_ms": call.duration_ms,
    }


def _tool_io(call: ToolCall, *, slim: bool, write: bool = True) -> dict[str, Any]:
    arguments = redact_json(call.arguments)
    result = redact_json(call.result)
    if slim:
        out: dict[str, Any] = {"arguments": trim(arguments)}
        # a read's result matters only for the ids it shows; a write's for what it confirms
        depth = 2 if write else 1
        if isinstance(result, dict) and "structuredContent" in result:
            out["result"] = relevant(result["structuredContent"], depth)
        elif result is not None:
            out["result"] = relevant(result, depth) if not isinstance(result, str) else trim(result)
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


def _call_view(recording: Recording, evidence_call: CallEvidence, *, slim: bool) -> dict[str, Any]:
    call = recording.calls[evidence_call.index]
    view: dict[str, Any] = {"id": slim_id(evidence_call) if slim else evidence_call.id}
    if slim and view["id"] != evidence_call.id:
        view["ref"] = evidence_call.id
    view["name"] = evidence_call.name
    view["write"] = evidence_call.state_changing
    if evidence_call.status is not None:
        view["status"] = evidence_call.status
    if evidence_call.failed:
        view["failed"] = True
    # tool arguments already show their ids; paths and bodies of HTTP calls hide them
    if evidence_call.entities and (evidence_call.kind == "http" or not slim):
        view["entities"] = {e.key: e.value for e in evidence_call.entities}
    if not slim:
        view["significant"] = evidence_call.significant
        view["noise_category"] = evidence_call.noise_category
    if isinstance(call, HttpCall):
        view.update(_http_io(call, slim=slim))
    else:
        view.update(_tool_io(call, slim=slim, write=evidence_call.state_changing))
    return view


def _dbdiff_view(recording: Recording, *, slim: bool) -> dict[str, Any] | None:
    if recording.dbdiff is None:
        return None
    if not slim:
        return redact_json(recording.dbdiff.model_dump())  # type: ignore[no-any-return]
    view: dict[str, Any] = {}
    for name, table in recording.dbdiff.tables.items():
        view[name] = {
            "inserted": [trim(redact_json(r), items=2, chars=80) for r in table.inserted[:3]],
            "updated": [
                {"before": trim(redact_json(u.before), chars=80), "after": trim(redact_json(u.after), chars=80)}
                for u in table.updated[:3]
            ],
            "deleted": [trim(redact_json(r), chars=80) for r in table.deleted[:3]],
        }
    return view


def _header(recording: Recording, evidence: Evidence) -> dict[str, Any]:
    return {
        "mode": evidence.mode.value,
        "instruction": redact_text(recording.task.instruction),
        "site": recording.metadata.site,
        "annotator_marked": recording.task.network_requests,
        "main_entity": evidence.main_entity.model_dump() if evidence.main_entity else None,
        "noise_removed": evidence.noise_removed,
    }


def slim_evidence(recording: Recording, evidence: Evidence) -> dict[str, Any]:
    view = _header(recording, evidence)
    view["calls"] = [_call_view(recording, c, slim=True) for c in evidence.calls if c.significant]
    dbdiff = _dbdiff_view(recording, slim=True)
    if dbdiff is not None:
        view["dbdiff"] = dbdiff
    return view


def full_evidence(recording: Recording, evidence: Evidence) -> dict[str, Any]:
    view = _header(recording, evidence)
    view["calls"] = [_call_view(recording, c, slim=False) for c in evidence.calls]
    view["dbdiff"] = _dbdiff_view(recording, slim=False)
    return view


def evidence_chars(view: dict[str, Any]) -> int:
    return len(json.dumps(view, ensure_ascii=False, separators=(",", ":")))
