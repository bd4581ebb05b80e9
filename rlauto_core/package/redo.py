"""A redo of the golden trajectory: the same task done again later, as a second run records it.

Every id the server invented (dataflow.invented_values) or handed out on a read that named
nothing (volatile.handed_out) becomes another one, in the answers that made it, in later calls
that use it and in the database diff. Every volatile value (lock versions, CSRF tokens, nonces,
clocks, server totals: volatile.volatile_kind) and every id the client made up changes too, where
it sits under a volatile key or is long enough to be unmistakable. A package whose checkers pin
any of them fails this redo: the self-check reports it.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from rlauto_core.evidence.build import build_evidence
from rlauto_core.forms import field_path
from rlauto_core.package.calls import attempt_from_calls
from rlauto_core.package.dataflow import input_locations, invented_values, output_locations, submit_buttons
from rlauto_core.package.volatile import client_made, handed_out, is_digest, is_told, told_values, volatile_kind
from rlauto_core.recording import Call, DbDiff, HttpCall, Recording
from rlauto_core.redact import PART_HEAD_END, PART_NAME

_LONG = 8  # a changed value this long is replaced wherever it appears; shorter ones only under its key
_SEGMENT = re.compile(r"(?<=/)([^/?#\"'<\s]+)(?=[/?#\"'<\s]|$)")  # a path segment, in a URL or a page
# a multipart text part (not a file): its headers, its name, its value up to the next boundary
_PART = re.compile(rf"({PART_NAME}(?![^\r\n]*filename){PART_HEAD_END})([^\r\n]{{0,4000}})(?=\r?\n--)", re.IGNORECASE)
_FORM = re.compile(r"^[\w.%\[\]-]+=[^&\s]*(?:&[\w.%\[\]-]+=[^&\s]*)*$")


def new_id(value: Any) -> Any:
    """Another id of the same shape; digits stay digits so `128` and `"128"` move together."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value + 104_729
    if isinstance(value, str) and value.isdigit():
        return str(int(value) + 104_729)
    return f"{value}r9"


def later_value(value: Any) -> Any:
    """What a later run sends instead: versions and clocks move on, tokens are new."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value + 1_000 if value < 1_000_000_000 else value + 259_200_000
    if isinstance(value, float):
        return value + 259_200.0
    text = str(value)
    if re.match(r"^\d{4}-", text):  # an ISO time: the next year, same format
        return f"{int(text[:4]) + 1}{text[4:]}"
    if text.isdigit():
        return str(int(text) + 1_000)
    return f"{text}x7"


class Changes:
    """Old value (as text) -> new value: ids everywhere, volatile values under volatile keys."""

    def __init__(self, ids: dict[str, Any], volatile: dict[str, Any], labels: frozenset[str] = frozenset()) -> None:
        self.ids, self.volatile = ids, volatile
        self.labels = labels  # field paths of submit buttons: their labels change with the UI language

    def __bool__(self) -> bool:
        return bool(self.ids or self.volatile)

    def leaf(self, node: Any, key: str) -> Any:
        text = str(node)
        if text in self.ids and (isinstance(node, (str, int | float))):
            return self.ids[text] if isinstance(node, str) else new_id(node)
        volatile_key = volatile_kind(key, node) is not None or field_path(key) in self.labels
        if text in self.volatile and (volatile_key or len(text) >= _LONG):
            return self.volatile[text] if isinstance(node, str) else later_value(node)
        return node

    def swap(self, node: Any, key: str = "", depth: int = 0) -> Any:
        """Mapped values replaced in a JSON value, also inside JSON held in strings (tool text content);
        `key` is the field's dotted path (`version.number`: a lock by its parent's name)."""
        if depth > 32:
            return node
        if isinstance(node, dict):
            return {k: self.swap(v, f"{key}.{k}" if key else str(k), depth + 1) for k, v in node.items()}
        if isinstance(node, list):
            return [self.swap(v, key, depth + 1) for v in node]
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, str) and node.lstrip()[:1] in ("{", "["):
            try:
                return json.dumps(self.swap(json.loads(node), key, depth + 1), ensure_ascii=False)
            except (ValueError, RecursionError):
                return node
        return self.leaf(node, key)

    def text(self, text: str | None, encoding: str) -> str | None:
        if text is None or encoding != "text":
            return text
        try:
            return json.dumps(self.swap(json.loads(text)), ensure_ascii=False)
        except (ValueError, RecursionError):
            if _PART.search(text):  # a multipart form: each text part's value as a field's
                return _PART.sub(lambda m: m.group(1) + str(self.leaf(m.group(3), m.group(2))), text)
            if not _FORM.match(text):
                return self.paths(text)  # an HTML page: the links to what the server made
            return urlencode([(k, str(self.leaf(v, k))) for k, v in parse_qsl(text, keep_blank_values=True)])

    def paths(self, text: str) -> str:
        """Ids renamed where they are path segments (`/calls/9131/`): in a URL, a Location, a page's links."""
        if not self.ids:
            return text
        # one pass over the text whatever the number of ids (a fragment can show a thousand)
        return _SEGMENT.sub(lambda m: str(self.ids.get(m.group(1), m.group(1))), text)

    def location(self, value: str) -> str:
        """A Location, absolute or relative, with the ids in its path, query (`?id=318`) and
        fragment (`#comment-99812`) renamed."""
        try:
            parts = urlsplit(value)
        except ValueError:
            return self.paths(value)
        fragment = parts.fragment
        for old, new in self.ids.items():
            if fragment == old or re.search(rf"[_:-]{re.escape(old)}$", fragment):
                fragment = fragment[: len(fragment) - len(old)] + str(new)
        return urlunsplit((*urlsplit(self.url(value))[:4], fragment))

    def url(self, url: str) -> str:
        parts = urlsplit(url)
        path = self.paths(parts.path)
        query = parts.query
        if query:
            query = urlencode([(k, str(self.leaf(v, k))) for k, v in parse_qsl(query, keep_blank_values=True)])
        return urlunsplit((parts.scheme, parts.netloc, path, query, parts.fragment))


