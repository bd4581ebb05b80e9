"""Values the session made, known by what they do in the recording rather than by their names.

A concurrency value (a lock version, a search engine's `_seq_no` sent back as `if_seq_no`, a
storage service's object generation sent as `ifGenerationMatch`) or a session token (an admin's
`form_key`) goes by many names no word list holds. What it does gives it away:
- **counter**: an answer gave it, a later write sends it back (body, query string or header), and
  that write's answer (or a later one) gives the same field another value; or a refused write
  sent it and its retry sends what a re-read answered instead (a precondition, however deep the
  answer listed it);
- **companion**: sent by the same write, beside a counter, from the same answer (the primary term
  that goes with a sequence number);
- **token**: a random-looking value an answer gave under a name that is no id, that writes send
  back, or one value every write of the session sends (a form key on every form);
- **created**: first seen in the answer of a successful write (the dataflow's invented ids).
A later, equally good run gets other such values, so they are never compared (roles.py), and the
self-check's behaviour variant changes every one of them (judging/behaviour.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from rlauto_core.evidence.entities import canonical_key
from rlauto_core.evidence.models import Evidence
from rlauto_core.package.dataflow import id_like, input_locations, output_locations, scalars
from rlauto_core.package.volatile import is_told, told_values
from rlauto_core.protocols.jsontext import json_value
from rlauto_core.recording import Call, HttpCall, Recording
from rlauto_core.redact import is_secret_field, is_secret_header, looks_like_credential

SessionKind = Literal["counter", "companion", "token", "created"]
_INDEX = re.compile(r"^\d+$")
_TOKEN = re.compile(r"^[A-Za-z0-9_+/=.:-]{12,512}$")
# headers that carry what a request is, never a value of the task
_PLUMBING_HEADERS = frozenset(
    ["content-type", "content-length", "accept", "accept-encoding", "accept-language", "user-agent", "host", "origin",
     "referer", "connection", "cache-control", "pragma", "date", "server", "vary", "content-encoding", "etag-format",
     "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest", "sec-ch-ua", "sec-ch-ua-platform", "sec-ch-ua-mobile",
     "transfer-encoding", "x-requested-with", "location", "content-location"]
)  # fmt: skip


@dataclass
class SessionValue:
    """One value the session made: who gave it, who sent it back, and why it is the session's."""

    value: str
    kind: SessionKind
    given_by: str
    given_at: str
    sent_at: set[str] = field(default_factory=set)  # last keys it was sent under (`if_seq_no`)
    seen_at: set[str] = field(default_factory=set)  # last keys any answer gave it under (`_seq_no`)
    next_value: str | None = None  # what a later answer gave instead (a counter)

    def reason(self) -> str:
        if self.kind == "counter":
            moved = f", then {self.next_value}" if self.next_value is not None else ""
            return f"a counter of the session: {self.given_by}'s answer gave it ({self.given_at}){moved}, a write sent it back"
        if self.kind == "companion":
            return f"sent back beside a counter, from the same answer ({self.given_by}: {self.given_at})"
        if self.kind == "token":
            return f"a token of the session: {self.given_by}'s answer gave it ({self.given_at}), writes send it back"
        return f"made by {self.given_by} ({self.given_at})"


def _last_key(path: str) -> str:
    parts = [p for p in path.split(".") if p and not _INDEX.match(p)]
    return parts[-1].lower() if parts else ""


def _parent(path: str) -> str:
    return path.rsplit(".", 1)[0] if "." in path else ""


def _sent(call: Call) -> list[tuple[str, str, Any]]:
    """(root, path, value) the call sent: path segments, query, body or arguments, and headers."""
    found = [(loc.root, loc.path, loc.value) for loc in input_locations(call)]
    if isinstance(call, HttpCall):
        segments = [str(v) for r, _, v in found if r == "segment"]
        for n in range(1, len(segments)):  # `/key/<64 hex>/`: a signed URL's key, sent under its name
            if is_secret_field(segments[n - 1], segments[n]) and looks_like_credential(segments[n]):
                found.append(("path", segments[n - 1].lower(), segments[n]))
        for name, value in call.request_headers:
            low = name.lower()
            if low not in _PLUMBING_HEADERS and not is_secret_header(low) and not low.startswith(":"):
                found.append(("header", low, value.strip('"W/ ')))
    return found


