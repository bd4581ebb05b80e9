"""Server-rendered web apps: form bodies as fields, what a request does (method overrides,
partial-page loads, navigations), the Location and HTML values of answers, why a form write
failed, and a form write's name. Pure; imports nothing of the other stages."""

from rlauto_core.forms.bodies import form_fields, form_kind, read_fields
from rlauto_core.forms.failures import WRITE_METHODS, failure_reasons
from rlauto_core.forms.html import HtmlPage, answer_page, is_html, scan_html
from rlauto_core.forms.locations import Location, location_fields, location_of
from rlauto_core.forms.names import field_path
from rlauto_core.forms.naming import SUBMIT_FIELDS, field_names, form_write_name, is_plumbing, shown_buttons
from rlauto_core.forms.outputs import answer_outputs, landing_outputs, landing_pages
from rlauto_core.forms.traffic import (
    TURBO_STREAM,
    effective_method,
    is_partial_page,
    page_load,
    polling,
)

__all__ = [
    "SUBMIT_FIELDS",
    "TURBO_STREAM",
    "WRITE_METHODS",
    "HtmlPage",
    "Location",
    "answer_outputs",
    "answer_page",
    "effective_method",
    "failure_reasons",
    "field_names",
    "field_path",
    "form_fields",
    "form_kind",
    "form_write_name",
    "is_html",
    "is_partial_page",
    "is_plumbing",
    "landing_outputs",
    "landing_pages",
    "location_fields",
    "location_of",
    "page_load",
    "polling",
    "read_fields",
    "scan_html",
    "shown_buttons",
]
