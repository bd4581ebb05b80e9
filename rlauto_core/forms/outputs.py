"""Values an answer carries outside a JSON body, as (root, path, value) for the dataflow.

- `location`: the Location of any answer below 400 (see `locations.location_fields`), the same
  fields a checker sees under `location`, so a `same_as` on `location.segments.1` finds the id
  a later attempt's server made.
- `html`: what an HTML page offers (a read's page, or the fragment a successful write answered
  with: htmx swaps, Turbo streams) (`html.inputs.<name>`, `html.options.<name>`,
  `html.data.<attr>`, `html.meta.<name>`, `html.links`, `html.link_ids`), each a list: seen
  values, never a single id to tie a check to (a page lists many; the agent picks one). A CSRF
  token sits at `html.inputs.authenticity_token` or `html.meta.csrf-token`, where its name says
  what it is.

A create (a POST, not to an edit, update or delete route) answered with a redirect (301/302/303)
shows what it made in the page the browser then loads (`landing_pages`): Spring's pet clinic
names a new pet only as a link on the owner's page. The ids in that page's links below its own
path (`landing_outputs`: the owner page's `/owners/11/pets/14/edit`, never the choices it
offers) are outputs of the write, for the dataflow (`package.dataflow.invented_values`) and the
checkers' carried values alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import urldefrag, urlsplit

from rlauto_core.forms.failures import WRITE_METHODS
from rlauto_core.forms.html import answer_page
from rlauto_core.forms.locations import location_fields, location_of
from rlauto_core.forms.traffic import effective_method
from rlauto_core.recording import Call, HttpCall

Output = tuple[str, str, Any]


def answer_outputs(call: HttpCall) -> list[Output]:
    found: list[Output] = []
    location = location_fields(call)
    if location is not None:
        found.extend(("location", path, value) for path, value in _flattened(location))
    page = answer_page(call)
    if page is not None and call.method.upper() not in ("GET", "HEAD"):
        # a write answered with a fragment (htmx, a Turbo stream) shows what it made there; a
        # failed one, or a form re-rendered with its errors, made nothing
        accepted = call.status is not None and call.status < 400 and not page.invalid
        page = page if accepted else None
    if page is not None:
        found.extend(("html", path, value) for path, value in _flattened(page.offers))
    return found


REDIRECTS = frozenset({301, 302, 303})  # a browser follows these with a GET
# a POST to a route ending so (`/owners/11/edit`, `?action=delete`) changes or removes: it makes no record
_NOT_CREATES = frozenset({"edit", "update", "change", "delete", "remove", "destroy"})


def _creates(call: HttpCall, method: str) -> bool:
    """Could this write make a record? A POST (the method forms create with), not to an edit,
    update or delete route: an owner's edit form lands on the owner page too, showing old pets."""
    if method != "POST":
        return False
    last = call.path.rstrip("/").rsplit("/", 1)[-1].lower()
    return last not in _NOT_CREATES and not any(str(v).lower() in _NOT_CREATES for _, v in call.query)


def landing_pages(calls: Sequence[Call]) -> dict[int, int]:
    """Position of a read -> position of the write whose redirect led there: the first GET of the
    Location's target (same host; the fragment is the browser's) after a create (a POST, not to an
    edit, update or delete route) answered 301, 302 or 303, before any other write. Positions are
    in `calls`; tool calls are skipped."""
    found: dict[int, int] = {}
    pending: tuple[int, str] | None = None
    for position, call in enumerate(calls):
        if not isinstance(call, HttpCall):
            continue
        method = effective_method(call)
        if method in WRITE_METHODS:
            pending = None
            location = location_of(call) if call.status in REDIRECTS and _creates(call, method) else None
            if location is not None and location.same_host:
                pending = (position, urldefrag(location.url)[0])
        elif pending is not None and method == "GET" and urldefrag(call.url)[0] == pending[1]:
            found[position] = pending[0]
            pending = None
    return found


def landing_outputs(call: HttpCall) -> list[Output]:
    """Where a write's new record can first appear on the page its redirect led to: the ids in the
    paths of the page's links below its own path (`/owners/11` lists `/owners/11/pets/14/edit`:
    14), as `html.link_ids`. Links elsewhere, options, inputs and `data-*` attributes are what the
    page offers or decorates with (a label every new card gets), not what was just made."""
    page = answer_page(call) if call.status is not None and call.status < 400 else None
    base = urlsplit(call.url).path.rstrip("/")
    if page is None or not base:
        return []
    ids: list[str] = []
    for link in page.offers.get("links", []):
        if isinstance(link, str) and link.startswith(base + "/"):
            below = [s for s in link[len(base) + 1 :].split("/") if any(ch.isdigit() for ch in s)]
            ids.extend(s for s in below if s not in ids)
    return [("html", "link_ids", ids)] if ids else []


def _flattened(value: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """Dotted paths of the nested dicts; lists stay whole."""
    found: list[tuple[str, Any]] = []
    for key, item in value.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(item, dict):
            found.extend(_flattened(item, path))
        else:
            found.append((path, list(item) if isinstance(item, list) else item))
    return found