def _cookies(call: Call) -> list[tuple[str, str]]:
    """(name, value) of the request's cookies: values the browser holds, never compared, but a body
    that sends one back (a web client's `dsc`) sends a session token."""
    if not isinstance(call, HttpCall):
        return []
    found: list[tuple[str, str]] = []
    for header, value in call.request_headers:
        if header.lower() == "cookie":
            for part in value.split(";"):
                name, _, cookie = part.strip().partition("=")
                if name and len(cookie) >= 8:
                    found.append((name.lower(), cookie))
    return found


def _given(call: Call) -> list[tuple[str, str, Any]]:
    found = list(output_locations(call))
    if isinstance(call, HttpCall):
        for name, value in call.response_headers:
            low = name.lower()
            if low not in _PLUMBING_HEADERS and low not in ("set-cookie",) and not low.startswith(":"):
                found.append(("header", low, value.strip('"W/ ')))
    return found


def _token_shaped(text: str) -> bool:
    if not _TOKEN.match(text) or " " in text:
        return False
    digits = sum(ch.isdigit() for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    return digits >= 2 and letters >= 4


def _distinctive(text: str) -> bool:
    """A value unlikely to match by chance: a number of three digits or more, a longer word."""
    return int(text) >= 100 if text.isdigit() else len(text) >= 4


def _words(key: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower()) if w} - {"if", "x"}


def _related(sent: set[str], given: set[str]) -> bool:
    """Was the value sent under a name akin to the one it was given under (`_seq_no` -> `if_seq_no`,
    `generation` -> `ifGenerationMatch`)?"""
    for a in sent:
        for b in given:
            left, right = re.sub(r"[^a-z0-9]", "", a.lower()), re.sub(r"[^a-z0-9]", "", b.lower())
            if len(left) >= 3 and len(right) >= 3 and (left in right or right in left):
                return True
            words_a, words_b = _words(a), _words(b)
            if words_a and words_b and (words_a <= words_b or words_b <= words_a):
                return True
    return False


def _mixed(text: str) -> bool:
    """Letters and digits mixed, eight characters or more, no spaces: `69072b9e25`, not `update`."""
    return len(text) >= 8 and " " not in text and any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _id_key(key: str) -> bool:
    return key in ("id", "_id", "uuid", "gid", "key") or canonical_key(key) is not None


def _same_shape(a: str, b: str) -> bool:
    return a != b and a.isdigit() == b.isdigit() and abs(len(a) - len(b)) <= 4


