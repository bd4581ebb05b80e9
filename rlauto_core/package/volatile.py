"""Volatile values: what a later, equally good attempt sends differently.

Optimistic-lock versions, CSRF tokens, nonces and request ids, clocks, totals the server
computes, ids the client makes up: never compared (roles.py), the call's success is what counts.
And ids a server hands out per session (the cart a shop creates on the first read): bound to the
attempt's own answers. A value the instruction states is never volatile: the agent was told it.
"""

from __future__ import annotations

import itertools
import re
from typing import Any, Literal

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.evidence.entities import path_entities
from rlauto_core.evidence.models import Evidence
from rlauto_core.package.dataflow import Origin, id_like, input_locations, output_locations
from rlauto_core.recording import Call, HttpCall, Recording

VolatileKind = Literal["lock", "csrf", "nonce", "clock", "total", "page_state"]

_LOCK = frozenset(["version", "rev", "revision", "etag", "vsn", "cas"])
_LOCK_PARTS = frozenset(["number", "value", "id"])
_CSRF = frozenset(["csrf", "xsrf", "csrfmiddlewaretoken", "authenticity"])
_NONCE = frozenset(
    ["nonce", "idempotency", "txn", "dedupe", "dedup", "correlation", "trace", "traceparent", "cachebust"]
)
_NONCE_WITH_ID = frozenset(["request", "temp", "tmp", "local", "optimistic"])
_CLIENT_THINGS = frozenset(["msg", "message", "mutation", "request", "ref", "txn"])
_CLOCK_LAST = frozenset(["ts", "timestamp", "time", "stamp", "clock", "epoch", "millis"])
_CLOCK_AT = frozenset(
    ["created", "updated", "modified", "sent", "client", "viewed", "seen", "started", "placed", "last"]
)
_TOTAL = frozenset(["total", "subtotal", "grandtotal"])
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_EPOCH = re.compile(r"^1[5-9]\d{8}(\d{3})?(\.\d+)?$")
_STRUCTURED_ID = re.compile(r"^[A-Za-z]+(?:[_.:-][A-Za-z]+)*[_.:-]?\d+$")
_INDEX = re.compile(r"^\d+$")
PAGE_STATE = re.compile(r"^__(viewstate\w*|eventvalidation|previouspage)$", re.IGNORECASE)


_QUOTED = re.compile(r"'([^']{1,200})'|\"([^\"]{1,200})\"|‘([^’]{1,200})’|“([^”]{1,200})”|「([^」]{1,200})」")


def told_values(instruction: str) -> set[str]:
    """What the instruction states: its words (edge punctuation off) and its quoted strings."""
    words = {w.strip(".,:;!?") for w in re.findall(r"[^\s'\"‘’“”「」,;()]+", instruction or "")}
    quoted = {next(g for g in m.groups() if g) for m in _QUOTED.finditer(instruction or "")}
    return (words | quoted) - {""}


_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?")


def is_told(value: Any, told: set[str]) -> bool:
    """Did the instruction state this value? A date-time counts when its date and its time of day
    (or midnight) are stated: "on 2026-05-20 at 15:00" tells `2026-05-20T15:00:00Z`."""
    text = str(value)
    if text in told:
        return True
    moment = _DATE_TIME.match(text) if isinstance(value, str) else None
    if moment is None or moment.group(1) not in told:
        return False
    clock_time = moment.group(2)
    return clock_time is None or clock_time == "00:00" or clock_time in told


def key_words(path: str) -> list[str]:
    """Words of a field's own name: `basket.lock_version` -> [lock, version]; list indexes skipped."""
    parts = [p for p in path.split(".") if p and not _INDEX.match(p)]
    return name_tokens(parts[-1]) if parts else []


def _parent_words(path: str) -> list[str]:
    parts = [p for p in path.split(".") if p and not _INDEX.match(p)]
    return name_tokens(parts[-2]) if len(parts) >= 2 else []


