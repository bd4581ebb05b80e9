"""What an HTML answer offers and says: the values its forms and links hand the user, and the
errors a re-rendered form shows.

Offered values (hidden and other inputs, `<option value>`, `data-*id` attributes, Rails dom ids
such as `comment_99812`, the ids in links, the `csrf-token` meta) are what a person could pick
or send next, so they count as seen: an id a later write sends was not made by that write.
Read with regular expressions over the tags, not a DOM: a page is scanned in well under a
millisecond (the standard library's HTMLParser took 2 ms per KB here), and a hostile page
costs at most one pass over its first MAX_HTML_CHARS and MAX_TAGS tags.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from rlauto_core.forms.memo import SizedCache
from rlauto_core.recording import HttpCall

MAX_HTML_CHARS = 2_000_000
MAX_TAGS = 100_000  # a real page has a few thousand
MAX_OFFERED = 2000
MAX_VALUE_CHARS = 500
MAX_ERRORS = 5
_TAG = re.compile(r"<(/?)([a-zA-Z][\w:-]{0,40})([^<>]{0,4000})>")
_ATTR = re.compile(r"([^\s=/\"'<>]+)(?:\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"'=<>`]+))?")
_STRIP = re.compile(r"<[^<>]{0,4000}>")
_SPACE = re.compile(r"\s+")
# classes and ids of the elements frameworks put form errors in (Django, Rails scaffolds,
# Bootstrap/Laravel, simple_form, WordPress's admin `error` / `notice-error` boxes), and of fields
# they mark invalid; a box counts only with text in it
_ERROR_BOXES = frozenset(
    ["errorlist", "error_explanation", "errorexplanation", "invalid-feedback", "error-message", "error-messages",
     "field-error", "form-error", "form-errors", "alert-danger", "help-inline", "validation-summary-errors",
     "field-validation-error", "error", "errors", "notice-error", "alert-error", "validation-error"]
)  # fmt: skip
_INVALID_FIELDS = frozenset(["field_with_errors", "is-invalid", "has-error", "input-validation-error"])
_DOM_ID = re.compile(r"^[a-z][a-z_-]*[_-](\d+)$")  # Rails' `comment_99812`, also `task-901`
# attributes holding a URL the page's script or forms will request (htmx, Turbo frames, buttons)
_URL_ATTRIBUTES = frozenset(
    ["hx-get", "hx-post", "hx-put", "hx-patch", "hx-delete", "formaction", "data-url", "data-href"]
)
_SKIPPED_INPUTS = frozenset(["password", "file"])
_SCANNED: SizedCache[HtmlPage] = SizedCache(max_chars=32 * 2**20)  # dataflow reads a page many times


@dataclass(frozen=True)
class HtmlPage:
    title: str = ""
    # inputs/options/data/meta: name -> offered values; links: paths; link_ids: ids in links
    offers: dict[str, Any] = field(default_factory=dict)
    # select name -> option value -> its label ("17" -> "Dana Whitfield"): what a person picks by
    labels: dict[str, dict[str, str]] = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    invalid: bool = False  # some field is marked invalid, or an error box has text
    has_form: bool = False


def is_html(content_type: str | None, body: str | None) -> bool:
    if content_type:
        return "html" in content_type.lower()
    return bool(body) and body.lstrip()[:1] == "<"  # type: ignore[union-attr]


def answer_page(call: HttpCall) -> HtmlPage | None:
    """The scanned page of an HTML answer; None for any other answer."""
    body = call.response_body
    if not body or call.response_body_encoding != "text":
        return None
    if not is_html(call.header("content-type", response=True), body):
        return None
    return scan_html(body, call.host)


def scan_html(text: str, host: str = "") -> HtmlPage:
    """The page's title, offered values and form errors; `host` tells its own links from others'."""
    return _SCANNED.get((text, host), len(text), lambda: _scanned(text, host))


def _scanned(text: str, host: str) -> HtmlPage:
    scan = _Scan(host)
    text = text[:MAX_HTML_CHARS]
    for count, match in enumerate(_TAG.finditer(text)):
        if count >= MAX_TAGS:
            break
        scan.tag(text, match)
    scan._close_form()  # a form left open (a fragment, a cut page) still had its buttons
    return HtmlPage(
        title=scan.title,
        offers={k: v for k, v in scan.offers.items() if v},
        labels=scan.labels,
        errors=tuple(scan.errors),
        invalid=scan.invalid or bool(scan.errors),
        has_form=scan.has_form,
    )


def attributes(raw: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in _ATTR.findall(raw):
        value = value[1:-1] if value[:1] in ("'", '"') else value
        found.setdefault(name.lower(), html.unescape(value))
    return found


def text_of(fragment: str) -> str:
    return _SPACE.sub(" ", html.unescape(_STRIP.sub(" ", fragment))).strip()


class _Scan:
    """One pass over a page's tags."""

    def __init__(self, host: str) -> None:
        self.host = host
        self.title = ""
        self.offers: dict[str, Any] = {
            "inputs": {}, "options": {}, "data": {}, "meta": {}, "links": [], "link_ids": [], "buttons": {},
        }  # fmt: skip
        self.form_buttons: dict[str, list[str]] = {}  # the open form's submit buttons: name -> values
        self.choices: set[str] = set()  # button names whose value is a choice (two values in one form)
        self.count = 0
        self.errors: list[str] = []
        self.invalid = False
        self.has_form = False
        self.select: str | None = None
        self.labels: dict[str, dict[str, str]] = {}
        self.option: tuple[str, str, int] | None = None  # an open option: select, value, label start
        self.title_at: int | None = None
        self.box: tuple[str, int, int] | None = None  # an open error box: tag name, content start, depth

    def tag(self, text: str, match: re.Match[str]) -> None:
        closing, name = match.group(1) == "/", match.group(2).lower()
        if self.option is not None:  # an option's label runs to the next tag
            select, value, start = self.option
            self.option = None
            label = text_of(text[start : match.start()])[:120]
            if label and self.count < MAX_OFFERED:
                self.labels.setdefault(select, {})[value] = label
        if self.box is not None:
            self._in_box(text, match, closing, name)
        if closing:
            if name == "form":
                self._close_form()
            if name == "select":
                self.select = None
            elif name == "title" and self.title_at is not None:
                self.title = text_of(text[self.title_at : match.start()])[:200]
                self.title_at = None
            return
        if name == "title":
            self.title_at = match.end()
        raw = match.group(3)
        if not raw or raw.isspace():
            self.has_form = self.has_form or name == "form"
            return  # a tag without attributes offers nothing (most of a hostile page's tags)
        attrs = attributes(raw)
        self._marks(attrs, name, match.end())
        if name == "form":
            self._close_form()
            self.has_form = True
            self._link(attrs.get("action"))
        elif name in ("input", "button"):
            kind = attrs.get("type", "submit" if name == "button" else "text").lower()
            if kind not in _SKIPPED_INPUTS and attrs.get("name") and attrs.get("value"):
                self._offer("inputs", attrs["name"], attrs["value"])
            if kind in ("submit", "image") and attrs.get("name"):
                values = self.form_buttons.setdefault(attrs["name"][:200], [])
                if attrs.get("value", "") not in values:
                    values.append(attrs.get("value", ""))
            if attrs.get("aria-invalid") == "true":
                self.invalid = True
        elif name == "select":
            self.select = attrs.get("name") or attrs.get("id")
        elif name == "option" and self.select and attrs.get("value"):
            self._offer("options", self.select, attrs["value"])
            self.option = (self.select[:200], attrs["value"], match.end())
        elif name == "meta" and re.search(r"csrf|xsrf", attrs.get("name", ""), re.IGNORECASE):
            self._offer("meta", attrs["name"], attrs.get("content", ""))
        elif name == "a":
            self._link(attrs.get("href"))
        for key, value in attrs.items():
            if key.startswith("data-") and (key.endswith("id") or key.endswith("-ids")):
                self._offer("data", key, value)
            elif key in _URL_ATTRIBUTES:
                self._link(value)
        dom = _DOM_ID.match(attrs.get("id", ""))
        if dom:
            self._offer("data", "dom_id", dom.group(1))

    def _marks(self, attrs: dict[str, str], name: str, content_start: int) -> None:
        words = set(attrs.get("class", "").lower().split()) | {attrs.get("id", "").lower()}
        if words & _INVALID_FIELDS:
            self.invalid = True
        if self.box is None and words & _ERROR_BOXES and len(self.errors) < MAX_ERRORS:
            self.box = (name, content_start, 1)

    def _in_box(self, text: str, match: re.Match[str], closing: bool, name: str) -> None:
        assert self.box is not None
        box_name, start, depth = self.box
        if name != box_name:
            return
        depth += -1 if closing else 1
        if depth > 0:
            self.box = (box_name, start, depth)
            return
        self.box = None
        inner = text[start : match.start()]
        items = re.findall(r"<li\b[^<>]*>(.*?)</li>", inner, re.IGNORECASE | re.DOTALL)
        for message in [text_of(item) for item in items] or [text_of(inner)]:
            if message and len(self.errors) < MAX_ERRORS and message not in self.errors:
                self.errors.append(message[:200])

    def _close_form(self) -> None:
        """A form's submit buttons: one value per name is the button's label (UI wording, sent
        whatever the person chose); two or more values under one name are a choice."""
        for name, values in self.form_buttons.items():
            if len(values) > 1:
                self.choices.add(name)
                self.offers["buttons"].pop(name, None)
            elif name not in self.choices:
                self._offer("buttons", name, values[0] or name)
        self.form_buttons = {}

    def _offer(self, kind: str, name: str, value: str) -> None:
        if not value or len(value) > MAX_VALUE_CHARS or self.count >= MAX_OFFERED:
            return
        values = self.offers[kind].setdefault(name[:200], [])
        if value not in values:
            values.append(value)
            self.count += 1

    def _link(self, href: str | None) -> None:
        if not href or len(href) > MAX_VALUE_CHARS or self.count >= MAX_OFFERED:
            return
        try:
            parts = urlsplit(href)
        except ValueError:
            return
        if parts.scheme not in ("", "http", "https") or (parts.netloc and parts.netloc != self.host):
            return
        path = parts.path or "/"
        if path not in self.offers["links"]:
            self.offers["links"].append(path)
            self.count += 1
        ids = [s for s in path.split("/") if any(ch.isdigit() for ch in s)]
        ids += [v for _, v in parse_qsl(parts.query) if any(ch.isdigit() for ch in v)]
        for value in ids:
            if value not in self.offers["link_ids"] and len(value) <= MAX_VALUE_CHARS:
                self.offers["link_ids"].append(value)
                self.count += 1
