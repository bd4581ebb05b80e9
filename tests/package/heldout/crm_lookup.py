"""CRM lookup over MCP (echo mcp_calls.json): a read-only task, search then open one of two
namesakes and report a phone number. Attempts report their answer in task.json `task.answer`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, mcp_files, task_doc, zip_files

SITE = "mcp://crm"
INSTRUCTION = "Look up Jonas Weber of Fernhill GmbH in the CRM and tell me his direct phone number."
CONTACTS: dict[str, dict[str, Any]] = {
    "ct_301": {"name": "Jonas Weber", "company": "Fernhill GmbH",
               "phones": {"direct": "+49 30 5557 1203", "mobile": "+49 171 555 0192"},
               "email": "j.weber@fernhill.example", "last_contacted": "2026-04-28"},
    "ct_388": {"name": "Jonas Weber", "company": "Weber Logistik",
               "phones": {"direct": "+49 40 5550 7781", "mobile": "+49 160 555 3321"},
               "email": "jonas@weber-logistik.example", "last_contacted": "2025-11-02"},
}  # fmt: skip


@dataclass
class Run:
    clock: Clock
    prefix: str


def play(run: Run, script: list[str]) -> ToolLog:
    log = ToolLog(run.clock, "crm", prefix=run.prefix)
    log.call("crm_ping", {}, {"ok": True})
    log.call("crm_search_contacts", {"query": "Jonas Weber", "limit": 10},
             {"results": [{"id": k, "name": v["name"], "company": v["company"]} for k, v in CONTACTS.items()]})  # fmt: skip
    for contact in script:
        log.call("crm_get_contact", {"contact_id": contact}, {"id": contact, **CONTACTS[contact]})
    return log


VARIANTS: dict[str, tuple[list[str], str]] = {
    "good": (["ct_301"], "Jonas Weber (Fernhill GmbH): his direct line is +49 30 5557 1203."),
    "missing_write": ([], "I could not open his record."),
    "wrong_entity": (["ct_388"], "His direct number is +49 40 5550 7781."),
    "wrong_answer": (["ct_301"], "You can reach him on +49 171 555 0192."),
}


def build() -> tuple[bytes, dict[str, bytes]]:
    log = play(Run(clock(2026, 5, 15, 9, 30), "c"), ["ct_301"])
    recording = zip_files(mcp_files(task_doc(INSTRUCTION, SITE, "rec_crm_301"), log, None))
    attempts = {}
    for kind, (script, answer) in VARIANTS.items():
        attempt_log = play(Run(clock(2026, 5, 22, 13, 12), "a"), script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}", answer=answer), attempt_log, None))
    empty = ToolLog(clock(2026, 5, 22, 13, 12), "crm", prefix="a")
    attempts["empty"] = zip_files(mcp_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts
