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
"""

from __future__ import annotations

from typing import Any

from rlauto_core.forms.html import answer_page
from rlauto_core.forms.locations import location_fields
from rlauto_core.recording import HttpCall

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
