"""GraphQL over HTTP as a protocol: one endpoint, the action in the document.

Every call is `POST /graphql` (or a persisted query's GET), so the HTTP method says nothing: a
`query` reads, a `mutation` writes, and the operation's first root field (`cartCreate`) is what
the server does. A batch (a JSON array of operations in one POST) is several calls that happen
to share a request: `split_batches` makes each its own call, so a batched attempt and one that
sends the same operations one by one are graded alike.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl

from rlauto_core.recording import HttpCall

OperationType = Literal["query", "mutation", "subscription"]
ENDPOINT_WORDS = frozenset({"graphql", "graphql.json", "gql", "graphiql"})
# a document bigger than this is not scanned for its operation: nothing real comes near it
MAX_DOCUMENT = 200_000
MAX_BODY = 2_000_000
_NAME = re.compile(r"[_A-Za-z][_0-9A-Za-z]*")
_KEYWORDS = ("query", "mutation", "subscription")
# verbs of an operation name that say it writes, when only its name is known (a persisted query)
_WRITE_HINT = re.compile(
    r"^(create|add|update|set|delete|remove|send|post|mark|save|upsert|insert|edit|close|reopen|archive|assign|"
    r"publish|submit|cancel|move|merge|revoke|rotate|register|apply|attach|detach|toggle|enable|disable|reset)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Operation:
    """One GraphQL operation of a request: its type, name, first root field and variables.

    `type` is None when only a persisted query's hash was sent and its name says nothing."""

    type: OperationType | None
    name: str | None
    field: str | None
    variables: dict[str, Any] = dataclasses.field(default_factory=dict)
    persisted: bool = False

    @property
    def label(self) -> str:
        """What the operation does, for names and checkers: the root field, else the operation name."""
        return self.field or self.name or "anonymous"

    @property
    def writes(self) -> bool:
        if self.type is not None:
            return self.type == "mutation"
        return _WRITE_HINT.match(self.name or "") is not None

    def view(self) -> dict[str, Any]:
        """The `operation` fields a checker sees."""
        return {"type": self.type or ("mutation" if self.writes else "query"), "name": self.label}


def is_endpoint(path: str) -> bool:
    tail = path[-16:].rstrip("/").lower()  # asked of every call of a big recording: no split
    return tail.endswith(_ENDPOINT_TAILS) and tail.rsplit("/", 1)[-1] in ENDPOINT_WORDS


_ENDPOINT_TAILS = tuple(ENDPOINT_WORDS)


def _strip(document: str) -> str:
    """The document without comments and string literals (their braces and words mean nothing)."""
    out: list[str] = []
    i, size = 0, len(document)
    while i < size:
        ch = document[i]
        if ch == "#":
            end = document.find("\n", i)
            i = size if end < 0 else end
        elif document.startswith('"""', i):
            end = document.find('"""', i + 3)
            out.append('""')
            i = size if end < 0 else end + 3
        elif ch == '"':
            j = i + 1
            while j < size and document[j] != '"' and document[j] != "\n":
                j += 2 if document[j] == "\\" else 1
            out.append('""')
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _definitions(text: str) -> list[tuple[str, str | None, int]]:
    """(keyword, name, index of its selection set's `{`) of each operation at depth 0; fragments skipped."""
    found: list[tuple[str, str | None, int]] = []
    depth, i, size = 0, 0, len(text)
    while i < size:
        ch = text[i]
        if ch in "{(":
            if depth == 0 and ch == "{":
                found.append(("query", None, i))  # the shorthand: a bare selection set is a query
            depth += 1
            i += 1
            continue
        if ch in "})":
            depth = max(depth - 1, 0)
            i += 1
            continue
        word = _NAME.match(text, i) if depth == 0 else None
        if word is None:
            i += 1
            continue
        keyword = word.group(0)
        i = word.end()
        if keyword not in (*_KEYWORDS, "fragment"):
            continue
        rest = text[i:].lstrip()
        name_match = _NAME.match(rest)
        name = name_match.group(0) if name_match else None
        brace = _selection_start(text, i)
        if brace < 0:
            break
        if keyword != "fragment":
            found.append((keyword, name, brace))
        i = _skip_block(text, brace)
    return found


