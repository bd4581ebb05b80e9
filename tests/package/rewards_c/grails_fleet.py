"""A Grails 6 scaffolded fleet app in Safari (Safari's Web Inspector HAR in a ZIP; recorded with a
browser only: no database diff). Class b of issue 28, a failure inside a 2xx, a server-rendered
form, with a form token under a name no word list holds: Grails' `<g:form useToken="true">` sends
`SYNCHRONIZER_TOKEN` (a uuid, a new one on every form page) and `SYNCHRONIZER_URI`, and the
controller's `withForm` checks them. A save that fails validation answers HTTP 200 with the create
form again (`respond serviceRecord.errors, view: 'create'`: Grails' `<ul class="errors"
role="alert">` and the field's `fieldcontain error` box); a good save redirects (302 to
`/serviceRecord/show/<id>`, the new id only there). The vehicle update also carries Grails'
optimistic lock, the hidden `version` field, another value every session.

The recording finds the vehicle, logs the service with the odometer typed "84.210" (refused:
not a number, 200 re-render), logs it again (302), then sets the vehicle back in service
(`POST /vehicle/update/17` with `_method=PUT`, `version`, 302 to the vehicle).

Attempts: `good` (later: other tokens, session, versions, record id; no typo), `good_after_error`
(the same refused save first, as recorded): full marks. `empty`: 0. `missing_write` (the vehicle
left in the workshop), `failed_write` (the refused save only, then the status: no service logged),
`wrong_entity` (both writes on B-KX 4417, the plate the search also lists), `wrong_content` (logs a
tyre service, TYRES, instead of brakes): must fail.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from tests.package.corpus_kit import task_doc, zip_files
from tests.package.rewards_c.recorder import har_id, safari_har
from tests.package.rewards_heldout.recorder import Recorder, at
from tests.package.rewards_kit import Truth, hexid, uuid_from

SITE = "https://fleet.stadtwerke-lenzen.de"
APP = f"{SITE}/fleet"
NOTES = "Front pads and discs replaced, brake fluid changed."
INSTRUCTION = (
    "In the fleet app, log a BRAKES service for the van with plate B-KX 4471 on 14 May 2026 at Autohaus Reuter "
    f"(odometer 84210 km, cost 412.50, notes '{NOTES}'), then set the van's status to In service."
)
VEHICLES = {"B-KX 4471": 17, "B-KX 4417": 19}
HTML = {"Content-Type": "text/html;charset=utf-8"}


def _page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f'<link rel="stylesheet" href="/fleet/assets/application-4e1f.css"></head><body><div class="nav" role="navigation"><ul>'
            f'<li><a class="home" href="/fleet/">Home</a></li><li><a class="list" href="/fleet/vehicle/index">Vehicles</a></li></ul></div>'
            f'<div id="content" role="main">{body}</div></body></html>')  # fmt: skip


def _service_form(token: str, vehicle: int, errors: str = "", odometer: str = "") -> str:
    box = "fieldcontain required error" if errors else "fieldcontain required"
    return _page("Create ServiceRecord", (
        f'<h1>Create ServiceRecord</h1>{errors}<form action="/fleet/serviceRecord/save" method="post">'
        f'<input type="hidden" name="SYNCHRONIZER_TOKEN" value="{token}" id="SYNCHRONIZER_TOKEN">'
        '<input type="hidden" name="SYNCHRONIZER_URI" value="/fleet/serviceRecord/create" id="SYNCHRONIZER_URI">'
        f'<fieldset class="form"><input type="hidden" name="vehicle.id" value="{vehicle}" id="vehicle">'
        '<div class="fieldcontain required"><label for="type">Type</label><select name="type" id="type">'
        '<option value="INSPECTION">Inspection</option><option value="BRAKES">Brakes</option><option value="TYRES">Tyres</option>'
        '<option value="OIL">Oil change</option></select></div>'
        f'<div class="{box}"><label for="odometerKm">Odometer (km)</label><input type="text" name="odometerKm" value="{odometer}" id="odometerKm"></div>'
        '<div class="fieldcontain"><label for="workshop">Workshop</label><input type="text" name="workshop" value="" id="workshop"></div>'
        '<div class="fieldcontain"><label for="cost">Cost</label><input type="text" name="cost" value="" id="cost"></div>'
        '<div class="fieldcontain required"><label for="serviceDate">Service Date</label><input type="hidden" name="serviceDate" value="date.struct">'
        '<select name="serviceDate_day" id="serviceDate_day"><option value="14" selected>14</option></select>'
        '<select name="serviceDate_month" id="serviceDate_month"><option value="5" selected>Mai</option></select>'
        '<select name="serviceDate_year" id="serviceDate_year"><option value="2026" selected>2026</option></select></div>'
        '<div class="fieldcontain"><label for="notes">Notes</label><textarea name="notes" id="notes"></textarea></div>'
        '</fieldset><fieldset class="buttons"><input type="submit" name="create" class="save" value="Create" id="create"></fieldset></form>'))  # fmt: skip


def play(seed: str, start: Any, steps: list[str], plate: str = "B-KX 4471", version: int = 6) -> tuple[Recorder, Truth]:
    rec = Recorder(start)
    truth = Truth()
    vehicle = VEHICLES[plate]
    record = 2291 if seed == "rec" else 2304
    session = hexid(seed + "/jsession", 32).upper()
    tokens = iter(uuid_from(f"{seed}/token/{n}") for n in range(20))
    token = [next(tokens)]
    headers = {"User-Agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
               "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "Accept-Language": "de-DE,de;q=0.9",
               "Cookie": f"JSESSIONID={session}"}  # fmt: skip

    def get(path: str, html: str) -> None:
        rec.send("GET", f"{APP}{path}", status=200, headers=headers, answer=html, answer_headers=HTML, gap_ms=2600)

    def post(path: str, fields: list[tuple[str, str]], status: int, answer: str = "", location: str = "") -> str:
        form = {
            **headers,
            "Content-Type": "application/x-www-form-urlencoded",
            "Origin": SITE,
            "Referer": f"{APP}{path}",
        }
        answer_headers = {**HTML, "Location": f"{APP}{location}", "Content-Length": "0"} if location else HTML
        return rec.send("POST", f"{APP}{path}", status=status, body=urlencode(fields), headers=form, answer=answer,
                        answer_headers=answer_headers, gap_ms=9000)  # fmt: skip

    for step in steps:
        if step == "search":
            rows = "".join(f'<tr><td><a href="/fleet/vehicle/show/{v}">{p}</a></td><td>VW Crafter 35</td><td>In workshop</td></tr>'
                           for p, v in VEHICLES.items())  # fmt: skip
            get(
                "/vehicle/index?q=B-KX+44",
                _page(
                    "Vehicle List",
                    f"<h1>Vehicle List</h1><table><thead><tr><th>Plate</th><th>Model</th><th>Status</th></tr></thead><tbody>{rows}</tbody></table>",
                ),
            )
        elif step == "new":
            get(f"/serviceRecord/create?vehicle.id={vehicle}", _service_form(token[0], vehicle))
        elif step in ("save", "save_typo", "save_tyres"):
            odometer = "84.210" if step == "save_typo" else "84210"
            fields = [("SYNCHRONIZER_TOKEN", token[0]), ("SYNCHRONIZER_URI", "/fleet/serviceRecord/create"), ("vehicle.id", str(vehicle)),
                      ("type", "TYRES" if step == "save_tyres" else "BRAKES"), ("serviceDate", "date.struct"), ("serviceDate_day", "14"),
                      ("serviceDate_month", "5"), ("serviceDate_year", "2026"), ("odometerKm", odometer), ("workshop", "Autohaus Reuter"),
                      ("cost", "412.50"), ("notes", NOTES), ("create", "Create")]  # fmt: skip
            token[0] = next(tokens)
            if step == "save_typo":
                errors = '<ul class="errors" role="alert"><li data-field-id="odometerKm">Property odometerKm must be a valid number</li></ul>'
                cid = post("/serviceRecord/save", fields, 200, _service_form(token[0], vehicle, errors, odometer))
                truth.add(har_id(cid), "service refused: odometer not a number, form re-rendered at 200", "failed")
                continue
            cid = post("/serviceRecord/save", fields, 302, location=f"/serviceRecord/show/{record}")
            truth.add(har_id(cid), f"log the service for {plate}")
            get(f"/serviceRecord/show/{record}", _page("Show ServiceRecord", f'<div class="message" role="status">ServiceRecord {record} created</div>'
                f'<ol class="property-list serviceRecord"><li class="fieldcontain"><span class="property-label">Vehicle</span>'
                f'<a href="/fleet/vehicle/show/{vehicle}">{plate}</a></li></ol><a class="edit" href="/fleet/serviceRecord/edit/{record}">Edit</a>'))  # fmt: skip
        elif step == "edit":
            get(f"/vehicle/edit/{vehicle}", _page("Edit Vehicle", (
                f'<h1>Edit Vehicle</h1><form action="/fleet/vehicle/update/{vehicle}" method="post"><input type="hidden" name="_method" value="PUT" id="_method">'
                f'<input type="hidden" name="SYNCHRONIZER_TOKEN" value="{token[0]}"><input type="hidden" name="SYNCHRONIZER_URI" value="/fleet/vehicle/edit/{vehicle}">'
                f'<input type="hidden" name="version" value="{version}" id="version"><select name="status" id="status"><option value="IN_WORKSHOP" selected>In workshop</option>'
                '<option value="IN_SERVICE">In service</option><option value="RETIRED">Retired</option></select>'
                '<input type="submit" name="_action_update" class="save" value="Update"></form>')))  # fmt: skip
        else:  # status
            fields = [("_method", "PUT"), ("SYNCHRONIZER_TOKEN", token[0]), ("SYNCHRONIZER_URI", f"/fleet/vehicle/edit/{vehicle}"),
                      ("version", str(version)), ("status", "IN_SERVICE"), ("_action_update", "Update")]  # fmt: skip
            token[0] = next(tokens)
            cid = post(f"/vehicle/update/{vehicle}", fields, 302, location=f"/vehicle/show/{vehicle}")
            version += 1
            truth.add(har_id(cid), f"set {plate} in service")
            get(f"/vehicle/show/{vehicle}", _page("Show Vehicle", f'<div class="message" role="status">Vehicle {vehicle} updated</div>'
                f'<ol class="property-list vehicle"><li class="fieldcontain"><span class="property-label">Status</span>In service</li></ol>'))  # fmt: skip
    return rec, truth


RECORDED = ["search", "new", "save_typo", "save", "edit", "status"]
SCRIPTS: dict[str, tuple[list[str], str]] = {
    "good": (["search", "new", "save", "edit", "status"], "B-KX 4471"),
    "good_after_error": (RECORDED, "B-KX 4471"),
    "missing_write": (["search", "new", "save"], "B-KX 4471"),
    "failed_write": (["search", "new", "save_typo", "edit", "status"], "B-KX 4471"),
    "wrong_entity": (["search", "new", "save", "edit", "status"], "B-KX 4417"),
    "wrong_content": (["search", "new", "save_tyres", "edit", "status"], "B-KX 4471"),
}


def _zip(task: dict[str, Any], rec: Recorder) -> bytes:
    return zip_files({"task.json": task, "fleet.har": safari_har(rec, "Fleet")})


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    rec, truth = play("rec", at(2026, 5, 14, 13, 2), RECORDED)
    recording = _zip(task_doc(INSTRUCTION, SITE, "rec_brake_service_4471"), rec)
    attempts = {kind: _zip(task_doc("", SITE, f"attempt_{kind}"), play(f"later/{kind}", at(2026, 5, 27, 9, 41), steps, plate, 9)[0])
                for kind, (steps, plate) in SCRIPTS.items()}  # fmt: skip
    attempts["empty"] = _zip(task_doc("", SITE, "attempt_empty"), Recorder(at(2026, 5, 27, 9, 41)))
    return recording, attempts, truth.document(INSTRUCTION)