def volatile_kind(path: str, value: Any) -> VolatileKind | None:
    """What kind of per-attempt value a field holds, by its name and (for clocks) its shape."""
    words = key_words(path)
    last = words[-1] if words else ""
    wordset = set(words)
    own = path.rsplit(".", 1)[-1].lower()
    if wordset & _CSRF or own in ("_token", "__requestverificationtoken"):
        return "csrf"
    if PAGE_STATE.match(own):
        return "page_state"  # ASP.NET WebForms' round-tripped page state: new blobs every page view
    if last in _LOCK or (last in _LOCK_PARTS and _parent_words(path)[-1:] in ([w] for w in _LOCK)):
        return "lock"  # `version`, `lock_version`, and inside a version object: `version.number`
    if len(words) >= 2 and words[-1] != "if" and (words[0] == "if" or (words[0] == "x" and "if" in words[1:3])):
        return "lock"  # a precondition, as HTTP's conditional requests name them: `if_seq_no`, `ifGenerationMatch`
    if wordset & _NONCE or (last == "id" and wordset & _NONCE_WITH_ID):
        return "nonce"
    if "client" in wordset and wordset & _CLIENT_THINGS:
        return "nonce"
    if last in _CLOCK_LAST or (last == "at" and wordset & _CLOCK_AT) or path.rsplit(".", 1)[-1] in ("_t", "cb"):
        return "clock"
    if wordset & _TOTAL or (wordset >= {"amount", "due"}):
        return "total"
    if isinstance(value, str) and _ISO_TIME.match(value):
        return "clock"
    if not isinstance(value, bool) and isinstance(value, int | float | str) and _EPOCH.match(str(value)):
        return "clock"
    return None


# names of a content's fingerprint: random-looking, yet the same whenever the same file is sent
_DIGESTS = frozenset({"sha1", "sha256", "sha512", "md5", "checksum", "digest"})


def is_digest(path: str) -> bool:
    """A field holding a fingerprint of what was sent (`document.file.sha256`): content, not made up."""
    return path.rsplit(".", 1)[-1].lower().lstrip("_") in _DIGESTS


def client_made(value: Any, known: set[str]) -> bool:
    """An id the client made up: random-looking text (letters and digits interleaved, or a UUID)
    that no earlier call, answer or the instruction showed. `sku_7741`-like ids are structured."""
    if not isinstance(value, str) or value in known or not 8 <= len(value) <= 200 or " " in value:
        return False
    if _STRUCTURED_ID.match(value):
        return False
    digits = sum(ch.isdigit() for ch in value)
    letters = sum(ch.isalpha() for ch in value)
    if digits < 2 or letters < 2:
        return False
    switches = sum(
        1 for a, b in itertools.pairwise(value) if a.isdigit() != b.isdigit() and (a.isalnum() and b.isalnum())
    )
    # a long token is random even with few switches; a URI or gid (`gid://shop/Variant/4455`) is not
    return switches >= 4 or (len(value) >= 20 and re.fullmatch(r"[A-Za-z0-9_-]+", value) is not None)


def _successful(call: Call, infos: dict[str, Any]) -> bool:
    info = infos.get(call.id)
    return info is not None and info.significant and not info.failed


def _singleton_read(call: Call) -> bool:
    """A read that names nothing (`GET /api/cart`, `get_current_cart`): what it answers, the server chose."""
    if isinstance(call, HttpCall):
        return not call.query and not call.request_body and not path_entities(call.path)
    return not call.arguments


def handed_out(recording: Recording, evidence: Evidence, golden: set[str]) -> dict[str, Origin]:
    """Ids first seen in the answer of a golden read that named nothing, outside any list: the
    session's cart, the current draft. A later attempt gets other ones from the same read."""
    infos = {c.id: c for c in evidence.calls}
    seen: set[str] = told_values(recording.task.instruction)
    found: dict[str, Origin] = {}
    for call in recording.calls:
        for loc in input_locations(call):
            seen.update(str(v) for v in (loc.value if isinstance(loc.value, list) else [loc.value]) if v is not None)
        info = infos.get(call.id)
        reads = info is not None and not info.state_changing and call.id in golden and _successful(call, infos)
        for root, path, value in output_locations(call):
            if value is None or isinstance(value, dict | list):
                continue
            text = str(value)
            if text in seen:
                continue
            seen.add(text)
            in_list = any(_INDEX.match(p) for p in path.split("."))
            if (
                reads
                and not in_list
                and id_like(value)
                and _singleton_read(call)
                and volatile_kind(path, value) is None
            ):
                found[text] = Origin(call.id, root, path)
    return found