def _selection_start(text: str, start: int) -> int:
    """The `{` that opens a definition's selection set, past its variables `( ... )`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
        elif text[i] == "{" and depth == 0:
            return i
    return -1


def _skip_block(text: str, brace: int) -> int:
    depth = 0
    for i in range(brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _root_field(text: str, brace: int) -> str | None:
    """The first field of a selection set, past an alias (`a: closeIssue(...)`) and fragment spreads."""
    i = brace + 1
    while i < len(text):
        match = _NAME.search(text, i)
        if match is None:
            return None
        if text[i : match.start()].strip().endswith("..."):
            i = match.end()  # `...Fragment` or `... on Type`: not a root field of its own
            continue
        after = text[match.end() :].lstrip()
        if after.startswith(":") and not after.startswith("::"):
            alias_field = _NAME.match(after[1:].lstrip())
            return alias_field.group(0) if alias_field else None
        return match.group(0)
    return None


def parse_document(document: str, operation_name: str | None = None) -> tuple[OperationType, str | None, str | None]:
    """(type, name, first root field) of the operation a document runs (`operationName` picks one)."""
    text = _strip(document[:MAX_DOCUMENT])
    definitions = _definitions(text)
    if not definitions:
        return "query", operation_name, None
    chosen = next((d for d in definitions if operation_name and d[1] == operation_name), definitions[0])
    keyword, name, brace = chosen
    op_type: OperationType = (
        "mutation" if keyword == "mutation" else "subscription" if keyword == "subscription" else "query"
    )
    return op_type, name or operation_name, _root_field(text, brace)


def _json_object(text: Any) -> dict[str, Any]:
    if isinstance(text, dict):
        return text
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def operation_from(payload: dict[str, Any]) -> Operation | None:
    """The operation of one request object (`{query, operationName, variables, extensions}`)."""
    document = payload.get("query")
    name = payload.get("operationName") if isinstance(payload.get("operationName"), str) else None
    extensions = _json_object(payload.get("extensions"))
    persisted = isinstance(extensions.get("persistedQuery"), dict)
    variables = _json_object(payload.get("variables"))
    if isinstance(document, str) and document.strip():
        op_type, doc_name, root = parse_document(document, name)
        return Operation(op_type, name or doc_name, root, variables, persisted)
    if persisted or name:
        return Operation(None, name, None, variables, True)
    return None


def looks_like_request(payload: Any) -> bool:
    """A JSON object shaped like a GraphQL request: a document, or a persisted query's hash."""
    if not isinstance(payload, dict):
        return False
    document = payload.get("query")
    if isinstance(document, str) and document[:64].lstrip()[:1] in ("{", "q", "m", "s", "f", "#"):
        head = _strip(document[:2000]).lstrip()
        return head.startswith(("{", *_KEYWORDS, "fragment"))
    extensions = _json_object(payload.get("extensions"))
    return isinstance(extensions.get("persistedQuery"), dict)


def request_payloads(call: HttpCall) -> list[dict[str, Any]] | None:
    """The request objects a call carries, or None when it is no GraphQL call: a POST's JSON body
    (one object or a batch), an `application/graphql` document, a GET's query parameters."""
    if call.method.upper() == "GET":
        qs = call.query_string
        if not qs or ("query=" not in qs and "extensions=" not in qs):
            return None  # most GETs: no parsing at all (a 28k-call recording asks this of every call)
        params = dict(parse_qsl(qs, keep_blank_values=True))
        if not params.get("query") and not params.get("extensions"):
            return None
        if not is_endpoint(call.path) and not looks_like_request(params):
            return None
        return [dict(params)]
    body = call.request_body
    if not body or call.request_body_encoding != "text" or len(body) > MAX_BODY:
        return None
    endpoint = is_endpoint(call.path)
    if not endpoint and '"query"' not in body and '"extensions"' not in body and "graphql" not in body[:200]:
        return None
    content_type = (call.header("content-type") or "").lower()
    if "application/graphql" in content_type and "json" not in content_type:
        return [{"query": body}] if endpoint or looks_like_request({"query": body}) else None
    head = body[:64].lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        parsed = json.loads(body)
    except (ValueError, RecursionError):
        return None
    items = parsed if isinstance(parsed, list) else [parsed]
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    if endpoint or all(looks_like_request(i) for i in items):
        return items if any(operation_from(i) is not None for i in items) else None
    return None


def operations(call: HttpCall) -> list[Operation]:
    """The GraphQL operations of a call, in request order (none for any other call)."""
    payloads = request_payloads(call)
    if payloads is None:
        return []
    return [op for p in payloads if (op := operation_from(p)) is not None]


def operation_of(call: HttpCall) -> Operation | None:
    """The call's one operation (a batch is split on import: `split_batches`)."""
    found = operations(call)
    return found[0] if len(found) == 1 else None


def is_batch(call: HttpCall) -> bool:
    body = call.request_body
    if call.method.upper() != "POST" or not body or body[:64].lstrip()[:1] != "[":
        return False
    payloads = request_payloads(call)
    return payloads is not None and len(payloads) > 1


def _batch_answers(call: HttpCall, size: int) -> list[str | None]:
    body = call.response_body
    if body and call.response_body_encoding == "text" and body[:64].lstrip()[:1] == "[":
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, list) and len(parsed) == size:
            return [json.dumps(item, ensure_ascii=False) for item in parsed]
    return [body] * size  # one answer for the whole batch (an error page): each operation got it


def split_call(call: HttpCall) -> list[HttpCall]:
    """A batched POST as one call per operation (`<id>-op1`...), each with its own answer."""
    payloads = request_payloads(call) if is_batch(call) else None
    if payloads is None:
        return [call]
    answers = _batch_answers(call, len(payloads))
    base = call.model_dump()
    parts: list[HttpCall] = []
    for number, (payload, answer) in enumerate(zip(payloads, answers, strict=True), start=1):
        extra = {**call.extra, "graphqlBatch": {"call": call.id, "index": number, "size": len(payloads)}}
        parts.append(
            HttpCall.model_validate(
                {
                    **base,
                    "id": f"{call.id}-op{number}",
                    "request_body": json.dumps(payload, ensure_ascii=False),
                    "response_body": answer,
                    "extra": extra,
                }
            )
        )
    return parts


def get_request(call: HttpCall) -> dict[str, Any] | None:
    """A GraphQL GET's query parameters as the request object a POST would send (variables and
    extensions parsed), so both are checked alike; None for any other call."""
    if call.method.upper() != "GET":
        return None
    payloads = request_payloads(call)
    if not payloads:
        return None
    request: dict[str, Any] = dict(payloads[0])
    for key in ("variables", "extensions"):
        if key in request:
            request[key] = _json_object(request[key])
    return request
