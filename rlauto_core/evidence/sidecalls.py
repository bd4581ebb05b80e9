"""Side calls: writes that change nothing the task is about.

Apps post far more than the task needs: telemetry and experiment exposures, recommendation
requests (often to another host), and UI-state persistence (grid column state, saved filters,
bookmarks, recently viewed, editor cursor, preferences). A package that required one would grade
what any attempt does by accident. Decided from three signals, never from the host alone (a
payment provider on another host is a real write):
- the path's vocabulary (and the host's labels when it is another site),
- the host's relation to the task's site (same registrable domain or not),
- the response: telemetry answers an acknowledgement, a recommendation answers a list.
A UI-state write the instruction asks for (its words or a value it sends) stays a task write.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from rlauto_core.evidence.classify import name_tokens
from rlauto_core.protocols import operation_of
from rlauto_core.recording import HttpCall, Recording

SIDE_CATEGORIES = frozenset({"telemetry", "recommendations", "ui_state"})

_TELEMETRY = frozenset(
    ["event", "events", "log", "logs", "logging", "metric", "metrics", "telemetry", "track", "tracking", "analytics",
     "impression", "impressions", "exposure", "exposures", "pageview", "pageviews", "beacon", "collect", "collector",
     "ingest", "stats", "vitals", "rum", "perf", "pixel", "heartbeat", "ping", "insights"]
)  # fmt: skip
_RECOMMEND = frozenset(
    ["recommend", "recommendation", "recommendations", "recs", "reco", "recos", "related", "similar", "suggest",
     "suggestion", "suggestions", "personalize", "personalization", "personalized", "trending", "foryou"]
)  # fmt: skip
# Words that on their own mean UI state; and pairs (a state word with a UI word) that do.
_UI_STRONG = frozenset(
    ["bookmark", "bookmarks", "layout", "layouts", "preference", "preferences", "prefs", "recent", "recents",
     "recently", "viewstate", "uistate", "gridstate", "tour", "onboarding", "dismissed", "collapsed", "sidebar",
     "theme", "cursor", "scroll", "density", "breadcrumbs", "seen", "viewed", "lastseen", "lastviewed", "markasviewed", "markasseen"]
)  # fmt: skip
_EVENT_BODY = frozenset(
    ["event", "events", "schema", "telemetry", "metric", "metrics", "track", "beacon", "impression"]
)
_UI_STATE_WORDS = frozenset(["state", "save", "saved", "persist", "settings", "store"])
_UI_WORDS = frozenset(
    ["ui", "grid", "grids", "table", "view", "views", "editor", "panel", "panels", "column", "columns", "filter",
     "filters", "sort", "widget", "widgets", "search", "searches", "tab", "tabs"]
)  # fmt: skip
# Instruction words that ask for UI state itself (then such a write is the task).
_UI_ASKED = re.compile(
    r"\b(bookmark|sav(e|ed|ing) (\w+ ){0,3}(filter|view|search|layout)|layout|preference|column|sort(ed)? by|theme|"
    r"sidebar|density|mark\w* (\w+ ){0,3}(as )?(seen|viewed))\w*",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"'([^']{2,120})'|\"([^\"]{2,120})\"|‘([^’]{2,120})’|“([^”]{2,120})”|「([^」]{2,120})」")
_ACK_KEYS = frozenset(["ok", "success", "status", "accepted", "received", "count", "queued", "result", "error"])
_TWO_LEVEL = frozenset(["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"])


@lru_cache(maxsize=4096)
def registrable(host: str) -> str:
    """`api.shop.example.co.uk` -> `example.co.uk`: the part a site owns."""
    labels = [p for p in host.lower().split(":")[0].split(".") if p]
    if len(labels) >= 3 and labels[-2] in _TWO_LEVEL and len(labels[-1]) == 2:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def site_domains(recording: Recording) -> frozenset[str]:
    """The task's site: the recorded `metadata.site`, else the pages the calls came from, else the
    host most calls went to."""
    site = recording.metadata.site
    if site:
        host = urlsplit(site).netloc or site
        if host and "." in host:
            return frozenset({registrable(host)})
    pages = {registrable(urlsplit(c.page_url).netloc) for c in recording.http_calls if c.page_url}
    pages.discard("")
    if pages:
        return frozenset(pages)
    counts: dict[str, int] = {}
    for call in recording.http_calls:
        if call.host:
            domain = registrable(call.host)
            counts[domain] = counts.get(domain, 0) + 1
    return frozenset({max(counts, key=lambda d: (counts[d], d))}) if counts else frozenset()


@lru_cache(maxsize=16384)
def _path_words(path: str) -> frozenset[str]:
    words = set(name_tokens(path))
    # `grid-state`, `viewState`, `saved_filters` also count as one word
    for segment in path.lower().split("/"):
        for part in re.split(r"[.]", segment):
            words.add(re.sub(r"[^a-z]", "", part))
    words.discard("")
    return frozenset(words)


def _body(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _acknowledges(call: HttpCall) -> bool:
    """2xx with nothing a task would use: empty, or only ok/status/accepted-like keys."""
    if call.status is None or not 200 <= call.status < 300:
        return False
    body = _body(call.response_body) if call.response_body_encoding == "text" else None
    if body in (None, "", {}, []):
        return True
    return isinstance(body, dict) and set(body) <= _ACK_KEYS


def _answers_a_list(call: HttpCall) -> bool:
    body = _body(call.response_body) if call.response_body_encoding == "text" else None
    if isinstance(body, list):
        return True
    return isinstance(body, dict) and "id" not in body and any(isinstance(v, list) for v in body.values())


def _names(value: Any, out: list[str], depth: int = 0) -> None:
    """The strings a write sends (a saved view's name, a bookmark's label)."""
    if depth > 4:
        return
    if isinstance(value, dict):
        for item in value.values():
            _names(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _names(item, out, depth + 1)
    elif isinstance(value, str) and len(value) >= 2:
        out.append(value.strip().lower())


def _asked(call: HttpCall, instruction: str) -> bool:
    """Does the instruction ask for this UI-state write: its kind, or a name it sends, quoted?
    (A bookmark labelled "Order 4411" is not asked for by "mark order 4411 shipped".)"""
    if not instruction:
        return False
    if _UI_ASKED.search(instruction):
        return True
    quoted = {next(g for g in m.groups() if g).strip().lower() for m in _QUOTED.finditer(instruction)}
    if not quoted:
        return False
    sent: list[str] = []
    _names(_body(call.request_body) if call.request_body_encoding == "text" else None, sent)
    return any(value in quoted for value in sent)


_UI_STRONG_LONG = tuple(w for w in _UI_STRONG if len(w) >= 6)


@lru_cache(maxsize=16384)  # per path: recordings repeat the same endpoints
def _ui_state_path(path: str) -> bool:
    found = _path_words(path)
    if _ui_state_words(set(found)):
        return True
    # one compound word (`mypreferences`, `usersidebarstate`) holding a long strong word
    return any(strong in word for word in found if len(word) > 6 for strong in _UI_STRONG_LONG)


def _body_words(call: HttpCall) -> set[str]:
    """Words of the request body's keys, two levels deep (`event_name`, `metadata.event_created_at`)."""
    body = _body(call.request_body) if call.request_body_encoding == "text" else None
    items = body if isinstance(body, list) else [body]
    words: set[str] = set()
    for item in items[:5]:
        if isinstance(item, dict):
            for key, value in item.items():
                words.update(name_tokens(str(key)))
                if isinstance(value, dict):
                    for inner in value:
                        words.update(name_tokens(str(inner)))
    return words


