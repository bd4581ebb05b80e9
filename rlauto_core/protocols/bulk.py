"""A search engine's bulk request (Elasticsearch and OpenSearch `_bulk`) as the single-document
calls it stands for.

`POST /_bulk` carries NDJSON pairs (an action line, then the document for index, create and
update) and answers 200 with one result per item, `errors: true` when any failed. Each item is a
write of its own: an update that succeeded did update, the one refused (409) did not. Split on
import into the call the document API makes (`POST /{index}/_update/{id}`, `PUT
/{index}/_doc/{id}`, `PUT /{index}/_create/{id}`, `DELETE /{index}/_doc/{id}`), each answered
with its item's own status and result, a bulk and the same writes sent one by one grade alike,
and an item refused inside the 200 is a failed write like any other.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from rlauto_core.recording import HttpCall

ACTIONS = ("index", "create", "update", "delete")
MAX_BODY = 20_000_000
MAX_ITEMS = 10_000


def _lines(body: str) -> list[dict[str, Any]] | None:
    items: list[dict[str, Any]] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if not isinstance(value, dict):
            return None
        items.append(value)
        if len(items) > 2 * MAX_ITEMS:
            return None
    return items


def _pairs(lines: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]] | None:
    """(action, its metadata, the document or None for a delete)."""
    found: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = []
    position = 0
    while position < len(lines):
        head = lines[position]
        if len(head) != 1 or next(iter(head)) not in ACTIONS or not isinstance(next(iter(head.values())), dict):
            return None
        action, meta = next(iter(head.items()))
        if action == "delete":
            found.append((action, meta, None))
            position += 1
            continue
        if position + 1 >= len(lines):
            return None
        found.append((action, meta, lines[position + 1]))
        position += 2
    return found


def is_bulk(call: HttpCall) -> bool:
    return call.path.rstrip("/").endswith("/_bulk") and call.method.upper() in ("POST", "PUT")


def _item_url(call: HttpCall, index: str | None, action: str, doc_id: str | None) -> tuple[str, str]:
    parts = urlsplit(call.url)
    segments = [s for s in parts.path.split("/") if s][:-1]  # the path without `_bulk`
    prefix = "/".join(segments[:-1] if index and segments and segments[-1] == index else segments)
    base = f"/{prefix}" if prefix else ""
    name = index or (segments[-1] if segments else "_all")
    escaped = quote(str(doc_id), safe="") if doc_id is not None else None
    if action == "update":
        method, path = "POST", f"{base}/{name}/_update/{escaped}"
    elif action == "delete":
        method, path = "DELETE", f"{base}/{name}/_doc/{escaped}"
    elif action == "create":
        method, path = "PUT", f"{base}/{name}/_create/{escaped}"
    else:
        method, path = ("PUT", f"{base}/{name}/_doc/{escaped}") if escaped else ("POST", f"{base}/{name}/_doc")
    return method, urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _results(call: HttpCall, size: int) -> list[dict[str, Any] | None]:
    try:
        answer = json.loads(call.response_body or "null") if call.response_body_encoding == "text" else None
    except (ValueError, RecursionError):
        answer = None
    items = answer.get("items") if isinstance(answer, dict) else None
    if not isinstance(items, list) or len(items) != size:
        return [None] * size
    found: list[dict[str, Any] | None] = []
    for item in items:
        result = next(iter(item.values()), None) if isinstance(item, dict) and len(item) == 1 else None
        found.append(result if isinstance(result, dict) else None)
    return found


def split_call(call: HttpCall) -> list[HttpCall]:
    """The bulk request as one document call per item; any other call as it is."""
    body = call.request_body
    if not is_bulk(call) or not body or call.request_body_encoding != "text" or len(body) > MAX_BODY:
        return [call]
    lines = _lines(body)
    pairs = _pairs(lines) if lines else None
    if not pairs or len(pairs) > MAX_ITEMS:
        return [call]
    results = _results(call, len(pairs))
    base = call.model_dump()
    headers = [(n, "application/json" if n.lower() == "content-type" else v) for n, v in call.request_headers]
    parts: list[HttpCall] = []
    for number, ((action, meta, document), result) in enumerate(zip(pairs, results, strict=True), start=1):
        method, url = _item_url(call, meta.get("_index"), action, meta.get("_id"))
        status = result.get("status") if result is not None else call.status
        answered = isinstance(call.status, int) and call.status < 300 and result is not None
        parts.append(
            HttpCall.model_validate(
                {
                    **base,
                    "id": call.id if len(pairs) == 1 else f"{call.id}-op{number}",
                    "method": method,
                    "url": url,
                    "request_headers": headers,
                    "request_body": json.dumps(document, ensure_ascii=False) if document is not None else None,
                    "status": status if answered and isinstance(status, int) else call.status,
                    "response_body": json.dumps(result, ensure_ascii=False) if answered else call.response_body,
                    "extra": {**call.extra, "bulk": {"call": call.id, "index": number, "size": len(pairs)}},
                }
            )
        )
    return parts