def session_values(recording: Recording, evidence: Evidence) -> dict[str, SessionValue]:
    """Value (as text) -> what the session made of it, for every value a later call sends back."""
    infos = {c.id: c for c in evidence.calls}
    told = told_values(recording.task.instruction)
    calls = recording.calls
    first_given: dict[str, tuple[int, str, str]] = {}  # value -> (position, root.path, last key)
    keys_given: dict[str, set[str]] = {}
    sent_before: set[str] = set()
    found: dict[str, SessionValue] = {}
    writes_sending: dict[str, set[str]] = {}  # value -> write ids that sent it
    writes = [c.id for c in calls if (i := infos.get(c.id)) is not None and i.state_changing and not i.failed]

    def ok_write(call: Call) -> bool:
        info = infos.get(call.id)
        return info is not None and info.state_changing and not info.failed

    for position, call in enumerate(calls):
        for name, value in _cookies(call):  # the browser's own session state, given before the call
            keys_given.setdefault(value, set()).add(name)
            if value not in first_given and value not in sent_before:
                first_given[value] = (position, f"cookie.{name}", name)
        sent = _sent(call)
        for root, path, value in sent:
            for single in scalars(value):
                if single is None or isinstance(single, bool | dict | list):
                    continue
                text = str(single)
                origin = first_given.get(text)
                if origin is None and root == "path":  # a signed URL's key: the session's, whoever showed it
                    origin = first_given.setdefault(text, (position, f"path.{path}", path))
                if origin is None:
                    continue
                if ok_write(call):
                    writes_sending.setdefault(text, set()).add(call.id)
                entry = found.get(text)
                if entry is None:
                    entry = found[text] = SessionValue(text, "token", calls[origin[0]].id, origin[1])
                    # a write's answer made it when it could be an id (`Detail.aspx` in a Location is a page)
                    entry.kind = "created" if ok_write(calls[origin[0]]) and id_like(single) else entry.kind
                entry.sent_at.add(_last_key(path) if root != "segment" else "segment")
                entry.seen_at |= keys_given.get(text, set())
        sent_before.update(str(s) for _, _, v in sent for s in scalars(v) if s is not None)
        for root, path, value in _given(call):
            for single in scalars(value):
                if single is None or isinstance(single, bool | dict | list):
                    continue
                text = str(single)
                keys_given.setdefault(text, set()).add(_last_key(path))
                if text not in first_given and text not in sent_before:
                    first_given[text] = (position, f"{root}.{path}", _last_key(path))
    _settle(found, calls, infos, writes, writes_sending, first_given)
    _retried_guards(found, calls, infos)
    kept = {v: s for v, s in found.items() if s.kind != "token" or _is_token(s, writes, writes_sending)}
    # what the instruction states stays the agent's, but a counter that happens to equal a stated number
    # ("add 2 cups", `version: 2` sent back) is still the server's
    return {
        v: s
        for v, s in kept.items()
        if not is_told(v, told) or (s.kind == "counter" and _related(s.sent_at, s.seen_at))
    }


def _settle(
    found: dict[str, SessionValue],
    calls: list[Call],
    infos: dict[str, Any],
    writes: list[str],
    writes_sending: dict[str, set[str]],
    first_given: dict[str, tuple[int, str, str]],
) -> None:
    """Counters (a later answer gives the field another value), then their companions."""
    position = {c.id: n for n, c in enumerate(calls)}
    given_later: dict[int, list[tuple[str, str, str]]] = {}
    plain: set[str] = set()  # values an answer gave outside any list: one entity's field, not a listing's
    for n, call in enumerate(calls):
        given = [(f"{r}.{p}", _last_key(p), str(v)) for r, p, v in _given(call) if _scalar(v)]
        given_later[n] = [g for g in given if not _listed(g[0])]
        plain.update(v for _, _, v in given_later[n])
    for entry in found.values():
        if entry.kind == "created" and _names_an_entity(entry):
            continue  # an id a write made stays an id even when a later answer shows another one
        if entry.value not in plain:
            continue  # a listing offers many (a product's `sku`): choices, never one entity's counter
        senders = sorted(writes_sending.get(entry.value, ()), key=lambda c: position[c])
        if not senders:
            continue
        keys = {k for k in entry.seen_at if k and not _id_key(k)}
        if not (_distinctive(entry.value) or _related(entry.sent_at, keys)):
            continue  # a `1` given as one field and sent as another is a coincidence, not a round trip
        for later in range(position[senders[0]], len(calls)):
            moved = next((v for _, k, v in given_later[later] if k in keys and _same_shape(v, entry.value)), None)
            if moved is not None:
                entry.kind, entry.next_value = "counter", moved
                break
    counters = [e for e in found.values() if e.kind == "counter"]
    # a field that counts counts for every value of it sent back the same way (the second key's
    # ModifyIndex, sent as `cas` by the last write, that no later answer shows moving)
    counting = {k for e in counters for k in e.seen_at if not _id_key(k)}
    sent_as = {k for e in counters for k in e.sent_at}
    for entry in found.values():
        same_field = entry.kind in ("token", "created") and bool(entry.seen_at & counting and entry.sent_at & sent_as)
        counts = same_field and (_distinctive(entry.value) or _related(entry.sent_at, entry.seen_at))
        if counts and not _names_an_entity(entry):
            entry.kind = "counter"
            counters.append(entry)
    for entry in found.values():
        if entry.kind != "token" or not writes_sending.get(entry.value) or _names_an_entity(entry):
            continue  # the cart a versioned write acts on goes beside the version, and is no precondition
        origin = first_given[entry.value]
        for counter in counters:
            same_answer = first_given[counter.value][0] == origin[0]
            same_parent = _parent(first_given[counter.value][1]) == _parent(origin[1])
            together = writes_sending.get(counter.value, set()) & writes_sending[entry.value]
            if same_answer and same_parent and together:
                entry.kind = "companion"
                break