def _ui_state_words(words: set[str]) -> bool:
    return bool(words & _UI_STRONG or (words & _UI_STATE_WORDS and words & _UI_WORDS))


def side_call_category(call: HttpCall, site: frozenset[str], instruction: str = "") -> str | None:
    """`telemetry`, `recommendations` or `ui_state` for a write that changes nothing the task is about."""
    if call.method.upper() not in ("POST", "PUT", "PATCH", "DELETE"):
        return None
    operation = operation_of(call)
    if operation is not None:  # one endpoint: what a GraphQL mutation does is in its name, as a path's words are
        words = set(name_tokens(operation.label)) | set(name_tokens(operation.name or ""))
        if operation.writes and _ui_state_words(words) and not _asked(call, instruction):
            return "ui_state"
        return None
    other_host = bool(site) and bool(call.host) and registrable(call.host) not in site
    words = set(_path_words(call.path))
    if other_host:
        words |= {w for w in re.split(r"[^a-z]+", call.host.lower()) if w}
    if words & _RECOMMEND and (other_host or _answers_a_list(call)):
        return "recommendations"
    if words & _TELEMETRY and (other_host or _acknowledges(call)) and (_acknowledges(call) or _answers_a_list(call)):
        return "telemetry"
    # another host, an acknowledgement, a body describing events (`schema_id`, `event_created_at_ms`)
    if other_host and _acknowledges(call) and _body_words(call) & _EVENT_BODY:
        return "telemetry"
    if (_ui_state_path(call.path) or _ui_settings(call, words)) and not _asked(call, instruction):
        return "ui_state"
    return None


def _ui_settings(call: HttpCall, path_words: set[str]) -> bool:
    """A settings write whose fields name parts of the screen (`is_discuss_sidebar_category_chat_open`,
    `chatter_position`): how the page looks, saved under the user's settings."""
    if not path_words & _UI_STATE_WORDS:
        return False
    keys: set[str] = set()
    _key_words(_body(call.request_body) if call.request_body_encoding == "text" else None, keys)
    return bool(keys & _UI_STRONG) or bool(keys & {"panel", "position", "collapsed", "layout", "width", "density"})


def _key_words(value: Any, out: set[str], depth: int = 0) -> None:
    if depth > 5 or len(out) > 200:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(name_tokens(str(key)))
            _key_words(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:20]:
            _key_words(item, out, depth + 1)
