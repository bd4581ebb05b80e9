"""Odoo 17 web client (echo network.json; an Odoo Online database: no database diff). Class b of
issue 28, a failure inside a 2xx, JSON-RPC 2.0 over HTTP: every call is `POST
/web/dataset/call_kw/<model>/<method>` with `{"jsonrpc": "2.0", "method": "call", "params":
{"model", "method", "args", "kwargs"}, "id": n}` and is answered HTTP 200, either `{"result": ...}`
or `{"error": {"code": 200, "message": "Odoo Server Error", "data": {"name":
"odoo.exceptions.AccessError", "message": ..., "debug": <traceback>}}}`. The client numbers its
requests (`id`), sends its `context` (language, time zone, allowed companies), reads with
`web_search_read`/`web_read` (reads sent as POSTs), and saves the user's UI settings
(`res.users.settings/set_res_users_settings`: the chatter panel opened, UI state).

The task writes the opportunity (`crm.lead/write` with the stage and expected revenue) and posts
a note on it (`crm.lead/message_post`).

Attempts: `good` (later: other request ids, message id, context), `good_reads_back` (reads the
opportunity again after saving): full marks. `empty`: 0. `missing_write` (no note): must fail.
`failed_write` sends the `write`, which is answered 200 with the JSON-RPC `error` object (an
AccessError: the session belongs to a salesperson allowed to edit only their own leads), and
posts the note: the stage and revenue never changed, so it must not get full marks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, HttpLog, api_files, clock, task_doc, zip_files
from tests.package.rewards_kit import Truth

SITE = "https://northwind.odoo.com"
RPC = f"{SITE}/web/dataset/call_kw"
LEAD = 412
NOTE = "Sent the revised quote v3 (40 seats, annual billing)."
INSTRUCTION = (
    "In the CRM, move the opportunity 'Globex - 40 seats' to the Proposition stage, set its expected "
    f"revenue to 48000, and log the note '{NOTE}'."
)
STAGES = {1: "New", 2: "Qualified", 3: "Proposition", 4: "Won"}
ACCESS_ERROR = (
    "You are not allowed to modify 'Lead/Opportunity' (crm.lead) records.\n\nThis operation is allowed for "
    "the following groups:\n\t- Sales/User: All Documents\n\nContact your administrator to request access if necessary."
)


@dataclass
class Run:
    clock: Clock
    prefix: str
    rpc_id: int  # the web client's request counter when the task starts
    uid: int
    message: int
    session: str


def play(run: Run, script: list[str]) -> tuple[HttpLog, Truth]:
    log = HttpLog(run.clock, f"{SITE}/odoo/crm/{LEAD}", prefix=run.prefix)
    truth = Truth()
    headers = {"cookie": f"session_id={run.session}; frontend_lang=en_US; tz=Europe/London"}
    context = {"lang": "en_US", "tz": "Europe/London", "uid": run.uid, "allowed_company_ids": [1]}
    lead = {"id": LEAD, "name": "Globex - 40 seats", "stage_id": {"id": 2, "display_name": "Qualified"},
            "expected_revenue": 36000.0, "partner_id": {"id": 77, "display_name": "Globex Corporation"},
            "user_id": {"id": 6, "display_name": "Mitchell Admin"}}  # fmt: skip

    def rpc(model: str, method: str, args: list[Any], kwargs: dict[str, Any], answer: dict[str, Any]) -> str:
        run.rpc_id += 1
        body = {"id": run.rpc_id, "jsonrpc": "2.0", "method": "call",
                "params": {"model": model, "method": method, "args": args, "kwargs": {**kwargs, "context": context}}}  # fmt: skip
        return log.call("POST", f"{RPC}/{model}/{method}", status=200, headers=headers, body=body,
                        response={"jsonrpc": "2.0", "id": run.rpc_id, **answer})  # fmt: skip

    spec = {"name": {}, "stage_id": {"fields": {"display_name": {}}}, "expected_revenue": {},
            "partner_id": {"fields": {"display_name": {}}}, "user_id": {"fields": {"display_name": {}}}}  # fmt: skip
    for step in script:
        if step == "search":
            rpc("crm.lead", "web_search_read", [], {"domain": [["type", "=", "opportunity"], ["name", "ilike", "Globex"]],
                "specification": spec, "limit": 80}, {"result": {"length": 1, "records": [dict(lead)]}})  # fmt: skip
        elif step == "open":
            rpc("crm.lead", "web_read", [[LEAD]], {"specification": spec}, {"result": [dict(lead)]})
            cid = rpc("res.users.settings", "set_res_users_settings", [[run.uid]],
                      {"new_settings": {"is_discuss_sidebar_category_chat_open": False, "chatter_position": "aside"}},
                      {"result": {"id": run.uid, "chatter_position": "aside"}})  # fmt: skip
            truth.add(cid, "save the user's chatter panel setting", "ui_state")
        elif step in ("write", "write_denied"):
            args = [[LEAD], {"stage_id": 3, "expected_revenue": 48000}]
            if step == "write_denied":
                rpc("crm.lead", "write", args, {}, {"error": {"code": 200, "message": "Odoo Server Error", "data": {
                    "name": "odoo.exceptions.AccessError", "message": ACCESS_ERROR, "arguments": [ACCESS_ERROR],
                    "context": {}, "debug": "Traceback (most recent call last):\n  File \"/home/odoo/src/odoo/odoo/http.py\", "
                    "line 1770, in _serve_db\n    return service_model.retrying(self._serve_ir_http, self.env)\n"
                    "odoo.exceptions.AccessError: " + ACCESS_ERROR.splitlines()[0]}}})  # fmt: skip
                continue
            lead["stage_id"] = {"id": 3, "display_name": "Proposition"}
            lead["expected_revenue"] = 48000.0
            cid = rpc("crm.lead", "write", args, {}, {"result": True})
            truth.add(cid, "move the opportunity to Proposition and set the revenue")
        elif step == "note":
            cid = rpc("crm.lead", "message_post", [[LEAD]],
                      {"body": NOTE, "message_type": "comment", "subtype_xmlid": "mail.mt_note", "partner_ids": []},
                      {"result": [run.message]})  # fmt: skip
            truth.add(cid, "log the note")
    return log, truth


RECORDED = ["search", "open", "write", "note"]
SCRIPTS = {
    "good": RECORDED,
    "good_reads_back": ["search", "open", "write", "open", "note"],
    "missing_write": ["search", "open", "write"],
    "failed_write": ["search", "open", "write_denied", "note"],
}


def build() -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    log, truth = play(
        Run(clock(2026, 5, 12, 14, 3), "r", 41, 2, 18822, "3f9a1c7e5b2d4a6c8e0f1a3b5c7d9e2f4a6b8c0d"), RECORDED
    )
    recording = zip_files(api_files(task_doc(INSTRUCTION, SITE, "rec_globex_stage"), log, None))
    attempts = {}
    for kind, script in SCRIPTS.items():
        uid = 2 if kind != "failed_write" else 9
        later = Run(clock(2026, 5, 21, 9, 47), "a", 7, uid, 19310, "b8d6f4a2c0e9b7d5f3a1c8e6b4d2f0a9c7e5b3d1")
        attempt_log, _ = play(later, script)
        attempts[kind] = zip_files(api_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, None))
    empty = HttpLog(clock(2026, 5, 21, 9, 47), SITE, prefix="a")
    attempts["empty"] = zip_files(api_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts, truth.document(INSTRUCTION)