def _retried_guards(found: dict[str, SessionValue], calls: list[Call], infos: dict[str, Any]) -> None:
    """A write refused, then sent again after a read with only a few values changed, each to a
    value that read answered (the refused one sent what an earlier answer gave): those values are
    preconditions (a stock count sent as `compareQuantity`, a revision), whatever they are called
    and however deep the answer listed them. The refusal says the old one was stale; a later run
    reads its own."""
    refused = {i.name for c in calls if (i := infos.get(c.id)) is not None and i.failed}
    if not refused:
        return  # no refused write, no retry: the common case reads no answer
    seen: dict[int, set[str]] = {}

    def answered(i: int) -> set[str]:
        if i not in seen:
            seen[i] = _answer_scalars(calls[i])
        return seen[i]

    for n, call in enumerate(calls):
        info = infos.get(call.id)
        if info is None or not info.state_changing or info.failed or info.name not in refused:
            continue
        sent = {(r, p): str(v) for r, p, v in _sent(call) if _scalar(v)}
        for m, earlier in enumerate(calls[:n]):
            before = infos.get(earlier.id)
            if before is None or not before.failed or before.name != info.name:
                continue
            tried = {(r, p): str(v) for r, p, v in _sent(earlier) if _scalar(v)}
            changed = [k for k in sent if k in tried and sent[k] != tried[k]]
            if set(tried) != set(sent) or not changed or len(changed) > 3:
                continue
            reread = [i for i in range(m + 1, n) if all(sent[k] in answered(i) for k in changed)]
            stale = all(any(tried[k] in answered(i) for i in range(m)) for k in changed)
            if not reread or not stale:
                continue
            for k in changed:
                entry = found.get(sent[k])
                if entry is None:
                    entry = found[sent[k]] = SessionValue(sent[k], "counter", calls[reread[0]].id, "response")
                entry.kind = "counter"
                entry.sent_at.add(_last_key(k[1]))


def _answer_scalars(call: Call, limit: int = 20_000) -> set[str]:
    """Every scalar an answer holds as text, however deep (a listing's nested counts too)."""
    if isinstance(call, HttpCall):
        node: Any = json_value(call.response_body) if call.response_body_encoding == "text" else None
    else:
        node = call.result
    found: set[str] = set()
    stack: list[Any] = [node]
    while stack and len(found) < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif _scalar(item):
            found.add(str(item))
    return found


def _listed(path: str) -> bool:
    return any(_INDEX.match(part) for part in path.split("."))


def _scalar(value: Any) -> bool:
    return value is not None and not isinstance(value, bool | dict | list)


def _names_an_entity(entry: SessionValue) -> bool:
    """Given or sent as an id (`id`, `cartId`, a path segment): a reference, not a precondition."""
    return any(_id_key(k) for k in entry.seen_at | entry.sent_at) or "segment" in entry.sent_at


def _is_token(entry: SessionValue, writes: list[str], writes_sending: dict[str, set[str]]) -> bool:
    """A token: random-looking under a name that is no id, or one value every write sends."""
    senders = writes_sending.get(entry.value, set())
    if not senders:
        return False
    if looks_like_credential(entry.value) and any(is_secret_field(k, entry.value) for k in entry.sent_at):
        return True  # a signed URL's key, a `key` field holding a credential
    named_id = _names_an_entity(entry)
    if _token_shaped(entry.value) and not named_id:
        return True
    # a page's hidden field posted back under its own name (a form's nonce): shorter, still random
    round_trip = entry.given_at.split(".", 1)[0] in ("html", "cookie") and bool(entry.sent_at & entry.seen_at)
    if round_trip and not named_id and _mixed(entry.value):
        return True
    every_write = len(writes) >= 2 and senders >= set(writes)
    return every_write and not named_id and len(entry.value) >= 8 and " " not in entry.value