def _swap_call(call: Call, changes: Changes) -> Call:
    data = call.model_dump()
    if isinstance(call, HttpCall):
        data["url"] = changes.url(call.url)
        data["request_body"] = changes.text(call.request_body, call.request_body_encoding)
        data["response_body"] = changes.text(call.response_body, call.response_body_encoding)
        # a redirect names what the write made (`Location: /calls/9131/`)
        data["response_headers"] = [
            (name, changes.location(value) if name.lower() in ("location", "content-location") else value)
            for name, value in call.response_headers
        ]
    else:
        data["arguments"] = changes.swap(call.arguments)
        data["result"] = changes.swap(call.result)
    return type(call).model_validate(data)


def _volatile_values(
    golden: Recording, instruction: str, shown: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], frozenset[str]]:
    """Values a later run sends differently: under volatile keys, submit buttons' labels (the same
    form in another UI language), and ids the client made up (never one the instruction states);
    and the field paths of the labels."""
    told = told_values(instruction)
    seen: set[str] = set(told) | shown  # what the whole recording's answers showed is no client's invention
    found: dict[str, Any] = {}
    buttons = submit_buttons(golden)
    labels: set[str] = set()
    for call in golden.calls:
        for loc in input_locations(call):
            values = loc.value if isinstance(loc.value, list) else [loc.value]
            # a button any page of the trajectory showed (the golden keeps few pages), or by its name
            label = loc.root == "request" and buttons.label(loc.path, len(golden.calls))
            if label:
                labels.add(loc.path)
            for value in values:
                if value is None or isinstance(value, bool | dict | list) or (is_told(value, told) and not label):
                    continue
                if (
                    label
                    or volatile_kind(loc.path, value) is not None
                    or (client_made(value, seen) and not is_digest(loc.path))
                ):
                    found.setdefault(str(value), later_value(value))
            seen.update(str(v) for v in values if v is not None)
        for _, path, value in output_locations(call):
            if value is None or isinstance(value, bool | dict | list):
                continue
            if volatile_kind(path, value) is not None and not is_told(value, told):
                found.setdefault(str(value), later_value(value))
            seen.add(str(value))
    return found, frozenset(labels)


def _diff_values(diff: DbDiff, changes: Changes) -> DbDiff:
    data = diff.model_dump(mode="json")
    for table in data["tables"].values():
        for op in ("inserted", "deleted"):
            table[op] = [changes.swap(row) for row in table[op]]
        table["updated"] = [
            {"before": changes.swap(u["before"]), "after": changes.swap(u["after"])} for u in table["updated"]
        ]
    return DbDiff.model_validate(data)


def redo_attempts(
    golden: Recording, instruction: str | None = None, shown: frozenset[str] = frozenset()
) -> tuple[Recording | None, Recording | None]:
    """The golden attempt as a later run, twice: with the server-made ids renamed, and with the volatile
    values changed; None where nothing would change. `instruction` (default: the golden's own) states
    what never changes; `shown` are values the recording's answers showed (a read the golden left out
    showed the workspace's id: the client made nothing up)."""
    evidence = build_evidence(golden)
    made = {**handed_out(golden, evidence, {c.id for c in golden.calls}), **invented_values(golden, evidence)}
    told = golden.task.instruction if instruction is None else instruction
    renamed = Changes({value: str(new_id(value)) for value in made}, {})
    volatile, labels = _volatile_values(golden, told, shown)
    later = Changes({}, {k: v for k, v in volatile.items() if k not in made}, labels)
    return redone(golden, renamed), redone(golden, later)


def redone(golden: Recording, changes: Changes) -> Recording | None:
    if not changes:
        return None
    calls = [_swap_call(call, changes) for call in golden.calls]
    redo = attempt_from_calls(golden, calls, "redo", golden.mode)
    if golden.dbdiff is not None:
        redo.dbdiff = _diff_values(golden.dbdiff, changes)
    return redo
