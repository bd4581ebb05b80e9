"""Matrix-like chat over MCP (echo mcp_calls.json + session.json): resolve a room alias, invite a
user, then send a message with a client transaction id; typing and whoami around it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.package.corpus_kit import Clock, ToolLog, clock, diff, mcp_files, task_doc, zip_files

SITE = "mcp://matrix"
BODY = "Omar is joining the on-call rotation from Monday."
INSTRUCTION = f"Invite @omar:corp.example to the #ops room and then tell the room '{BODY}'"
ROOMS = {"#ops:corp.example": "!kXoPqZ:corp.example", "#ops-archive:corp.example": "!aArchV:corp.example"}
ME = "@lena:corp.example"


@dataclass
class Run:
    clock: Clock
    prefix: str
    events: list[str]
    txn: int


def play(run: Run, script: list[tuple[str, str, str]]) -> tuple[ToolLog, dict[str, Any]]:
    log = ToolLog(run.clock, "matrix", prefix=run.prefix)
    log.call("matrix_whoami", {}, {"user_id": ME, "device_id": "LNXDESK"})
    members: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    resolved: set[str] = set()
    for verb, alias, arg in script:
        room = ROOMS[alias]
        if alias not in resolved:
            resolved.add(alias)
            log.call("matrix_resolve_alias", {"alias": alias}, {"room_id": room, "servers": ["corp.example"]})
        if verb == "invite":
            log.call("matrix_invite_user", {"room_id": room, "user_id": arg}, {})
            members.append({"room_id": room, "user_id": arg, "membership": "invite", "sender": ME})
        else:
            log.call("matrix_set_typing", {"room_id": room, "typing": True, "timeout": 30000}, {})
            event = run.events.pop(0)
            run.txn += 1
            txn = f"m{run.txn}.{len(events)}"
            log.call("matrix_send_message", {"room_id": room, "body": arg, "msgtype": "m.text", "txn_id": txn},
                     {"event_id": event})  # fmt: skip
            events.append({"event_id": event, "room_id": room, "type": "m.room.message", "body": arg, "sender": ME})
    return log, diff(room_members={"inserted": members}, events={"inserted": events})


SCRIPT = [("invite", "#ops:corp.example", "@omar:corp.example"), ("send", "#ops:corp.example", BODY)]
VARIANTS = {
    "good": SCRIPT,
    "missing_write": [("send", "#ops:corp.example", BODY)],
    "wrong_entity": [
        ("invite", "#ops-archive:corp.example", "@omar:corp.example"),
        ("send", "#ops:corp.example", BODY),
    ],
    "wrong_order": [("send", "#ops:corp.example", BODY), ("invite", "#ops:corp.example", "@omar:corp.example")],
}
SESSION = {
    "sessionId": "s_matrix_1",
    "user": {"id": ME},
    "servers": [{"name": "matrix", "version": "0.9.2", "tools": [
        {"name": "matrix_whoami", "inputSchema": {"type": "object"}},
        {"name": "matrix_resolve_alias", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "matrix_invite_user", "inputSchema": {"type": "object"}},
        {"name": "matrix_set_typing", "inputSchema": {"type": "object"}},
        {"name": "matrix_send_message", "inputSchema": {"type": "object"}},
    ]}],
}  # fmt: skip


def build() -> tuple[bytes, dict[str, bytes]]:
    log, dbdiff = play(Run(clock(2026, 5, 16, 7, 55), "c", ["$Yq3bK9wLr2:corp.example"], 1778918100000), SCRIPT)
    recording = zip_files(
        {**mcp_files(task_doc(INSTRUCTION, SITE, "rec_matrix_ops"), log, dbdiff), "session.json": SESSION}
    )
    attempts = {}
    for kind, script in VARIANTS.items():
        run = Run(clock(2026, 5, 23, 19, 41), "a", ["$Tn8vR1pXe6:corp.example"], 1779565260000)
        attempt_log, attempt_diff = play(run, script)
        attempts[kind] = zip_files(mcp_files(task_doc("", SITE, f"attempt_{kind}"), attempt_log, attempt_diff))
    empty = ToolLog(clock(2026, 5, 23, 19, 41), "matrix", prefix="a")
    attempts["empty"] = zip_files(mcp_files(task_doc("", SITE, "attempt_empty"), empty, None))
    return recording, attempts
