"""Entity ids a call touches: from tool arguments, URL path segments and request bodies.

Keys are canonical camelCase ending in `Id` (`channel_id`, `channelID`, `/channels/C01` all
give `channelId`), so that the same entity reached by different routes compares equal.
Form bodies (urlencoded or multipart) are read like JSON ones, nested by their names. A call's
entities are what its request names (the agent's choice); what its answer names is read apart
(`answer_entities`), for the main entity only: the entity the writes create or change.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

from rlauto_core.evidence.models import EntityRef
from rlauto_core.forms import read_fields
from rlauto_core.protocols.rpc_dispatch import dispatched_records
from rlauto_core.recording import HttpCall, ToolCall
from rlauto_core.redact import is_secret_field, looks_like_credential

# Words that end in "id" without naming an id (`grid` is not a `grId`).
_ID_WORDS = frozenset(
    ["grid", "grids", "paid", "unpaid", "prepaid", "valid", "invalid", "void", "avoid", "android", "fluid", "liquid",
     "rapid", "humid", "acid", "squid", "pyramid", "hybrid", "vivid", "solid", "rigid", "candid", "raid", "said",
     "laid", "maid", "kid", "kids", "lid", "mid", "aid", "druid", "braid", "afraid", "splendid", "timid", "lucid"]
)  # fmt: skip
_ID_KEY = re.compile(r"^(?P<stem>[A-Za-z][A-Za-z0-9_-]*?)[_-]?(id|Id|ID|ids|Ids|IDs)$")
# Reference keys that hold ids without saying so.
_ALIASES = {
    "replyto": "messageId", "reply_to": "messageId", "thread_ts": "threadId", "threadts": "threadId",
    "channel": "channelId", "guild": "guildId", "user": "userId", "users": "userId", "project": "projectId",
    "issue": "issueId", "repo": "repoId", "team": "teamId", "board": "boardId", "workspace": "workspaceId",
    "conversation": "conversationId",
}  # fmt: skip
# Path words that follow a collection without being an id of it.
_NOT_IDS = frozenset(
    ["me", "self", "current", "new", "edit", "search", "count", "unread", "read", "all", "settings", "config", "members", "labels", "status", "recent", "latest", "default", "bulk", "batch", "export", "import", "preview",
     # the action words of server-rendered routes (`/calls/add/`, Django admin's `/42/change/`)
     "add", "create", "change", "update", "delete", "remove", "destroy", "key"]
)  # fmt: skip
_NOT_COLLECTIONS = frozenset(["api", "rest", "version", "versions"])
_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,40}$")
_VERSION = re.compile(r"^v\d+(\.\d+)?$")
_IDISH = re.compile(r"^(?=.*\d)[A-Za-z0-9][A-Za-z0-9_.:-]{0,80}$|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f-]{9,}$")
_ID_VALUE = re.compile(r"^[^\s]{1,100}$")
_MAX_DEPTH = 3
_SEPARATORS = re.compile(r"[_-]")
_CALL_ID_STEMS = ("request", "trace", "span", "correlation", "idempotency")
_NOUN = re.compile(r"[A-Za-z][A-Za-z_-]*")
_MAX_ANSWER_CHARS = 1_000_000  # a bigger answer is a listing or a page, not one entity


@lru_cache(maxsize=8192)  # the same few keys recur on every call of a recording
def canonical_key(key: str) -> str | None:
    """`channel_id` -> `channelId`; keys that do not name an id give None."""
    alias = _ALIASES.get(key.lower())
    if alias:
        return alias
    if key.lower() in _ID_WORDS:
        return None
    match = _ID_KEY.match(key)
    if not match:
        return None
    stem = match.group("stem")
    parts = [p for p in _SEPARATORS.split(stem) if p]
    # ids of the call itself, not of an entity: `request_id`, `X-Request-Id`, `x_trace_id`
    if not parts or "".join(parts).lower().endswith(_CALL_ID_STEMS):
        return None
    head, rest = parts[0], parts[1:]
    head = head[0].lower() + head[1:]
    return head + "".join(p[:1].upper() + p[1:] for p in rest) + "Id"


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


# (key, value) pairs while collecting: tuples hash fast, models are built once at the end
Pair = tuple[str, str]


def _collect(value: Any, out: list[Pair], depth: int = 0) -> None:
    if depth > _MAX_DEPTH or not isinstance(value, dict):
        return
    for key, item in value.items():
        if not isinstance(key, str):
            continue
        canonical = canonical_key(key)
        if canonical:
            values = item if isinstance(item, list) else [item]
            for single in values:
                if isinstance(single, (str, int)) and not isinstance(single, bool) and _ID_VALUE.match(str(single)):
                    out.append((canonical, str(single)))
        elif isinstance(item, dict):
            _collect(item, out, depth + 1)


def _unique(pairs: Iterable[Pair]) -> list[EntityRef]:
    return [EntityRef(key, value) for key, value in dict.fromkeys(pairs)]


def tool_entities(call: ToolCall) -> list[EntityRef]:
    refs: list[Pair] = []
    _collect(call.arguments, refs)
    return _unique(refs)


def path_entities(path: str) -> list[EntityRef]:
    return _unique(_path_pairs(path))


@lru_cache(maxsize=16384)  # recordings hit the same paths again and again
def _path_pairs(path: str) -> tuple[Pair, ...]:
    """`/api/v1/channels/C01/messages/M9` -> channelId=C01, messageId=M9."""
    segments = [s for s in path.split("/") if s and not _VERSION.match(s)]
    refs: list[Pair] = []
    for position, (noun, value) in enumerate(itertools.pairwise(segments)):
        if noun.lower() in _NOT_COLLECTIONS:
            continue  # `/rest/api/3`: the number after `api` is its version
        if noun.startswith("_"):  # `/docs/_doc/7`, `/docs/_update/7`: an endpoint word before the id
            noun = _endpoint_noun(noun, segments[:position])
        signed = is_secret_field(noun, value) and looks_like_credential(value)
        if not _NOUN.fullmatch(noun) or value.lower() in _NOT_IDS or signed:
            continue  # `/key/<64 hex>/`: a signed URL's key (Magento's admin), a credential, no entity
        # an id has a digit; a slug (`projects/web`) counts after a plural collection noun
        slug = noun.endswith("s") and _SLUG.match(value) is not None and not value.endswith("s")
        if _IDISH.match(value) or slug:
            if noun.lower() == "id":  # `/catalog/product/save/id/42/set/4`: the id of the route's resource
                named = _route_noun(segments[:position])
                refs.append((canonical_key(f"{named}_id") or "id", value))
                continue
            refs.append((canonical_key(_singular(noun).replace("-", "_") + "_id") or noun, value))
    # a key/value path names what it acts on by `id`, whatever parameters follow it: that one is deepest
    by_id = {segments[n + 1] for n, segment in enumerate(segments[:-1]) if segment.lower() == "id"}
    refs.sort(key=lambda ref: ref[1] in by_id)
    return tuple(refs)


def _route_noun(before: list[str]) -> str:
    """The resource a route names before an action (`catalog/product/save` -> product)."""
    for segment in reversed(before):
        word = segment.lower()
        plain = _NOUN.fullmatch(segment) is not None and not word.startswith("_")
        if plain and word not in _NOT_IDS | _NOT_COLLECTIONS | _ROUTE_ACTIONS:
            return _singular(word).replace("-", "_")
    return "item"


# the actions of key/value routes (Magento's `catalog/product/save/id/42`), never their resource
_ROUTE_ACTIONS = frozenset(["validate", "save", "edit", "view", "index", "load", "massstatus", "mass", "grid"])


def _endpoint_noun(word: str, before: list[str]) -> str:
    """`_doc` names a doc; an action (`_update`, `_create`) names what the collection before it holds."""
    bare = word.lstrip("_")
    if bare.lower() not in _NOT_IDS and bare.lower() not in ("source", "explain", "termvectors"):
        return bare
    nouns = [s for s in before if _NOUN.fullmatch(s) and not s.startswith("_") and s.lower() not in _NOT_COLLECTIONS]
    return _singular(nouns[-1]) if nouns else "doc"


@lru_cache(maxsize=16384)
def _query_pairs(query: str) -> tuple[Pair, ...]:
    """Id-naming query parameters (`?channel_id=C01`): list pages repeat the same query."""
    if not query:
        return ()
    return tuple(
        (canonical, value)
        for key, value in parse_qsl(query, keep_blank_values=True)
        if value and (canonical := canonical_key(key))
    )


def http_entities(call: HttpCall) -> list[EntityRef]:
    refs = list(_path_pairs(call.path))
    refs += _query_pairs(call.query_string)
    body = call.request_body
    if body and call.request_body_encoding == "text" and body.lstrip()[:1] in ("{", "["):
        try:
            payload = json.loads(body)
        except ValueError:
            payload = None
        if isinstance(payload, dict):
            _collect(payload, refs)
        acted_on = dispatched_records(
            payload if isinstance(payload, dict) else None
        )  # an RPC dispatcher's, by position
        if acted_on is not None and (key := canonical_key(acted_on[0].rsplit(".", 1)[-1] + "_id")) is not None:
            refs += [(key, str(i)) for i in acted_on[1]]
    elif body:
        # form fields nest like a JSON body: `ticket[queue_id]=7` names queueId 7
        fields = read_fields(body, call.request_body_encoding, call.header("content-type"))
        if fields is not None:
            _collect(fields, refs)
    return _unique(refs)


def _collect_answer(value: Any, out: list[Pair], parent: str | None = None, depth: int = 0) -> None:
    """Named ids outside lists: `cartId`, `order_id`, and `{"cart": {"id": ...}}` as `cartId`. A bare
    top-level `id` names no entity, and a list is a listing of many, not the entity the call acted on."""
    if depth > _MAX_DEPTH or not isinstance(value, dict):
        return
    for key, item in value.items():
        if not isinstance(key, str) or isinstance(item, list):
            continue
        canonical = canonical_key(key)
        if canonical is None and key.lower() in ("id", "_id") and parent is not None:
            canonical = canonical_key(_singular(parent).replace("-", "_") + "_id")
        if canonical and isinstance(item, (str, int)) and not isinstance(item, bool) and _ID_VALUE.match(str(item)):
            out.append((canonical, str(item)))
        elif isinstance(item, dict):
            _collect_answer(item, out, key, depth + 1)


def _answer_payload(call: HttpCall | ToolCall) -> Any:
    if isinstance(call, ToolCall):
        result = call.result if isinstance(call.result, dict) else {}
        if isinstance(result.get("structuredContent"), dict):
            return result["structuredContent"]
        texts = [c.get("text") for c in result.get("content") or [] if isinstance(c, dict) and c.get("type") == "text"]
        body = texts[0] if texts and isinstance(texts[0], str) else None
    else:
        body = call.response_body if call.response_body_encoding == "text" else None
    if not body or body.lstrip()[:1] != "{" or len(body) > _MAX_ANSWER_CHARS:
        return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def _resource(path: str) -> str | None:
    """The collection a path ends in (`/wiki/api/v2/pages` -> `pages`, `/pages/77` -> `pages`)."""
    nouns = [s for s in path.split("/") if s and _NOUN.fullmatch(s) and s.lower() not in _NOT_COLLECTIONS]
    return nouns[-1] if nouns else None


def answer_entities(call: HttpCall | ToolCall) -> list[EntityRef]:
    """The entities a call's answer names: what a write created or changed (`{"order": {"id": "o_9"}}`,
    or a bare `id` of the resource an HTTP path names: `POST /pages` answering `{"id": "77"}`)."""
    refs: list[Pair] = []
    payload = _answer_payload(call)
    if isinstance(payload, dict) and "jsonrpc" in payload:  # the envelope's id is the call's, not an entity's
        payload = payload.get("result")
    parent = _resource(call.path) if isinstance(call, HttpCall) else None
    _collect_answer(payload, refs)
    if parent is not None and isinstance(payload, dict) and isinstance(payload.get("id"), (str, int)):
        _collect_answer({parent: {"id": payload["id"]}}, refs)
    return _unique(refs)
