"""Values the session made, known by what they do in the recording rather than by their names.

A concurrency value (a lock version, a search engine's `_seq_no` sent back as `if_seq_no`, a
storage service's object generation sent as `ifGenerationMatch`) or a session token (an admin's
`form_key`) goes by many names no word list holds. What it does gives it away:
- **counter**: an answer gave it, a later write sends it back (body, query string or header), and
  that write's answer (or a later one) gives the same field another value;
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
from rlauto_core.recording import Call, HttpCall, Recording
from rlauto_core.redact import is_secret_header

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
                if origin is None or is_told(single, told):
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
    return {v: s for v, s in found.items() if s.kind != "token" or _is_token(s, writes, writes_sending)}


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
    for n, call in enumerate(calls):
        given_later[n] = [(f"{r}.{p}", _last_key(p), str(v)) for r, p, v in _given(call) if _scalar(v)]
    for entry in found.values():
        if entry.kind == "created" and _names_an_entity(entry):
            continue  # an id a write made stays an id even when a later answer shows another one
        senders = sorted(writes_sending.get(entry.value, ()), key=lambda c: position[c])
        if not senders:
            continue
        keys = {k for k in entry.seen_at if k and not _id_key(k)}
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
        counts = entry.kind in ("token", "created") and entry.seen_at & counting and entry.sent_at & sent_as
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
    named_id = _names_an_entity(entry)
    if _token_shaped(entry.value) and not named_id:
        return True
    # a page's hidden field posted back under its own name (a form's nonce): shorter, still random
    round_trip = entry.given_at.split(".", 1)[0] in ("html", "cookie") and bool(entry.sent_at & entry.seen_at)
    if round_trip and not named_id and _mixed(entry.value):
        return True
    every_write = len(writes) >= 2 and senders >= set(writes)
    return every_write and not named_id and len(entry.value) >= 8 and " " not in entry.value
