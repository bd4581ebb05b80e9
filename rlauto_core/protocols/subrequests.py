"""A JSON batch of HTTP sub-requests (Salesforce's composite and composite batch, Microsoft
Graph's `$batch`) as the calls it stands for.

One POST carries a list of `{method, url, body}` and the app answers 200 with one result per
sub-request, each with its own status: `{"compositeResponse": [{"httpStatusCode": 400, "body":
[...]}]}`. Each sub-request is a call of its own: the one that created did create, the one
refused inside the 200 did not. Split on import into the calls the same requests make sent one
by one (`POST /services/data/v60.0/sobjects/Contact`), each answered with its own status and
body, so a batch and the same calls sent alone grade alike, and a sub-request refused inside the
200 is a failed write like any other. A later sub-request that names an earlier one's result
(`"@{newAccount.id}"`) gets the value that result gave.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from rlauto_core.protocols.jsontext import json_value
from rlauto_core.recording import HttpCall

# request list key -> the answer's list key, and the keys of a sub-request's and a result's parts
_SHAPES = (
    ("compositeRequest", "compositeResponse"),  # Salesforce composite
    ("batchRequests", "results"),  # Salesforce composite batch
    ("requests", "responses"),  # Microsoft Graph $batch
)
_BODY_KEYS = ("body", "richInput")
_STATUS_KEYS = ("httpStatusCode", "statusCode", "status")
_RESULT_KEYS = ("body", "result")
_HEADER_KEYS = ("httpHeaders", "headers")
_REFERENCE = re.compile(r"@\{([A-Za-z_][\w]*)\.([\w.\[\]]+)\}")
MAX_BODY = 20_000_000
MAX_PARTS = 1000


def _requests(call: HttpCall) -> tuple[str, list[dict[str, Any]]] | None:
    """(the answer's list key, the sub-requests) of a batch of HTTP sub-requests; None otherwise."""
    if call.method.upper() != "POST" or call.request_body_encoding != "text":
        return None
    if not call.request_body or len(call.request_body) > MAX_BODY:
        return None
    body = json_value(call.request_body)
    if not isinstance(body, dict):
        return None
    for asked, answered in _SHAPES:
        items = body.get(asked)
        if (
            isinstance(items, list)
            and 0 < len(items) <= MAX_PARTS
            and all(
                isinstance(i, dict) and isinstance(i.get("method"), str) and isinstance(i.get("url"), str)
                for i in items
            )
        ):
            return answered, items
    return None


def is_subrequest_batch(call: HttpCall) -> bool:
    return _requests(call) is not None


def _results(call: HttpCall, key: str, items: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    answer = json_value(call.response_body) if call.response_body_encoding == "text" else None
    found = answer.get(key) if isinstance(answer, dict) else None
    if not isinstance(found, list):
        return [None] * len(items)
    by_id = {str(r.get("id")): r for r in found if isinstance(r, dict) and "id" in r}
    results: list[dict[str, Any] | None] = []
    for position, item in enumerate(items):
        if "id" in item and str(item["id"]) in by_id:  # Graph answers in any order, by id
            results.append(by_id[str(item["id"])])
        else:
            result = found[position] if position < len(found) else None
            results.append(result if isinstance(result, dict) else None)
    return results


def _url(call: HttpCall, relative: str) -> str:
    """A sub-request's URL on the batch's host: an absolute path that shares the batch's first
    segment (`/services/data/...`) as it is, else under the batch's base (Graph: `/v1.0`)."""
    parts = urlsplit(call.url)
    target = urlsplit(relative)
    if target.scheme and target.netloc:
        return relative
    path = target.path if target.path.startswith("/") else f"/{target.path}"
    first = next((s for s in parts.path.split("/") if s), "")
    if not (first and path.startswith(f"/{first}/")):
        base = parts.path.rsplit("/", 1)[0]  # the batch path without `$batch`
        path = f"{base}{path}"
    return urlunsplit((parts.scheme, parts.netloc, path, target.query, ""))


def _value_at(node: Any, dotted: str) -> Any:
    for piece in re.findall(r"[^.\[\]]+", dotted):
        if isinstance(node, dict):
            node = node.get(piece)
        elif isinstance(node, list) and piece.isdigit() and int(piece) < len(node):
            node = node[int(piece)]
        else:
            return None
    return node


def _resolved(value: Any, made: dict[str, Any]) -> Any:
    """`value` with each `@{reference.path}` an earlier result answers replaced by that answer."""
    if isinstance(value, str):

        def fill(match: re.Match[str]) -> str:
            found = _value_at(made.get(match.group(1)), match.group(2))
            return str(found) if found is not None and not isinstance(found, dict | list) else match.group(0)

        return _REFERENCE.sub(fill, value)
    if isinstance(value, dict):
        return {k: _resolved(v, made) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, made) for v in value]
    return value


def _first(item: dict[str, Any] | None, keys: tuple[str, ...]) -> Any:
    if item is None:
        return None
    return next((item[k] for k in keys if k in item), None)


def split_call(call: HttpCall) -> list[HttpCall]:
    """The batch as one call per sub-request; any other call as it is."""
    found = _requests(call)
    if found is None:
        return [call]
    key, items = found
    results = _results(call, key, items)
    base = call.model_dump()
    served = isinstance(call.status, int) and call.status < 300
    made: dict[str, Any] = {}
    parts: list[HttpCall] = []
    for number, (item, result) in enumerate(zip(items, results, strict=True), start=1):
        body = _resolved(_first(item, _BODY_KEYS), made)
        status = _first(result, _STATUS_KEYS)
        answered = served and isinstance(status, int)
        answer = _first(result, _RESULT_KEYS)
        reference = item.get("referenceId") or item.get("id")
        if reference is not None and answer is not None:
            made[str(reference)] = answer
        headers = _first(result, _HEADER_KEYS)
        parts.append(
            HttpCall.model_validate(
                {
                    **base,
                    "id": call.id if len(items) == 1 else f"{call.id}-op{number}",
                    "method": str(item["method"]).upper(),
                    "url": _url(call, _resolved(str(item["url"]), made)),
                    "request_headers": [(n, v) for n, v in call.request_headers if n.lower() == "content-type"]
                    or [("content-type", "application/json")],
                    "request_body": json.dumps(body, ensure_ascii=False) if body is not None else None,
                    "status": status if answered else call.status,
                    "response_headers": [(str(k), str(v)) for k, v in headers.items()]
                    if answered and isinstance(headers, dict)
                    else call.response_headers,
                    "response_body": (json.dumps(answer, ensure_ascii=False) if answer is not None else None)
                    if answered
                    else call.response_body,
                    "extra": {
                        **call.extra,
                        "subrequests": {
                            "call": call.id,
                            "index": number,
                            "size": len(items),
                            "answers": key,
                            "reference": None if reference is None else str(reference),
                        },
                    },
                }
            )
        )
    return parts


def with_references(part: HttpCall, made: dict[str, Any]) -> HttpCall:
    """A split part with the `@{reference.path}` in its URL and body filled from `made` (reference ->
    the answer it got): a replay answers the parts in turn, so the ids exist only as it goes."""
    if "@{" not in part.url and "@{" not in (part.request_body or ""):
        return part
    body = json_value(part.request_body)
    return part.model_copy(
        update={
            "url": _resolved(part.url, made),
            "request_body": json.dumps(_resolved(body, made), ensure_ascii=False)
            if body is not None
            else part.request_body,
        }
    )
